//! Candidates read off the program text of the bundled models, pinned as snapshots: the
//! templates must yield the paper's hand-written Inv4 and Inv6 (and the other invariants the
//! Global1 → Cons proof needs) in some form. A composite's candidates are its components',
//! restated over the composite's state.

use ioa_lang::loader::{load, FileSystem};
use std::path::{Path, PathBuf};
use verify::lift::from_automaton;

struct Disk;

impl FileSystem for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

fn candidates(model: &str, automaton: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(model);
    let loaded = load(&[root], &Disk);
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let files: Vec<_> = loaded.files.into_iter().map(|(_, f)| f).collect();
    from_automaton(&files, automaton)
        .iter()
        .map(|c| format!("{}\n    % {}\n", c.text, c.origin))
        .collect()
}

#[test]
fn global1_templates() {
    let text = candidates("examples/consensus/global1.ioa", "Global1");
    // Inv6: internalDecide's precondition, for every ballot in succeeded.
    assert!(text.contains("∀ b: Ballot (b ∈ succeeded ⇒ ∃ q: Set[Node] (q ∈ quorums ∧ ∀ j: Node (j ∈ q ⇒ b ∈ voted[j])))"), "{text}");
    // Inv4: assignVal's last precondition conjunct, for every ballot with a value.
    assert!(text.contains("∀ b: Ballot (val[b] ≠ nil ⇒ ∀ b': Ballot (b'.ordering < b.ordering ⇒ val[b'] = embed(val[b].val) ∨ b' ∈ dead))"), "{text}");
    // Inv1 (abstain's precondition with B := abstained[i]).
    assert!(
        text.contains("∀ i: Node (voted[i] ∩ abstained[i] = {})"),
        "{text}"
    );
    insta::assert_snapshot!("global1", text);
}

#[test]
fn paxos_templates() {
    insta::assert_snapshot!(
        "paxos",
        candidates("examples/paxos/paxos_primitive.ioa", "Paxos")
    );
}

#[test]
fn composite_paxos_templates_are_lifted_from_its_nodes_and_network() {
    let text = candidates("examples/paxos/paxos.ioa", "Paxos");
    // decide's precondition, for every member: what DecisionLearned says.
    assert!(
        text.contains("∀ i: Node (0 ≤ i.location ∧ i.location < 3 ⇒ N[i].decision ≠ nil ⇒ N[i].learned ≠ nil ∧ N[i].learned.val.value = N[i].decision.val)"),
        "{text}"
    );
    // The network's single component: its variables read as `Net.x`.
    assert!(text.contains("Net."), "{text}");
    insta::assert_snapshot!("composite_paxos", text);
}

#[test]
fn a_composite_components_variables_are_not_lifted_out_of_it() {
    // Site's component Q is itself a composite: an invariant of Site cannot read `Q.D.sent`,
    // so only the monitor's candidates (none: its one write has no guard) are offered.
    let text = candidates("tests/data/compose/nested.ioa", "Site");
    assert_eq!(text, "", "{text}");
}
