//! A generator of well-typed IOA models for differential tests. Two kinds:
//! - a primitive automaton over bounded integers, Booleans, sets of a small enumeration, a
//!   bounded sequence and a map, with guarded actions (some with a parameter), effects that keep
//!   every value in range (some through `choose`), and an invariant that sometimes fails;
//! - a composite ([`Model::composite`]): a family of `n` nodes of that kind that also send and
//!   receive messages, over a network family of channels (each a set of messages; some
//!   duplicate, some lose), with an invariant over every node or every pair of nodes.
//!
//! Every choice comes from a seeded ChaCha generator, so a seed names a model. A model is data
//! ([`Model`]: variables, actions, invariant) rendered to IOA source by [`Model::text`];
//! [`Model::shrink`] gives the smaller models one edit away (an action, an effect or a
//! variable left out, a precondition made `true`), so a disagreement is reported on a small
//! model.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Integers stay in `0..INT_BOUND` (effects reduce with `mod`).
const INT_BOUND: i64 = 4;
/// Sequences stay shorter than this (appends are guarded).
const SEQ_BOUND: i64 = 3;

/// One generated model.
#[derive(Clone)]
pub struct Model {
    /// Its seed.
    pub seed: u64,
    /// State variables: name and declaration (`v0: Int := 2`).
    vars: Vec<(String, String)>,
    /// Actions of the automaton (the node, for a composite).
    actions: Vec<Action>,
    /// The invariant's predicate.
    inv: String,
    /// For a composite: how many nodes, and whether channels duplicate and lose messages.
    network: Option<Network>,
}

#[derive(Clone)]
struct Action {
    /// `internal`, `output` or `input`.
    kind: &'static str,
    /// The signature entry (`act0(p: E)`).
    sig: String,
    /// The transition head (`act0(p)`).
    head: String,
    /// The precondition (`None`: an input, which has none).
    pre: Option<String>,
    effs: Vec<String>,
}

#[derive(Clone, Copy)]
struct Network {
    nodes: u32,
    duplicate: bool,
    lossy: bool,
    /// One inbox per receiver (`C[j]`, which forgets the sender: any sender may be named on
    /// receipt) instead of a channel per ordered pair (`C[i, j]`).
    inbox: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Int,
    Bool,
    Set,
    Seq,
    Map,
}

struct Gen {
    rng: ChaCha8Rng,
    vars: Vec<(String, Ty)>,
    /// Inside a node: `i = 0` may appear in conditions.
    node: bool,
}

