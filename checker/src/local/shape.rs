//! Which invariants local model checking can check, and the LMC-OPT filter read off their
//! shape.
//!
//! **Which invariants qualify.** LMC builds system states from node-local states only; the
//! network is not part of them. So an invariant qualifies when it reads no network component's
//! state (it may read any node component: several families and single components alike).
//! Others are rejected with the name of the component they read.
//!
//! **LMC-OPT.** An invariant of the form `∀ b1, …, bk: I (G ⇒ R)` (binders over a node
//! family's index type), in which every component read is `P[bj].x` for one node family `P` and
//! a binder `bj`, depends only on the states of the nodes the binders name; binders range over
//! `P`'s members only. Split `G` into the
//! conjuncts that mention exactly one binder `bj` (its *guard* `Aj`, e.g.
//! `P[i].status ≠ unknown`, `0 ≤ i ∧ i < n`) and the rest. A violation needs an assignment of
//! nodes to binders under which every `Aj` holds of its node's state. So when node `v` reaches a
//! new local state `s`, only assignments where some binder names `v` (with `s`) and every binder
//! names a node state satisfying its guard are built; any other combination was either checked
//! before (it does not involve `s`) or cannot violate the invariant. Invariants of other shapes
//! are checked on every combination (LMC-GEN).

use super::nodes::Nodes;
use crate::ir_walk::walk_expr as walk;
use interpreter::machine::Machine;
use ioa_lang::ast::Quantifier;
use ioa_lang::ir::{BinOp, Expr, ExprKind, Invariant, VarRef};

/// An invariant read for LMC-OPT.
#[derive(Debug, Clone)]
pub struct Shape<'s> {
    /// The binders' local slots.
    pub binders: Vec<u32>,
    /// For each binder, the conjuncts of `G` that mention it alone.
    pub guards: Vec<Vec<&'s Expr>>,
    /// `G ⇒ R`, to evaluate with every binder bound.
    pub body: &'s Expr,
    /// The node slots `G ⇒ R` reads (positions in a node's slice), when every node is one
    /// primitive automaton: two local states that agree on them give the same verdict in every
    /// combination, so combinations are checked per group of states.
    pub reads: Option<Vec<u32>>,
    /// The nodes a binder may name: the members of the family `P` the invariant reads.
    pub candidates: Vec<usize>,
}

/// Why an invariant cannot be checked locally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotLocal {
    /// The network component it reads.
    pub component: String,
}

/// Whether `inv` reads only node state; `Err` names a network component it reads.
pub fn qualifies(machine: &Machine, nodes: &Nodes, inv: &Invariant) -> Result<(), NotLocal> {
    let node_components = nodes.node_components();
    let mut bad = None;
    walk(&inv.body, &mut |e| {
        if let ExprKind::Var(VarRef::Component { component, .. }) = &e.kind {
            if !node_components.contains(component) && bad.is_none() {
                bad = Some(*component);
            }
        }
    });
    match bad {
        None => Ok(()),
        Some(c) => Err(NotLocal {
            component: component_name(machine, c),
        }),
    }
}

/// The LMC-OPT shape of `inv`, if it has one.
pub fn shape<'s>(machine: &Machine, nodes: &Nodes, inv: &'s Invariant) -> Option<Shape<'s>> {
    let _ = machine;
    let mut binders = Vec::new();
    let mut e = &inv.body;
    while let ExprKind::Quant(Quantifier::ForAll, bs, inner) = &e.kind {
        binders.extend(bs.iter().map(|(slot, _)| *slot));
        e = inner;
    }
    let ExprKind::Binary(BinOp::Implies, g, _) = &e.kind else {
        return None;
    };
    if binders.is_empty() {
        return None;
    }
    // Every component read must be `P[b]` for one node family `P` and a binder `b`.
    let mut ok = true;
    let mut family: Option<u32> = None;
    let mut reads = Vec::new();
    walk(e, &mut |x| {
        if let ExprKind::Var(VarRef::Component {
            component,
            indices,
            slot,
            ..
        }) = &x.kind
        {
            reads.push(*slot);
            let by_binder = matches!(indices.as_slice(),
                [i] if matches!(i.kind, ExprKind::Var(VarRef::Local(s)) if binders.contains(&s)));
            ok &= by_binder && family.is_none_or(|f| f == *component);
            family = Some(*component);
        }
    });
    let family = family?;
    let candidates = nodes.members_of(family);
    // A family of nodes: every member has one index, the binder's value.
    if !ok
        || candidates.is_empty()
        || candidates
            .iter()
            .any(|&k| nodes.nodes[k].indices.len() != 1)
    {
        return None;
    }
    let mut guards = vec![Vec::new(); binders.len()];
    for c in conjuncts(g) {
        let mentioned: Vec<usize> = binders
            .iter()
            .enumerate()
            .filter(|(_, b)| interpreter::eval::may_read_local(c, |s| s == **b))
            .map(|(k, _)| k)
            .collect();
        if let [j] = mentioned.as_slice() {
            guards[*j].push(c);
        }
    }
    reads.sort_unstable();
    reads.dedup();
    // A node's slice is its automaton's state when each node is one primitive instance.
    let one_primitive = (0..nodes.nodes.len()).all(|k| {
        nodes
            .node_of_instance
            .iter()
            .filter(|x| **x == Some(k))
            .count()
            == 1
    });
    let width = nodes.nodes[candidates[0]].slots.len() as u32;
    let reads = (one_primitive && reads.iter().all(|r| *r < width)).then_some(reads);
    Some(Shape {
        binders,
        guards,
        body: e,
        reads,
        candidates,
    })
}

fn component_name(machine: &Machine, c: u32) -> String {
    machine
        .members
        .iter()
        .find(|m| m.component == c)
        .map(|m| m.name.split('[').next().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// The conjuncts of `e` (`a ∧ b ∧ …`), flattened.
pub(super) fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Binary(BinOp::And, a, b) => {
            let mut out = conjuncts(a);
            out.extend(conjuncts(b));
            out
        }
        _ => vec![e],
    }
}
