//! What each action instance of a machine reads and writes, from the automaton text: the
//! independence relation of partial-order reduction rests on these sets and on nothing else.
//!
//! An action instance's *participants* are the primitive instances whose signature takes part
//! in it ([`Machine::participants`], which reads no state). Every participant's transitions
//! for the action contribute, all cases together (whichever case runs, the instance's
//! footprint covers it):
//! - *guard reads*: the state slots read by `const` arguments, `where` clauses and
//!   preconditions, which decide whether the instance is enabled;
//! - *reads*: the guard reads and every slot read by the effect;
//! - *writes*: every slot that is the root of an assignment's target.
//!
//! Effects of a primitive instance touch only its own variables (the interpreter executes each
//! participant over its own slice of the state), so the slots are the participant's own,
//! shifted by its offset. Anything the walk cannot place (an auxiliary variable, a reference to
//! another automaton) makes the footprint cover every slot: imprecise, never unsound.
//!
//! The checked invariants' reads are computed the same way (a composite's `P[i].x` is slot `x`
//! of every member of component `P`): an instance that writes one of them is *visible*.

use interpreter::eval::{NoChoice, Scope};
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::ir::{AutomatonBody, Expr, ExprKind, Stmt, StmtKind, VarRef};

use crate::ir_walk::{walk_expr, walk_stmt};
use crate::model::ActionInstance;

/// The slots one action instance reads and writes (sorted, without repeats).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Slots whose values decide whether the instance is enabled.
    pub guard: Vec<u32>,
    /// Every slot it reads (the guard's included).
    pub reads: Vec<u32>,
    /// Every slot it may write.
    pub writes: Vec<u32>,
    /// Whether some participant of the instance exists (an instance no signature takes part in
    /// is never enabled).
    pub has_participants: bool,
}

/// Collects slots of one participant, or notes that it may touch anything.
struct Collect<'a> {
    offset: u32,
    out: &'a mut Vec<u32>,
    everything: &'a mut bool,
}

impl Collect<'_> {
    fn expr(&mut self, e: &Expr) {
        walk_expr(e, &mut |x| {
            if let ExprKind::Var(r) = &x.kind {
                match r {
                    VarRef::State(s) => self.out.push(self.offset + s),
                    VarRef::Param(_) | VarRef::Local(_) | VarRef::QualifiedParam { .. } => {}
                    VarRef::Aux(_) | VarRef::Qualified { .. } | VarRef::Component { .. } => {
                        *self.everything = true
                    }
                }
            }
        });
    }

    fn stmt_reads(&mut self, s: &Stmt) {
        walk_stmt(s, &mut |x| {
            if let ExprKind::Var(r) = &x.kind {
                match r {
                    VarRef::State(s) => self.out.push(self.offset + s),
                    VarRef::Param(_) | VarRef::Local(_) | VarRef::QualifiedParam { .. } => {}
                    _ => *self.everything = true,
                }
            }
        });
        // An assignment to a part of a variable (`a[i] := v`, `t.f := v`) keeps the rest of
        // it: the variable is read as well as written.
        self.assigned(s, true);
    }

    fn stmt_writes(&mut self, s: &Stmt) {
        self.assigned(s, false);
    }

    /// Roots of assignment targets in `s` (with `partial_only`, only those assigned in part).
    fn assigned(&mut self, s: &Stmt, partial_only: bool) {
        match &s.kind {
            StmtKind::Assign { target, .. } => {
                if partial_only && target.path.is_empty() {
                    return;
                }
                match target.root {
                    VarRef::State(k) => self.out.push(self.offset + k),
                    VarRef::Local(_) => {}
                    _ => *self.everything = true,
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (_, body) in branches {
                    body.iter().for_each(|x| self.assigned(x, partial_only));
                }
                otherwise
                    .iter()
                    .for_each(|x| self.assigned(x, partial_only));
            }
            StmtKind::ForIn { body, .. }
            | StmtKind::ForWhere { body, .. }
            | StmtKind::While { body, .. } => {
                body.iter().for_each(|x| self.assigned(x, partial_only))
            }
            StmtKind::Fire { .. } => *self.everything = true,
            StmtKind::Ignore | StmtKind::Yield(_) | StmtKind::Ensure(_) => {}
        }
    }
}

fn finish(mut slots: Vec<u32>, everything: bool, n_slots: usize) -> Vec<u32> {
    if everything {
        return (0..n_slots as u32).collect();
    }
    slots.sort_unstable();
    slots.dedup();
    slots
}