impl Gen {
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.rng.random_range(0..xs.len())]
    }

    fn vars_of(&self, ty: Ty) -> Vec<String> {
        self.vars
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// An integer expression (non-negative) over the state and, if any, the parameter `p`'s
    /// enumeration index is not used: parameters are elements.
    fn int(&mut self, depth: u32) -> String {
        let ints = self.vars_of(Ty::Int);
        let choice = if depth == 0 {
            self.rng.random_range(0..3)
        } else {
            self.rng.random_range(0..6)
        };
        match choice {
            0 if !ints.is_empty() => self.pick(&ints).clone(),
            0 | 1 => self.rng.random_range(0..INT_BOUND).to_string(),
            2 => {
                let sets = self.vars_of(Ty::Set);
                let seqs = self.vars_of(Ty::Seq);
                let maps = self.vars_of(Ty::Map);
                if !maps.is_empty() && self.rng.random_bool(0.3) {
                    let m = self.pick(&maps).clone();
                    let e = self.elem(false);
                    format!("(if defined({m}, {e}) then {m}[{e}] else 0)")
                } else if !sets.is_empty() && self.rng.random_bool(0.5) {
                    format!("size({})", self.pick(&sets).clone())
                } else if !seqs.is_empty() {
                    format!("len({})", self.pick(&seqs).clone())
                } else {
                    "1".to_string()
                }
            }
            3 => format!("{} + {}", self.int(depth - 1), self.int(depth - 1)),
            4 => format!(
                "mod({} * {}, {INT_BOUND})",
                self.int(depth - 1),
                self.int(depth - 1)
            ),
            _ => format!(
                "(if {} then {} else {})",
                self.boolean(depth - 1),
                self.int(depth - 1),
                self.int(depth - 1)
            ),
        }
    }

    fn elem(&mut self, param: bool) -> String {
        if param && self.rng.random_bool(0.5) {
            "p".to_string()
        } else {
            self.pick(&["a", "b", "c"]).to_string()
        }
    }

    fn boolean(&mut self, depth: u32) -> String {
        let bools = self.vars_of(Ty::Bool);
        let choice = if depth == 0 {
            self.rng.random_range(0..3)
        } else {
            self.rng.random_range(0..8)
        };
        match choice {
            0 if !bools.is_empty() => self.pick(&bools).clone(),
            1 if self.node && self.rng.random_bool(0.3) => {
                self.pick(&["i = 0", "i ≠ 0"]).to_string()
            }
            0 | 1 => {
                let op = self.pick(&["<", "≤", "=", "≠"]).to_string();
                format!("{} {op} {}", self.int(0), self.int(0))
            }
            2 => {
                let sets = self.vars_of(Ty::Set);
                if sets.is_empty() {
                    "true".to_string()
                } else {
                    let e = self.elem(false);
                    format!("{e} ∈ {}", self.pick(&sets).clone())
                }
            }
            3 => format!(
                "({} ∧ {})",
                self.boolean(depth - 1),
                self.boolean(depth - 1)
            ),
            4 => format!(
                "({} ∨ {})",
                self.boolean(depth - 1),
                self.boolean(depth - 1)
            ),
            5 => format!("¬({})", self.boolean(depth - 1)),
            6 => format!(
                "({} ⇒ {})",
                self.boolean(depth - 1),
                self.boolean(depth - 1)
            ),
            _ => {
                let sets = self.vars_of(Ty::Set);
                if sets.len() >= 2 {
                    format!("{} ⊆ {}", sets[0], sets[1])
                } else {
                    "false".to_string()
                }
            }
        }
    }

    /// One assignment that keeps its variable in range.
    fn assign(&mut self, param: bool) -> String {
        let (name, ty) = self.pick(&self.vars.clone()).clone();
        match ty {
            Ty::Int => format!("{name} := mod({}, {INT_BOUND})", self.int(2)),
            Ty::Bool => format!("{name} := {}", self.boolean(2)),
            Ty::Set => {
                let e = self.elem(param);
                match self.rng.random_range(0..4) {
                    0 => format!("{name} := insert({e}, {name})"),
                    3 => format!("{name} := insert(choose x: E where x ∉ {name} ∨ x = c, {name})"),
                    1 => format!("{name} := delete({e}, {name})"),
                    _ => {
                        let others = self.vars_of(Ty::Set);
                        format!("{name} := {name} ∪ {}", self.pick(&others).clone())
                    }
                }
            }
            Ty::Seq => {
                if self.rng.random_bool(0.5) {
                    let e = self.elem(param);
                    format!(
                        "if len({name}) < {} then {name} := {name} ⊢ {e} fi",
                        SEQ_BOUND - 1
                    )
                } else {
                    format!("if {name} ≠ {{}} then {name} := tail({name}) fi")
                }
            }
            Ty::Map => {
                let e = self.elem(param);
                format!("{name}[{e}] := mod({}, {INT_BOUND})", self.int(1))
            }
        }
    }

    /// A condition false in the start state that steps may make true (an element in a set
    /// that starts empty, an integer away from its initial value…), over the variables as
    /// `decls` declare them: so an invariant `¬(…)` of it holds at first and a violation, if
    /// any, is some steps deep.
    fn reach(&mut self, decls: &[(String, String)]) -> String {
        let atoms: Vec<String> = (0..self.rng.random_range(1..3))
            .map(|_| {
                let k = self.rng.random_range(0..decls.len());
                let (name, decl) = &decls[k];
                let init = decl.rsplit(":= ").next().unwrap_or("").to_string();
                match self.vars[k].1 {
                    Ty::Int => {
                        let v: i64 = init.parse().unwrap_or(0);
                        format!(
                            "{name} = {}",
                            (v + self.rng.random_range(1..INT_BOUND)) % INT_BOUND
                        )
                    }
                    Ty::Bool => format!("{name} ≠ {init}"),
                    Ty::Set => format!("{} ∈ {name}", self.elem(false)),
                    Ty::Seq => format!("len({name}) ≥ {}", self.rng.random_range(1..SEQ_BOUND)),
                    Ty::Map => format!("defined({name}, {})", self.elem(false)),
                }
            })
            .collect();
        format!("({})", atoms.join(" ∧ "))
    }

    /// 2–4 state variables of random types.
    fn variables(&mut self) -> Vec<(String, String)> {
        let n_vars = self.rng.random_range(2..5);
        let mut decls = Vec::new();
        for k in 0..n_vars {
            let ty = *self.pick(&[Ty::Int, Ty::Bool, Ty::Set, Ty::Seq, Ty::Map]);
            let name = format!("v{k}");
            let decl = match ty {
                Ty::Int => format!("{name}: Int := {}", self.rng.random_range(0..INT_BOUND)),
                Ty::Bool => format!("{name}: Bool := {}", self.rng.random_bool(0.5)),
                Ty::Set => format!("{name}: Set[E] := {{}}"),
                Ty::Seq => format!("{name}: Seq[E] := {{}}"),
                Ty::Map => format!("{name}: Map[E, Int] := empty"),
            };
            decls.push((name.clone(), decl));
            self.vars.push((name, ty));
        }
        decls
    }

    /// A guarded action (an input when `pre` is false).
    fn action(&mut self, kind: &'static str, sig: String, head: String, param: bool) -> Action {
        let pre = (kind != "input").then(|| self.boolean(2));
        let n_eff = self.rng.random_range(1..3);
        let effs = (0..n_eff).map(|_| self.assign(param)).collect();
        Action {
            kind,
            sig,
            head,
            pre,
            effs,
        }
    }
}

