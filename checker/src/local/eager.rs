//! Eager sends: a reduction of local model checking that fires a node's pending sends as part of
//! the event that queued them, checked on the model's text before it is used.
//!
//! **Why.** In the LMC paper's Mace model a message handler sends its replies as part of the
//! handler. In an I/O automaton a node queues its replies in an *outbox* (a state variable) and
//! a separate output action hands each one to the network, so the local search also explores
//! every local state with replies still queued, and every event taken from there. Those states
//! add transitions but nothing an invariant can see.
//!
//! **The reduction.** Let `E(s)` be the closure of a local state `s` under its enabled *drain
//! sends* (below): fire them until none is enabled. The local search stores `E(s)` in place of
//! `s`: after every other event `e` it explores `E(e(s))`, and every send it fires there is
//! applied to the monotone network as before.
//!
//! **What is checked** ([`check`]), on the IR of every node automaton:
//! 1. A *drain send* is a send action (the node controls it, the network takes it) with one
//!    transition of one of these forms, for a state variable `o` (its *outbox*) and an element
//!    `x` made of the action's parameters only, in tuples, naming every non-`const` parameter
//!    (so that one element is drained by one instance):
//!    - set: `pre x ∈ o`, `eff o := delete(x, o)`;
//!    - sequence: `pre o ≠ {} ∧ m = head(o)`, `eff o := tail(o)` (here `x` is `m`);
//!    - single slot: `pre o = embed(x)`, `eff o := nil`.
//!
//!    Its precondition and effect read and write `o` only, and no other action drains `o`.
//! 2. Every other transition of the node automaton (inputs, local actions, the sends that are not
//!    drain sends) mentions an outbox only in `o := insert(x, o)` (set) or `o := o ⊢ x`
//!    (sequence), with `x` reading no outbox. Nothing may overwrite an outbox: an overwrite
//!    (`o := embed(…)`) racing a pending send could drop the message, and the pending state
//!    would then not be equivalent to its closure. A single-slot outbox therefore only passes
//!    when nothing else writes it.
//! 3. No invariant checked reads an outbox (LMC-OPT's guards are parts of the invariants, so
//!    they read none either).
//!
//! **Why that is sound.** By (1), drain sends of different elements commute and disable nothing
//! but themselves, and one element is drained by one instance, so `E(s)` is one state whatever
//! the order. By (1) and (2), a state and its closure differ only in their outboxes, and every
//! other event's precondition and its effect outside the outboxes do not read them; its effect
//! on an outbox only adds elements. So an event `e` enabled in `s` is enabled in `E(s)`, and
//! `E(e(s)) = E(e(E(s)))`: both drain the same elements, and send the same messages, which the
//! monotone network (a send is never undone) holds either way. By induction along a node's
//! path, every local state `s` the unreduced search reaches has `E(s)` in the reduced store,
//! with a recorded link `E(s) →e E(e(s))` for each of its non-drain events, and every message
//! the unreduced search sends is sent. By (3), `s` and `E(s)` agree on every invariant, in every
//! combination. So no preliminary violation is missed.
//!
//! **Confirmed runs stay real runs.** The soundness check ([`super::soundness`]) searches the
//! real system: a node in local state `s` (sends possibly pending) is at store state `E(s)`; it
//! may take any recorded non-drain event from `E(s)` (enabled on the node's side, by the
//! argument above; the real network decides the rest) or fire any of its enabled drain sends
//! as a step of its own. Every real run is such a sequence of steps, whatever the network (FIFO
//! channels included), so the check is as complete as before; every run it returns was executed
//! by the interpreter step by step, sends included, and replays with `ioa replay`.
//!
//! **Counting.** Every send fired is a transition executed (`LocalStats::eager_sends` counts
//! them apart) and a step of the local state's depth, as in the global explorer; the rounds
//! bound (`--max-local-events`) counts the event alone, as the paper's rounds count handlers.
//!
//! Models that fail a condition are explored as before, send by send, and the reason is
//! reported ([`Eager::reason`]).

