//! How long `check` takes on a large generated specification (target: a 5,000-line spec in
//! under 1 s). Run with `cargo bench -p ioa-lang --bench check_large`.

use criterion::{criterion_group, criterion_main, Criterion};
use ioa_lang::loader::MemoryFileSystem;
use std::path::PathBuf;

/// A spec of `n` Global1-like automata, each with invariants and a schedule: about 60 lines each.
fn generated_spec(n: usize) -> String {
    let mut s = String::from(
        "type Node = tuple of location: Int\ntype Value = tuple of value: Int\ntype Ballot = tuple of ordering: Int\n\n",
    );
    for k in 0..n {
        s.push_str(&format!(
            r#"automaton G{k}
  signature
    input fail(i: Node), init(i: Node, v: Value)
    output decide(i: Node, v: Value)
    internal makeBallot(b: Ballot), assignVal(b: Ballot, v: Value),
             vote(i: Node, b: Ballot), abstain(i: Node, B: Set[Ballot]), internalDecide(b: Ballot)
  states
    initiated: Set[Node] := {{}},
    proposed: Set[Value] := {{}},
    decided: Set[Node] := {{}},
    failed: Set[Node] := {{}},
    ballots: Set[Ballot] := {{}},
    succeeded: Set[Ballot] := {{}},
    val: Array[Ballot, Null[Value]] := constant(nil),
    voted: Array[Node, Set[Ballot]] := constant({{}}),
    abstained: Array[Node, Set[Ballot]] := constant({{}}),
    quorums: Set[Set[Node]] := {{}},
    dead: Set[Ballot] := {{}}
  transitions
    input init(i, v)
      eff if ¬(i ∈ failed) ∧ ¬(i ∈ initiated) then
            initiated := initiated ∪ {{i}};
            proposed := proposed ∪ {{v}}
          fi
    input fail(i)
      eff failed := failed ∪ {{i}}
    internal makeBallot(b)
      pre ¬(b ∈ ballots)
      eff ballots := ballots ∪ {{b}}
    internal assignVal(b, v)
      pre b ∈ ballots ∧ val[b] = nil ∧ v ∈ proposed ∧
          ∀ b': Ballot (b'.ordering < b.ordering ⇒ val[b'] = embed(v) ∨ b' ∈ dead)
      eff val[b] := embed(v)
    internal vote(i, b)
      pre i ∈ initiated ∧ ¬(i ∈ failed) ∧ b ∈ ballots ∧ ¬(b ∈ abstained[i])
      eff voted[i] := voted[i] ∪ {{b}}
    internal abstain(i, B)
      pre i ∈ initiated ∧ ¬(i ∈ failed) ∧ voted[i] ∩ B = {{}}
      eff abstained[i] := abstained[i] ∪ B;
          for aBallot: Ballot in B do
            if ∃ q: Set[Node] (q ∈ quorums ∧ ∀ n: Node (n ∈ q ⇒ aBallot ∈ abstained[n]))
            then dead := insert(aBallot, dead)
            fi
          od
    internal internalDecide(b)
      pre b ∈ ballots ∧ ∃ q: Set[Node] (q ∈ quorums ∧ ∀ j: Node (j ∈ q ⇒ b ∈ voted[j]))
      eff succeeded := succeeded ∪ {{b}}
    output decide(i, v)
      pre i ∈ initiated ∧ ¬(i ∈ decided) ∧ ¬(i ∈ failed) ∧
          ∃ b: Ballot (b ∈ succeeded ∧ embed(v) = val[b])
      eff decided := decided ∪ {{i}}

invariant Inv1 of G{k}: ∀ n: Node (size(voted[n] ∩ abstained[n]) = 0)
invariant Inv3 of G{k}: size(succeeded ∩ dead) = 0
invariant Inv5 of G{k}: succeeded ⊆ ballots

schedule S{k} for G{k}
  states count: Int := 0
  do
    fire input init([0], [1]);
    while count < 3 do fire internal makeBallot([count]); count := count + 1 od
  od

"#
        ));
    }
    s
}

fn check(text: &str) -> usize {
    let mut fs = MemoryFileSystem::default();
    fs.files.insert(PathBuf::from("big.ioa"), text.to_string());
    let result = ioa_lang::check_files(&[PathBuf::from("big.ioa")], &fs);
    assert!(result.spec.is_some(), "the generated spec must check");
    result.spec.map(|s| s.automata.len()).unwrap_or(0)
}

fn bench(c: &mut Criterion) {
    let text = generated_spec(80);
    let lines = text.lines().count();
    assert!(lines >= 5000, "generated {lines} lines");
    c.bench_function(&format!("check {lines}-line spec"), |b| {
        b.iter(|| check(&text))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