impl Model {
    /// The primitive model of `seed`.
    pub fn generate(seed: u64) -> Model {
        let mut g = Gen {
            rng: ChaCha8Rng::seed_from_u64(seed),
            vars: Vec::new(),
            node: false,
        };
        let vars = g.variables();
        let n_actions = g.rng.random_range(1..4);
        let mut actions = Vec::new();
        for k in 0..n_actions {
            let param = g.rng.random_bool(0.5);
            let (sig, head) = if param {
                (format!("act{k}(p: E)"), format!("act{k}(p)"))
            } else {
                (format!("act{k}"), format!("act{k}"))
            };
            actions.push(g.action("internal", sig, head, param));
        }
        let inv = if g.rng.random_bool(0.5) {
            format!("¬{}", g.reach(&vars))
        } else {
            g.boolean(2)
        };
        Model {
            seed,
            vars,
            actions,
            inv,
            network: None,
        }
    }

    /// The composite model of `seed`: nodes `P[i]` of 2 or 3, sending messages of `E` to each
    /// other over channels `C[i, j]`.
    pub fn composite(seed: u64) -> Model {
        let mut g = Gen {
            rng: ChaCha8Rng::seed_from_u64(seed),
            vars: Vec::new(),
            node: true,
        };
        let network = Network {
            nodes: if g.rng.random_bool(0.7) { 2 } else { 3 },
            duplicate: g.rng.random_bool(0.3),
            lossy: g.rng.random_bool(0.3),
            inbox: g.rng.random_bool(0.5),
        };
        let vars = g.variables();
        let mut actions = vec![
            g.action(
                "output",
                "send(const i, j: Int, p: E) where 0 ≤ j ∧ j < n ∧ j ≠ i".into(),
                "send(i, j, p)".into(),
                true,
            ),
            g.action(
                "input",
                "recv(j: Int, const i, p: E) where 0 ≤ j ∧ j < n ∧ j ≠ i".into(),
                "recv(j, i, p)".into(),
                true,
            ),
        ];
        for k in 0..g.rng.random_range(0..3) {
            let param = g.rng.random_bool(0.5);
            let (sig, head) = if param {
                (format!("act{k}(const i, p: E)"), format!("act{k}(i, p)"))
            } else {
                (format!("act{k}(const i)"), format!("act{k}(i)"))
            };
            actions.push(g.action("internal", sig, head, param));
        }
        g.node = false;
        let reach = g.rng.random_bool(0.6);
        let phi = |g: &mut Gen, at: &str| {
            let mut b = if reach { g.reach(&vars) } else { g.boolean(1) };
            for (name, _) in g.vars.iter().rev() {
                b = b.replace(name.as_str(), &format!("P[{at}].{name}"));
            }
            b
        };
        let inv = if g.rng.random_bool(0.5) {
            let one = phi(&mut g, "i");
            let one = if reach { format!("¬{one}") } else { one };
            format!("∀ i: Int (0 ≤ i ∧ i < n ⇒ {one})")
        } else {
            let one = phi(&mut g, "i");
            let other = one.replace("P[i]", "P[j]");
            format!("∀ i: Int, j: Int (0 ≤ i ∧ i < n ∧ 0 ≤ j ∧ j < n ∧ i ≠ j ⇒ ¬({one} ∧ {other}))")
        };
        Model {
            seed,
            vars,
            actions,
            inv,
            network: Some(network),
        }
    }

    /// The arguments that select the model's automaton (and its parameter).
    pub fn args(&self) -> Vec<String> {
        match self.network {
            None => Vec::new(),
            Some(n) => ["--automaton", "Sys", "--param", &format!("n={}", n.nodes)]
                .map(String::from)
                .to_vec(),
        }
    }