use super::events::EventClass;
use super::nodes::Nodes;
use super::shape::conjuncts;
use crate::ir_walk::{walk_expr, walk_stmt};
use interpreter::machine::Machine;
use ioa_lang::ir::{
    AutomatonBody, BinOp, Builtin, Expr, ExprKind, Stmt, StmtKind, Transition, VarRef,
};
use rustc_hash::{FxHashMap, FxHashSet};

/// Whether every outbox of a local state is empty (nothing to send).
pub fn outboxes_empty(slice: &[interpreter::value::Value], slots: &[u32]) -> bool {
    use interpreter::value::Value;
    slots.iter().all(|&o| match &slice[o as usize] {
        Value::Set(s) => s.is_empty(),
        Value::Mset(m) => m.is_empty(),
        Value::Seq(q) => q.is_empty(),
        Value::Nil => true,
        _ => false,
    })
}

/// The outcome of the check: the drain sends per node, or why the reduction does not apply.
#[derive(Debug, Clone)]
pub struct Eager {
    /// Per node, its drain-send instances (positions in the model's instance list), when the
    /// reduction applies.
    pub drains: Option<Vec<Vec<u32>>>,
    /// Per node, the positions of its outboxes in its local state (empty outboxes: nothing to
    /// fire).
    pub outbox_slots: Vec<Vec<u32>>,
    /// The outboxes (`P.outLearns`), when it applies.
    pub outboxes: Vec<String>,
    /// Why it does not apply (or that it was turned off).
    pub reason: Option<String>,
}

impl Eager {
    /// Not applied, for `reason`.
    pub fn off(reason: impl Into<String>) -> Eager {
        Eager {
            drains: None,
            outbox_slots: Vec::new(),
            outboxes: Vec::new(),
            reason: Some(reason.into()),
        }
    }
}

/// How a drain send drains its outbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Set,
    Seq,
    Slot,
}