/// The footprint of every instance, in the order of `instances`.
pub fn footprints(machine: &Machine, instances: &[ActionInstance]) -> Vec<Footprint> {
    let spec = machine.spec;
    instances
        .iter()
        .map(|instance| {
            let participants = match machine.participants(instance.action, &instance.args) {
                Ok(p) => p,
                // A signature check that fails at run time fails when the instance is tried,
                // too; until then, assume it may touch anything.
                Err(_) => {
                    let all: Vec<u32> = (0..machine.n_slots as u32).collect();
                    return Footprint {
                        guard: all.clone(),
                        reads: all.clone(),
                        writes: all,
                        has_participants: true,
                    };
                }
            };
            let (mut guard, mut reads, mut writes) = (Vec::new(), Vec::new(), Vec::new());
            let (mut guard_all, mut reads_all, mut writes_all) = (false, false, false);
            for (inst, _) in &participants {
                let i = &machine.instances[*inst];
                let AutomatonBody::Primitive(prim) = &spec.automata[i.automaton.0 as usize].body
                else {
                    guard_all = true;
                    reads_all = true;
                    writes_all = true;
                    continue;
                };
                let name = &machine.actions[instance.action].name;
                let offset = i.offset as u32;
                let own = &spec.automata[i.automaton.0 as usize].actions;
                for t in prim
                    .transitions
                    .iter()
                    .filter(|t| own[t.action.0 as usize].name == *name)
                {
                    let mut g = Collect {
                        offset,
                        out: &mut guard,
                        everything: &mut guard_all,
                    };
                    t.const_args.iter().for_each(|(_, e)| g.expr(e));
                    t.where_clause.iter().for_each(|e| g.expr(e));
                    t.pre.iter().for_each(|e| g.expr(e));
                    let mut r = Collect {
                        offset,
                        out: &mut reads,
                        everything: &mut reads_all,
                    };
                    t.eff.iter().for_each(|s| r.stmt_reads(s));
                    let mut w = Collect {
                        offset,
                        out: &mut writes,
                        everything: &mut writes_all,
                    };
                    t.eff.iter().for_each(|s| w.stmt_writes(s));
                }
            }
            reads.extend(&guard);
            let n = machine.n_slots;
            Footprint {
                guard: finish(guard, guard_all, n),
                reads: finish(reads, reads_all || guard_all, n),
                writes: finish(writes, writes_all, n),
                has_participants: !participants.is_empty(),
            }
        })
        .collect()
}

/// The values of family indices that read no bound variable (`W[0]`, `N[[2]]`), if they
/// evaluate over the root's parameters.
fn fixed_indices(machine: &Machine, indices: &[Expr]) -> Option<Vec<Value>> {
    let mut bound = false;
    for e in indices {
        walk_expr(e, &mut |x| {
            if matches!(
                x.kind,
                ExprKind::Var(VarRef::Local(_) | VarRef::Aux(_) | VarRef::Component { .. })
                    | ExprKind::Choose { .. }
            ) {
                bound = true;
            }
        });
    }
    if bound {
        return None;
    }
    let scope = Scope::params_only(machine.spec, machine.universe, &machine.root_params);
    indices
        .iter()
        .map(|e| scope.eval(e, &mut [], &mut NoChoice).ok())
        .collect()
}

/// The slots the root's invariants read (every slot when one of them reads what the walk
/// cannot place).
pub fn invariant_reads(machine: &Machine) -> Vec<u32> {
    let spec = machine.spec;
    let root = &spec.automata[machine.root.0 as usize];
    let primitive_root = matches!(root.body, AutomatonBody::Primitive(_));
    let mut slots = Vec::new();
    let mut everything = false;
    for inv in spec
        .invariants
        .iter()
        .filter(|i| i.automaton == machine.root)
    {
        walk_expr(&inv.body, &mut |x| {
            let ExprKind::Var(r) = &x.kind else { return };
            match r {
                VarRef::State(s) if primitive_root => slots.push(*s),
                VarRef::Param(_) | VarRef::Local(_) | VarRef::QualifiedParam { .. } => {}
                VarRef::Component {
                    automaton,
                    component,
                    indices,
                    slot,
                } if *automaton == machine.root => {
                    // Indices that read no bound variable name one member; others (or indices
                    // that do not evaluate) any member: slot `slot` of each.
                    let fixed = fixed_indices(machine, indices);
                    for m in machine.members.iter().filter(|m| {
                        m.component == *component && fixed.as_ref().is_none_or(|f| *f == m.indices)
                    }) {
                        if m.instances.len() != 1 {
                            everything = true;
                            continue;
                        }
                        let i = &machine.instances[m.instances.start];
                        slots.push(i.offset as u32 + slot);
                    }
                }
                _ => everything = true,
            }
        });
    }
    finish(slots, everything, machine.n_slots)
}