    /// The universe file to put beside the model (`None`: it needs none).
    pub fn universe(&self) -> Option<&'static str> {
        self.network.map(|_| "Int = 0..3\n")
    }

    /// Whether this is a composite with a network (so local model checking applies).
    pub fn is_composite(&self) -> bool {
        self.network.is_some()
    }

    /// IOA source: `Gen` and its invariant `Inv`, or the nodes `Node`, channels `Chan`, the
    /// composite `Sys` and its invariant `Inv`.
    pub fn text(&self) -> String {
        let sig = |kind: &str| -> Vec<String> {
            self.actions
                .iter()
                .filter(|a| a.kind == kind)
                .map(|a| a.sig.clone())
                .collect()
        };
        let mut signature = String::new();
        for kind in ["input", "output", "internal"] {
            let entries = sig(kind);
            if !entries.is_empty() {
                signature += &format!("    {kind} {}\n", entries.join(",\n      "));
            }
        }
        let transitions: Vec<String> = self
            .actions
            .iter()
            .map(|a| {
                let pre = a
                    .pre
                    .as_ref()
                    .map_or(String::new(), |p| format!("\n      pre {p}"));
                format!(
                    "    {} {}{pre}\n      eff {}",
                    a.kind,
                    a.head,
                    a.effs.join(";\n          ")
                )
            })
            .collect();
        let decls: Vec<&str> = self.vars.iter().map(|(_, d)| d.as_str()).collect();
        let name = if self.network.is_some() {
            "Node(i: Int, n: Int)"
        } else {
            "Gen"
        };
        let mut text = format!(
            "% generated model, seed {}\ntype E = enumeration of a, b, c\n\nautomaton {name}\n  signature\n{signature}  states\n    {}\n  transitions\n{}\n",
            self.seed,
            decls.join(",\n    "),
            transitions.join("\n")
        );
        match self.network {
            None => text += &format!("\ninvariant Inv of Gen: {}\n", self.inv),
            Some(net) => {
                let recv_eff = if net.duplicate {
                    "q := q"
                } else {
                    "q := delete(m, q)"
                };
                let (params, index, heads, family) = if net.inbox {
                    (
                        "j: Int, n: Int",
                        "i: Int, const j, m: E) where 0 ≤ i ∧ i < n ∧ i ≠ j",
                        "(i, j, m)",
                        "C[j: Int]: Chan(j, n) where 0 ≤ j ∧ j < n",
                    )
                } else {
                    (
                        "i: Int, j: Int",
                        "const i, const j, m: E)",
                        "(i, j, m)",
                        "C[i: Int, j: Int]: Chan(i, j) where 0 ≤ i ∧ i < n ∧ 0 ≤ j ∧ j < n ∧ i ≠ j",
                    )
                };
                let (lose_sig, lose_head) = if net.inbox {
                    ("const j, m: E", "j, m")
                } else {
                    ("const i, const j, m: E", "i, j, m")
                };
                let lose = if net.lossy {
                    (
                        format!("    internal lose({lose_sig})\n"),
                        format!("\n    internal lose({lose_head})\n      pre m ∈ q\n      eff q := delete(m, q)"),
                    )
                } else {
                    (String::new(), String::new())
                };
                text += &format!(
                    "\nautomaton Chan({params})\n  signature\n    input send({index}\n    output recv({index}\n{}  states\n    q: Set[E] := {{}}\n  transitions\n    input send{heads}\n      eff q := insert(m, q)\n    output recv{heads}\n      pre m ∈ q\n      eff {recv_eff}{}\n\nautomaton Sys(n: Int)\n  components\n    P[i: Int]: Node(i, n) where 0 ≤ i ∧ i < n;\n    {family}\n  network C\n  hidden send, recv\n\ninvariant Inv of Sys: {}\n",
                    lose.0, lose.1, self.inv
                );
            }
        }
        text
    }

    /// The models one edit smaller: an action, an effect or an unused variable left out, or a
    /// precondition replaced by `true` (a composite keeps its `send` and `recv`).
    pub fn shrink(&self) -> Vec<Model> {
        let mut out = Vec::new();
        let keep = if self.network.is_some() { 2 } else { 1 };
        for k in keep..self.actions.len() {
            let mut m = self.clone();
            m.actions.remove(k);
            out.push(m);
        }
        if self.network.is_none() && self.actions.len() > 1 {
            let mut m = self.clone();
            m.actions.remove(0);
            out.push(m);
        }
        for (k, a) in self.actions.iter().enumerate() {
            if a.effs.len() > 1 {
                for e in 0..a.effs.len() {
                    let mut m = self.clone();
                    m.actions[k].effs.remove(e);
                    out.push(m);
                }
            }
            if a.pre.as_deref().is_some_and(|p| p != "true") {
                let mut m = self.clone();
                m.actions[k].pre = Some("true".into());
                out.push(m);
            }
        }
        let text = self.text();
        for (k, (name, _)) in self.vars.iter().enumerate() {
            let uses = text.matches(name.as_str()).count();
            if uses == 1 && self.vars.len() > 1 {
                let mut m = self.clone();
                m.vars.remove(k);
                out.push(m);
            }
        }
        out
    }
}