/// Checks conditions (1)–(3) of the module header for the nodes of `machine`, with `classes` the
/// class of every action instance and `invariants` the invariants checked.
pub fn check(
    machine: &Machine,
    nodes: &Nodes,
    classes: &[EventClass],
    instances: &[crate::model::ActionInstance],
    invariants: &[usize],
) -> Eager {
    // Each node must be one primitive instance.
    let mut node_instance = Vec::with_capacity(nodes.nodes.len());
    for n in 0..nodes.nodes.len() {
        let mine: Vec<usize> = (0..nodes.node_of_instance.len())
            .filter(|&i| nodes.node_of_instance[i] == Some(n))
            .collect();
        let [one] = mine.as_slice() else {
            return Eager::off(format!(
                "node {} is not one primitive automaton",
                nodes.nodes[n].name
            ));
        };
        node_instance.push(*one);
    }
    // The send actions of each node automaton.
    let mut sends: FxHashMap<u32, FxHashSet<u32>> = FxHashMap::default();
    for (k, c) in classes.iter().enumerate() {
        if let EventClass::Send { node, .. } = c {
            let inst = node_instance[*node];
            let a = instances[k].action;
            if let Some((_, aid)) = machine.actions[a].members.iter().find(|(i, _)| *i == inst) {
                sends
                    .entry(machine.instances[inst].automaton.0)
                    .or_default()
                    .insert(aid.0);
            }
        }
    }
    let automata: FxHashSet<u32> = node_instance
        .iter()
        .map(|&i| machine.instances[i].automaton.0)
        .collect();
    let mut automata: Vec<u32> = automata.into_iter().collect();
    automata.sort_unstable();
    // Per node automaton: its drain actions and outbox slots.
    let mut drain_actions: FxHashMap<u32, FxHashSet<u32>> = FxHashMap::default();
    let mut outbox_slots: FxHashMap<u32, FxHashSet<u32>> = FxHashMap::default();
    let mut outboxes = Vec::new();
    for &a in &automata {
        let aut = &machine.spec.automata[a as usize];
        let AutomatonBody::Primitive(p) = &aut.body else {
            return Eager::off(format!("node automaton {} is not primitive", aut.name));
        };
        let var = |slot: u32| format!("{}.{}", aut.name, p.state[slot as usize].name);
        // (1) drain sends.
        let mut drained: FxHashMap<u32, (u32, Form)> = FxHashMap::default();
        let empty = FxHashSet::default();
        let mut send_ids: Vec<u32> = sends.get(&a).unwrap_or(&empty).iter().copied().collect();
        send_ids.sort_unstable();
        for s in send_ids {
            let ts: Vec<&Transition> = p.transitions.iter().filter(|t| t.action.0 == s).collect();
            let [t] = ts.as_slice() else { continue };
            // The parameters an instance of the node fixes (`const i`) need not be named.
            let free: Vec<u32> = (0..aut.actions[s as usize].params.len() as u32)
                .filter(|&p| aut.actions[s as usize].params[p as usize].fixed.is_none())
                .collect();
            let Some((o, form)) = drain_form(t, &free) else {
                continue;
            };
            if let Some((other, _)) = drained.insert(o, (s, form)) {
                return Eager::off(format!(
                    "the outbox {} is drained by two send actions ({} and {})",
                    var(o),
                    aut.actions[other as usize].name,
                    aut.actions[s as usize].name
                ));
            }
        }
        if drained.is_empty() {
            continue;
        }
        // (2) every other transition only adds to an outbox.
        for t in &p.transitions {
            if drained.values().any(|(s, _)| *s == t.action.0) {
                continue;
            }
            let action = &aut.actions[t.action.0 as usize].name;
            if let Some((why, o)) = only_adds(t, &drained) {
                return Eager::off(format!(
                    "{action} {why} the outbox {}: only insertions into an outbox (o := insert(x, o), o := o ⊢ x) commute with its sends",
                    var(o)
                ));
            }
        }
        let mut slots: Vec<u32> = drained.keys().copied().collect();
        slots.sort_unstable();
        outboxes.extend(slots.iter().map(|&o| var(o)));
        drain_actions.insert(a, drained.values().map(|(s, _)| *s).collect());
        outbox_slots.insert(a, slots.into_iter().collect());
    }
    if outboxes.is_empty() {
        return Eager::off("no send action drains an outbox (pre x ∈ o, eff o := delete(x, o))");
    }
    // (3) no invariant reads an outbox.
    let root = &machine.spec.automata[machine.root.0 as usize];
    let AutomatonBody::Composite(comp) = &root.body else {
        return Eager::off("the root is not a composite");
    };
    for &k in invariants {
        let inv = &machine.spec.invariants[k];
        let mut bad = None;
        walk_expr(&inv.body, &mut |e| {
            if let ExprKind::Var(VarRef::Component {
                component, slot, ..
            }) = &e.kind
            {
                let a = comp.components[*component as usize].automaton.0;
                if outbox_slots.get(&a).is_some_and(|s| s.contains(slot)) && bad.is_none() {
                    let aut = &machine.spec.automata[a as usize];
                    if let AutomatonBody::Primitive(p) = &aut.body {
                        bad = Some(format!(
                            "{}.{}",
                            comp.components[*component as usize].name, p.state[*slot as usize].name
                        ));
                    }
                }
            }
        });
        if let Some(b) = bad {
            return Eager::off(format!("invariant `{}` reads the outbox {b}", inv.name));
        }
    }
    let drains = (0..nodes.nodes.len())
        .map(|n| {
            let inst = node_instance[n];
            let a = machine.instances[inst].automaton.0;
            let Some(acts) = drain_actions.get(&a) else {
                return Vec::new();
            };
            (0..classes.len() as u32)
                .filter(|&k| {
                    matches!(classes[k as usize], EventClass::Send { node, .. } if node == n)
                        && machine.actions[instances[k as usize].action]
                            .members
                            .iter()
                            .any(|(i, aid)| *i == inst && acts.contains(&aid.0))
                })
                .collect()
        })
        .collect();
    let outbox_slots = node_instance
        .iter()
        .map(|&inst| {
            let a = machine.instances[inst].automaton.0;
            let mut v: Vec<u32> = outbox_slots
                .get(&a)
                .map(|s| s.iter().copied().collect())
                .unwrap_or_default();
            v.sort_unstable();
            v
        })
        .collect();
    Eager {
        drains: Some(drains),
        outbox_slots,
        outboxes,
        reason: None,
    }
}

/// The outbox slot and form of a drain-send transition, if it is one.
fn drain_form(t: &Transition, free: &[u32]) -> Option<(u32, Form)> {
    if t.where_clause.as_ref().is_some_and(reads_state)
        || t.const_args.iter().any(|(_, e)| reads_state(e))
    {
        return None;
    }
    let pre: Vec<&Expr> = t.pre.iter().flat_map(conjuncts).collect();
    let [Stmt {
        kind: StmtKind::Assign { target, value },
        ..
    }] = t.eff.as_slice()
    else {
        return None;
    };
    let VarRef::State(o) = target.root else {
        return None;
    };
    if !target.path.is_empty() {
        return None;
    }
    let is_o = |e: &Expr| matches!(e.kind, ExprKind::Var(VarRef::State(s)) if s == o);
    let consts: Vec<u32> = t.const_args.iter().map(|(k, _)| *k).collect();
    let names_params = |x: &Expr| {
        let mut seen = FxHashSet::default();
        element(x, &mut seen) && free.iter().all(|p| consts.contains(p) || seen.contains(p))
    };
    match (&value.kind, pre.as_slice()) {
        // set: pre x ∈ o; eff o := delete(x, o)
        (ExprKind::Call(Builtin::Delete, args), [p]) => {
            let ExprKind::Binary(BinOp::In, x, s) = &p.kind else {
                return None;
            };
            let [x2, s2] = args.as_slice() else {
                return None;
            };
            (is_o(s) && is_o(s2) && names_params(x) && same(x, x2)).then_some((o, Form::Set))
        }
        // sequence: pre o ≠ {} ∧ m = head(o); eff o := tail(o)
        (ExprKind::Call(Builtin::Tail, args), [a, b]) => {
            let [s] = args.as_slice() else { return None };
            let nonempty = |e: &Expr| match &e.kind {
                ExprKind::Binary(BinOp::Neq, l, r) => {
                    (is_o(l) && is_empty(r)) || (is_o(r) && is_empty(l))
                }
                _ => false,
            };
            let head = |e: &Expr| match &e.kind {
                ExprKind::Binary(BinOp::Eq, l, r) => {
                    let is_head = |h: &Expr| {
                        matches!(&h.kind, ExprKind::Call(Builtin::Head, hs)
                            if matches!(hs.as_slice(), [x] if is_o(x)))
                    };
                    (is_head(r) && names_params(l)) || (is_head(l) && names_params(r))
                }
                _ => false,
            };
            (is_o(s) && ((nonempty(a) && head(b)) || (nonempty(b) && head(a))))
                .then_some((o, Form::Seq))
        }
        // single slot: pre o = embed(x); eff o := nil
        (ExprKind::Nil, [p]) => {
            let ExprKind::Binary(BinOp::Eq, l, r) = &p.kind else {
                return None;
            };
            let embedded = |e: &Expr| match &e.kind {
                ExprKind::Call(Builtin::Embed, xs) => {
                    matches!(xs.as_slice(), [x] if names_params(x))
                }
                _ => false,
            };
            ((is_o(l) && embedded(r)) || (is_o(r) && embedded(l))).then_some((o, Form::Slot))
        }
        _ => None,
    }
}

/// Whether `x` is built of action parameters (and the automaton's own parameters) in tuples;
/// the parameter locals seen are added to `seen`.
fn element(x: &Expr, seen: &mut FxHashSet<u32>) -> bool {
    match &x.kind {
        ExprKind::Var(VarRef::Local(p)) => {
            seen.insert(*p);
            true
        }
        ExprKind::Var(VarRef::Param(_)) => true,
        ExprKind::Tuple(xs) => xs.iter().all(|e| element(e, seen)),
        _ => false,
    }
}

/// Structural equality of two elements (spans aside).
fn same(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
        (ExprKind::Tuple(xs), ExprKind::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
        }
        _ => false,
    }
}

fn is_empty(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Collection(xs) if xs.is_empty())
}

fn reads_state(e: &Expr) -> bool {
    let mut found = false;
    walk_expr(e, &mut |x| {
        found |= matches!(x.kind, ExprKind::Var(VarRef::State(_)));
    });
    found
}

/// Whether expression `e` mentions an outbox.
fn mentions(e: &Expr, drained: &FxHashMap<u32, (u32, Form)>) -> Option<u32> {
    let mut found = None;
    walk_expr(e, &mut |x| {
        if let ExprKind::Var(VarRef::State(s)) = x.kind {
            if drained.contains_key(&s) && found.is_none() {
                found = Some(s);
            }
        }
    });
    found
}

/// `None` when transition `t` mentions the outboxes only to add to them; else what it does
/// (`reads`, `overwrites`) and to which outbox.
fn only_adds(t: &Transition, drained: &FxHashMap<u32, (u32, Form)>) -> Option<(String, u32)> {
    let mut bad: Option<(String, u32)> = None;
    for e in t
        .pre
        .iter()
        .chain(t.where_clause.iter())
        .chain(t.const_args.iter().map(|(_, e)| e))
    {
        if let Some(s) = mentions(e, drained) {
            bad = Some(("reads (in its precondition)".into(), s));
            break;
        }
    }
    if bad.is_none() {
        for s in &t.eff {
            if let Some(b) = stmt_only_adds(s, drained) {
                bad = Some(b);
                break;
            }
        }
    }
    bad
}

fn stmt_only_adds(s: &Stmt, drained: &FxHashMap<u32, (u32, Form)>) -> Option<(String, u32)> {
    match &s.kind {
        StmtKind::Assign { target, value } => {
            if let VarRef::State(o) = target.root {
                if let Some((_, form)) = drained.get(&o) {
                    let is_o =
                        |e: &Expr| matches!(e.kind, ExprKind::Var(VarRef::State(x)) if x == o);
                    let added = match (&value.kind, form) {
                        (ExprKind::Call(Builtin::Insert, args), Form::Set) => match args.as_slice()
                        {
                            [x, s] if is_o(s) => Some(x),
                            _ => None,
                        },
                        (ExprKind::Binary(BinOp::Append, s, x), Form::Seq) if is_o(s) => Some(&**x),
                        _ => None,
                    };
                    return match added {
                        Some(x) if target.path.is_empty() && mentions(x, drained).is_none() => None,
                        _ => Some(("overwrites".into(), o)),
                    };
                }
            }
            let mut found = None;
            walk_stmt(s, &mut |e| {
                if found.is_none() {
                    found = mentions(e, drained);
                }
            });
            found.map(|o| ("reads".into(), o))
        }
        StmtKind::If {
            branches,
            otherwise,
        } => {
            for (c, body) in branches {
                if let Some(o) = mentions(c, drained) {
                    return Some(("reads".into(), o));
                }
                if let Some(b) = body.iter().find_map(|x| stmt_only_adds(x, drained)) {
                    return Some(b);
                }
            }
            otherwise.iter().find_map(|x| stmt_only_adds(x, drained))
        }
        StmtKind::ForIn {
            collection, body, ..
        } => mentions(collection, drained)
            .map(|o| ("reads".into(), o))
            .or_else(|| body.iter().find_map(|x| stmt_only_adds(x, drained))),
        StmtKind::ForWhere { cond, body, .. } | StmtKind::While { cond, body } => {
            mentions(cond, drained)
                .map(|o| ("reads".into(), o))
                .or_else(|| body.iter().find_map(|x| stmt_only_adds(x, drained)))
        }
        _ => {
            let mut found = None;
            walk_stmt(s, &mut |e| {
                if found.is_none() {
                    found = mentions(e, drained);
                }
            });
            found.map(|o| ("reads".into(), o))
        }
    }
}
