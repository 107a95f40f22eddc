//! What Z3 needed for each invariant step, so that the Isabelle leaves can be given the same.
//!
//! `ioa prove` names, per obligation, the assumed invariants in Z3's unsat core. The Isabelle
//! step lemma of invariant `I` at action `a` then unfolds exactly those invariants of the
//! pre-state (and `I` in the post-state) instead of every invariant of the automaton: a smaller
//! search for Isabelle's `auto` and `metis`, and a record in the theory of why the step holds.
//! When Z3 proved an obligation but could not name its core within the budget of that second
//! check, the hypotheses the obligation assumed are used (the invariant's `using` list).
//!
//! A simulation case Z3 proves only with a large budget gets no core; when its path assumes
//! `∃ x: T` with `T` compared by a field (ballots by `ordering`), Z3 is asked the case once per
//! order of the witness and the action's parameter, and whether the older one's escape atom
//! (`older ∉ X`) follows, naming each core (the leaf then proves the atom by metis with it).
//!
//! It also records which start and step obligations Z3 does not prove (a counterexample, or
//! no proof within the export's budget): the export does not state those as
//! lemmas (see `invariants`), so that every lemma of a theory is one that holds.

use super::expr::walk;
use crate::obligations::{invariant, simulation, Assumptions, Obligation};
use crate::solve::{self, budget, budget::Budget, Verdict};
use ioa_lang::ir::{
    AutomatonBody, AutomatonId, BinOp, Builtin, Expr, ExprKind, Spec, Type, VarRef,
};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// The invariants each invariant step needs, by (index of the invariant in `spec.invariants`,
/// action name).
#[derive(Debug, Clone, Default)]
pub struct Hints {
    cores: BTreeMap<(usize, String), Core>,
    /// Per (invariant, action): the unsat core of each transition case of the step, in the order
    /// of the action's transitions (`None`: Z3 named none for that case). The leaf of a case of a
    /// multi-case action unfolds only its own case's core.
    case_cores: BTreeMap<(usize, String), Vec<Option<Vec<String>>>>,
    /// Per (index of the simulation in `spec.simulations`, action name): the used hypotheses
    /// of each case of the proof block's entry, in the order of its branches (`None`: Z3 did not
    /// name the core of that case).
    sim_cores: BTreeMap<(usize, String), Vec<Option<Vec<String>>>>,
    /// Per (simulation, action, case) whose whole core Z3 did not name and whose path assumes
    /// `∃ x: T` with T compared by a field: the unsat core of each order sub-obligation
    /// (`None`: not proved, or no core named), see [`simulation::OrderSplit`].
    sim_order_cores: BTreeMap<(usize, String, usize), Vec<OrderAnswer>>,
    /// Per (invariant, action): whether Z3 proved each transition case of the step, in the order
    /// of the action's transitions.
    case_proved: BTreeMap<(usize, String), Vec<bool>>,
    /// The invariant steps (invariant, action) Z3 did not prove that `--state-unproved` states.
    stated_unproved: BTreeSet<(usize, String)>,
    /// The invariants (by index in `spec.invariants`) whose start obligation Z3 did not prove.
    start_unproved: BTreeSet<usize>,
    /// The simulations (by index in `spec.simulations`) whose start obligation Z3 did not prove.
    sim_start_unproved: BTreeSet<usize>,
    /// The steps (simulation index, action) of which Z3 did not prove every case.
    sim_step_unproved: BTreeSet<(usize, String)>,
}

/// What Z3 answered for one order sub-obligation of a simulation case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderAnswer {
    /// How the witness's field compares with the parameter's.
    pub order: Ordering,
    /// `None`: the case's goal; `Some(slot)`: "the older is not in state variable `slot`".
    pub settled: Option<u32>,
    /// The unsat core when Z3 proved it and named one.
    pub core: Option<Vec<String>>,
    /// Whether the core names an invariant that takes a `size` (metis, which proves a settled
    /// atom in the leaf, knows nothing of cardinalities: such an atom is not stated).
    pub counting: bool,
}

/// What Z3 answered for the step of one invariant at one action (all of its cases together).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Core {
    /// The assumed invariants the proof used, the invariant itself first when used.
    pub used: Vec<String>,
    /// Whether Z3 named its unsat core for every case (false: `used` is the assumed list of a
    /// case whose core was not named).
    pub from_core: bool,
    /// Whether Z3 proved every case.
    pub proved: bool,
}

impl Hints {
    /// The core of the step of invariant number `invariant` at `action`, when Z3 was asked.
    pub fn core(&self, invariant: usize, action: &str) -> Option<&Core> {
        self.cores.get(&(invariant, action.to_string()))
    }

    /// The cores of the transition cases of invariant number `invariant`'s step at `action`, in
    /// the order of the action's transitions.
    pub fn case_cores(&self, invariant: usize, action: &str) -> Option<&[Option<Vec<String>>]> {
        self.case_cores
            .get(&(invariant, action.to_string()))
            .map(|v| v.as_slice())
    }

    /// The cores of the cases of simulation number `sim`'s step at `action`, branch by branch.
    pub fn sim_cores(&self, sim: usize, action: &str) -> Option<&[Option<Vec<String>>]> {
        self.sim_cores
            .get(&(sim, action.to_string()))
            .map(|v| v.as_slice())
    }

    /// The cores of the order sub-obligations of case `case` (counted from 0) of simulation
    /// number `sim`'s step at `action`, when they were asked.
    pub fn sim_order_cores(&self, sim: usize, action: &str, case: usize) -> Option<&[OrderAnswer]> {
        self.sim_order_cores
            .get(&(sim, action.to_string(), case))
            .map(|v| v.as_slice())
    }

    /// Whether Z3 was asked and did not prove the start obligation of invariant number
    /// `invariant` (a counterexample, or no answer within the budget).
    pub fn start_unproved(&self, invariant: usize) -> bool {
        self.start_unproved.contains(&invariant)
    }

    /// Whether Z3 was asked and did not prove the start obligation of simulation number `sim`.
    pub fn sim_start_unproved(&self, sim: usize) -> bool {
        self.sim_start_unproved.contains(&sim)
    }

    /// Whether Z3 proved each transition case of invariant number `invariant`'s step at `action`
    /// (`None`: not asked).
    pub fn case_proved(&self, invariant: usize, action: &str) -> Option<&[bool]> {
        self.case_proved
            .get(&(invariant, action.to_string()))
            .map(|v| v.as_slice())
    }

    /// Whether Z3 was asked and did not prove every case of the step of invariant number
    /// `invariant` at `action`.
    pub fn step_unproved(&self, invariant: usize, action: &str) -> bool {
        self.core(invariant, action).is_some_and(|c| !c.proved)
    }

    /// Whether Z3 was asked and did not prove every case of simulation number `sim`'s step at
    /// `action`.
    pub fn sim_step_unproved(&self, sim: usize, action: &str) -> bool {
        self.sim_step_unproved.contains(&(sim, action.to_string()))
    }

    /// Whether `ioa prove` proves every start and step obligation of the invariants of
    /// automaton `a` (true when Z3 was not asked): their joint induction closes.
    pub fn invariants_closed(&self, spec: &Spec, a: AutomatonId) -> bool {
        spec.invariants
            .iter()
            .enumerate()
            .filter(|(_, i)| i.automaton == a)
            .all(|(k, _)| {
                !self.start_unproved(k)
                    && !self.cores.iter().any(|((i, _), c)| *i == k && !c.proved)
            })
    }

    /// Whether `ioa prove` proves every start and step obligation of simulation number `sim`
    /// (true when Z3 was not asked).
    pub fn simulation_closed(&self, sim: usize) -> bool {
        !self.sim_start_unproved(sim) && !self.sim_step_unproved.iter().any(|(k, _)| *k == sim)
    }

    /// Records that Z3 did not prove the start obligation of invariant number `invariant`.
    pub fn record_start_unproved(&mut self, invariant: usize) {
        self.start_unproved.insert(invariant);
    }

    /// Forgets which claims Z3 did not prove (keeping the cores), so that the export states
    /// every claim: `ioa export isabelle --state-unproved`.
    pub fn state_every_claim(&mut self) {
        self.start_unproved.clear();
        self.sim_start_unproved.clear();
        self.sim_step_unproved.clear();
        for (key, core) in self.cores.iter_mut() {
            if !core.proved {
                self.stated_unproved.insert(key.clone());
            }
            core.proved = true;
        }
    }

    /// Whether the step of invariant number `invariant` at `action` is stated although Z3 did
    /// not prove it (`--state-unproved`).
    pub fn stated_unproved(&self, invariant: usize, action: &str) -> bool {
        self.stated_unproved
            .contains(&(invariant, action.to_string()))
    }

    /// Whether Z3 was asked at all.
    pub fn is_empty(&self) -> bool {
        self.cores.is_empty() && self.sim_cores.is_empty()
    }

    /// Records what Z3 answered for one obligation (cases of one action are merged).
    pub fn record(
        &mut self,
        invariant: usize,
        action: &str,
        used: &[String],
        from_core: bool,
        proved: bool,
    ) {
        let entry = self
            .cores
            .entry((invariant, action.to_string()))
            .or_insert(Core {
                used: Vec::new(),
                from_core: true,
                proved: true,
            });
        for u in used {
            if !entry.used.contains(u) {
                entry.used.push(u.clone());
            }
        }
        entry.from_core &= from_core;
        entry.proved &= proved;
    }

    /// Asks Z3 for every step obligation of every invariant of `spec` (as `ioa prove` would,
    /// with the invariants' own `using` lists) within `budget` each; an obligation that budget
    /// does not settle is asked again with `recheck_rlimit` units (see [`RECHECK_RLIMIT`]).
    /// The obligations are checked on every core at once, as `ioa prove` does: each verdict
    /// depends only on its own text and resource budget, and the answers are recorded in the
    /// obligations' order, so the hints do not depend on the number of threads.
    pub fn from_z3(spec: &Spec, budget: &Budget, recheck_rlimit: u64) -> Hints {
        let mut hints = Hints::default();
        let invariant_obs: Vec<(usize, Obligation)> = (0..spec.invariants.len())
            .filter_map(|k| {
                invariant::obligations(spec, k, &Assumptions::AsDeclared)
                    .ok()
                    .map(|obs| obs.into_iter().map(move |ob| (k, ob)))
            })
            .flatten()
            .collect();
        for ((k, ob), (verdict, core)) in checked(spec, &invariant_obs, budget, recheck_rlimit) {
            let proved = verdict == Settled::Proved;
            let Some(action) = &ob.action else {
                if !proved {
                    hints.record_start_unproved(*k);
                }
                continue;
            };
            hints
                .case_cores
                .entry((*k, action.clone()))
                .or_default()
                .push(core.clone());
            hints
                .case_proved
                .entry((*k, action.clone()))
                .or_default()
                .push(proved);
            match core {
                Some(core) => hints.record(*k, action, &core, true, proved),
                None => hints.record(*k, action, &ob.assumed, false, proved),
            }
        }
        let simulation_obs: Vec<(usize, Obligation)> = (0..spec.simulations.len())
            .filter_map(|k| {
                simulation::obligations(spec, k, &Assumptions::AsDeclared)
                    .ok()
                    .map(|obs| obs.into_iter().map(move |ob| (k, ob)))
            })
            .flatten()
            .collect();
        for ((k, ob), (verdict, core)) in checked(spec, &simulation_obs, budget, recheck_rlimit) {
            let proved = verdict == Settled::Proved;
            let Some(action) = &ob.action else {
                if !proved {
                    hints.sim_start_unproved.insert(*k);
                }
                continue;
            };
            if !proved {
                hints.sim_step_unproved.insert((*k, action.clone()));
            }
            // A core only from a proof within the hint budget (a recheck names none).
            hints
                .sim_cores
                .entry((*k, action.clone()))
                .or_default()
                .push(core);
        }
        hints.ask_order_cases(spec, recheck_rlimit);
        hints
    }

    /// For every simulation case Z3 proved without naming its core, whose path assumes an
    /// `∃` over a tuple type compared by a field of which the action has a parameter: asks Z3
    /// the three order sub-obligations (see [`simulation::order_split`]) and, for `less` and
    /// `greater` cases it proves, their settled atoms; keeps every core.
    fn ask_order_cases(&mut self, spec: &Spec, recheck_rlimit: u64) {
        let mut asked: Vec<(usize, String, simulation::OrderCase)> = Vec::new();
        for (k, sim) in spec.simulations.iter().enumerate() {
            let Ok(ts) = invariant::transitions(spec, sim.from) else {
                continue;
            };
            let fields = compared_fields(spec, sim.from);
            let actions = &spec.automata[sim.from.0 as usize].actions;
            for (t_index, t) in ts.iter().enumerate() {
                let action = &actions[t.action.0 as usize];
                if ts.iter().filter(|u| u.action == t.action).count() != 1 {
                    continue;
                }
                let Some(cores) = self.sim_cores.get(&(k, action.name.clone())) else {
                    continue;
                };
                if !cores.iter().any(|c| c.is_none()) || self.sim_step_unproved(k, &action.name) {
                    continue;
                }
                let split = fields.iter().find_map(|(ty, field)| {
                    let param = action.params.iter().position(|p| p.ty == *ty)?;
                    Some(simulation::OrderSplit {
                        ty: ty.clone(),
                        field: *field,
                        param: param as u32,
                        settle: escape_sets(spec, sim.from, ty),
                    })
                });
                let Some(split) = split else { continue };
                let Ok(parts) =
                    simulation::order_split(spec, k, t_index, &split, &Assumptions::AsDeclared)
                else {
                    continue;
                };
                asked.extend(
                    parts
                        .into_iter()
                        .filter(|p| cores.get(p.case).is_some_and(|c| c.is_none()))
                        .map(|p| (k, action.name.clone(), p)),
                );
            }
        }
        // First the order cases' own goals (each proof names its core in the same attempt),
        // then the settled atoms of the cases that proved: asked with only that case's core
        // assumed and a small budget (a settled atom follows from few invariants or not at all).
        use rayon::prelude::*;
        let wall = std::time::Duration::from_secs_f64(budget::DEFAULT_WALL_SECONDS);
        let goals = Budget::new(ORDER_RLIMIT.max(recheck_rlimit), wall);
        let (own, atoms): (Vec<_>, Vec<_>) =
            asked.into_iter().partition(|(_, _, p)| p.settled.is_none());
        let answers: Vec<Option<Vec<String>>> = own
            .par_iter()
            .map(|(_, _, p)| {
                let outcome = solve::check_naming_core(&p.obligation, &goals, None);
                match outcome.verdict {
                    Verdict::Proved => outcome.core,
                    _ => None,
                }
            })
            .collect();
        let core_of = |k: usize, action: &str, p: &simulation::OrderCase| {
            own.iter()
                .zip(&answers)
                .find(|((k2, a2, q), _)| {
                    *k2 == k && a2 == action && q.case == p.case && q.order == p.order
                })
                .and_then(|(_, c)| c.clone())
        };
        let settled: Vec<Option<Vec<String>>> = atoms
            .par_iter()
            .map(|(k, action, p)| settle(spec, p, core_of(*k, action, p)?))
            .collect();
        for ((k, action, p), core) in own
            .into_iter()
            .zip(answers)
            .chain(atoms.into_iter().zip(settled))
        {
            self.sim_order_cores
                .entry((k, action, p.case))
                .or_default()
                .push(OrderAnswer {
                    order: p.order,
                    settled: p.settled,
                    counting: core.iter().flatten().any(|l| counts(spec, l)),
                    core,
                });
        }
    }
}

/// The core of settled atom `p` (see [`simulation::OrderSplit::settle`]) when Z3 proves it
/// within [`SETTLED_RLIMIT`] from its order case's core `case_core` (the counting invariants of
/// that core first replaced, see below).
fn settle(spec: &Spec, p: &simulation::OrderCase, case_core: Vec<String>) -> Option<Vec<String>> {
    let small = Budget::new(
        SETTLED_RLIMIT,
        std::time::Duration::from_secs_f64(budget::DEFAULT_WALL_SECONDS),
    );
    // First without the counting invariants of the core (`size`: the leaf proves
    // the atom by metis, which knows nothing of cardinalities), with the
    // invariants that do not count over the same state variables instead.
    let counting: Vec<&String> = case_core.iter().filter(|l| counts(spec, l)).collect();
    let read: BTreeSet<u32> = counting.iter().flat_map(|l| reads(spec, l)).collect();
    let first_order: Vec<String> = p
        .obligation
        .hypotheses
        .iter()
        .map(|(label, _)| label.clone())
        .filter(|l| {
            !counts(spec, l)
                && (case_core.contains(l) || reads(spec, l).iter().any(|v| read.contains(v)))
        })
        .collect();
    let tries = if counting.is_empty() {
        vec![case_core]
    } else {
        vec![first_order, case_core]
    };
    tries.iter().find_map(|only| {
        let outcome = solve::check_naming_core(&p.obligation, &small, Some(only));
        match outcome.verdict {
            Verdict::Proved => outcome.core,
            _ => None,
        }
    })
}

/// Whether the invariant labelled `label` takes a collection's `size` (a cardinality).
fn counts(spec: &Spec, label: &str) -> bool {
    spec.invariants.iter().filter(|i| i.name == label).any(|i| {
        let mut found = false;
        walk(&i.body, &mut |e: &Expr| {
            found |= matches!(e.kind, ExprKind::Call(Builtin::Size, _));
        });
        found
    })
}

/// The state variables (slots) the invariant labelled `label` reads.
fn reads(spec: &Spec, label: &str) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for i in spec.invariants.iter().filter(|i| i.name == label) {
        walk(&i.body, &mut |e: &Expr| {
            if let ExprKind::Var(VarRef::State(slot) | VarRef::Qualified { slot, .. }) = &e.kind {
                out.insert(*slot);
            }
        });
    }
    out
}

/// Z3 resource units for a settled atom (see [`simulation::OrderSplit::settle`]), asked with
/// only its order case's core assumed.
pub const SETTLED_RLIMIT: u64 = 2_000_000;

/// Z3 resource units for each order sub-obligation: `ioa prove`'s default budget (their proofs
/// take 4–8 million units on the bundled consensus simulation, and the portfolio's seed that
/// proves may be the third).
pub const ORDER_RLIMIT: u64 = 50_000_000;

/// The state variables `X` (slots) of automaton `a` that occur as `x ∈ X`, `x` of type `ty`,
/// in the conclusion of an implication whose premise compares fields of `ty` by order (in its
/// preconditions and invariants): the escape disjuncts of order formulas such as
/// `∀ x (x.f < y.f ⇒ … ∨ x ∈ X)`.
pub fn escape_sets(spec: &Spec, a: AutomatonId, ty: &Type) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    let ordered = |e: &Expr| {
        let mut found = false;
        walk(e, &mut |x: &Expr| {
            if let ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, l, _) = &x.kind {
                if let ExprKind::Field(t, _) = &l.kind {
                    found |= t.ty == *ty;
                }
            }
        });
        found
    };
    let mut note = |e: &Expr| {
        if let ExprKind::Binary(BinOp::Implies, l, r) = &e.kind {
            if ordered(l) {
                walk(r, &mut |x: &Expr| {
                    if let ExprKind::Binary(BinOp::In, m, set) = &x.kind {
                        if let ExprKind::Var(VarRef::State(slot)) = &set.kind {
                            if m.ty == *ty && !out.contains(slot) {
                                out.push(*slot);
                            }
                        }
                    }
                });
            }
        }
    };
    walk_claims(spec, a, &mut note);
    out
}

/// Walks every subexpression of automaton `a`'s preconditions and invariants.
fn walk_claims(spec: &Spec, a: AutomatonId, f: &mut dyn FnMut(&Expr)) {
    if let AutomatonBody::Primitive(p) = &spec.automata[a.0 as usize].body {
        for tr in &p.transitions {
            for pre in &tr.pre {
                walk(pre, &mut *f);
            }
        }
    }
    for inv in spec.invariants.iter().filter(|x| x.automaton == a) {
        walk(&inv.body, &mut *f);
    }
}

/// The (tuple type, field index) pairs compared by `<`, `≤`, `>` or `≥` in the preconditions
/// and invariants of automaton `a`, in the order they occur.
pub fn compared_fields(spec: &Spec, a: AutomatonId) -> Vec<(Type, u32)> {
    let mut out: Vec<(Type, u32)> = Vec::new();
    let mut note = |e: &Expr| {
        if let ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, l, r) = &e.kind {
            for side in [l, r] {
                if let ExprKind::Field(t, k) = &side.kind {
                    if matches!(t.ty, Type::Named(_)) && !out.contains(&(t.ty.clone(), *k)) {
                        out.push((t.ty.clone(), *k));
                    }
                }
            }
        }
    };
    walk_claims(spec, a, &mut note);
    out
}

/// How an obligation of the export ended: proved (within the hint budget or on recheck), or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settled {
    Proved,
    NotProved,
}

/// What the export learnt of one obligation: whether Z3 proves it, and the unsat core of its
/// proof when Z3 named one (within the hint budget or on the recheck).
type Answer = (Settled, Option<Vec<String>>);

/// Checks every obligation of `obs` on all cores (rayon), returning per obligation, in order,
/// whether Z3 proves it (see [`proved_as_ioa_prove`]) and the unsat core of the hint check.
fn checked<'a>(
    spec: &Spec,
    obs: &'a [(usize, Obligation)],
    budget: &Budget,
    recheck_rlimit: u64,
) -> Vec<(&'a (usize, Obligation), Answer)> {
    use rayon::prelude::*;
    obs.par_iter()
        .map(|entry| {
            let outcome = solve::check(spec, &entry.1, budget);
            let (proved, core) =
                proved_as_ioa_prove(spec, &entry.1, outcome, budget, recheck_rlimit);
            let settled = if proved {
                Settled::Proved
            } else {
                Settled::NotProved
            };
            (entry, (settled, core))
        })
        .collect()
}

/// Z3 resource units for asking again about an obligation the hint budget did not settle:
/// `ioa prove`'s own default, so that the export states exactly what `ioa prove` proves (with
/// 20 million, Global1 → Cons's `internalDecide` case 3 with `ioa verify`'s invariants, 17–28
/// million units, went unstated although `ioa prove` proves it). A model with many obligations
/// Z3 cannot settle (inferred candidate invariants) then exports as slowly as `ioa prove` runs;
/// `ioa export isabelle --rlimit` sets a smaller budget for a quicker export that states less.
pub const RECHECK_RLIMIT: u64 = crate::solve::budget::DEFAULT_PROVE_RLIMIT;

/// Whether Z3 proves `ob`, given the verdict of the (small) hint budget: a proof or a
/// counterexample settles it; any other answer is asked again with `recheck_rlimit` units when
/// that is more than `budget` gave. A claim not proved then is left unstated (never a lemma whose
/// proof could fail).
fn proved_as_ioa_prove(
    spec: &Spec,
    ob: &Obligation,
    outcome: solve::Outcome,
    budget: &Budget,
    recheck_rlimit: u64,
) -> (bool, Option<Vec<String>>) {
    match &outcome.verdict {
        Verdict::Proved => (true, outcome.core),
        Verdict::Failed(_) => (false, None),
        _ if recheck_rlimit <= budget.rlimit => (false, None),
        _ => {
            let again = Budget::new(
                recheck_rlimit,
                std::time::Duration::from_secs_f64(budget::DEFAULT_WALL_SECONDS),
            );
            let outcome = solve::check(spec, ob, &again);
            match outcome.verdict {
                Verdict::Proved => (true, outcome.core),
                _ => (false, None),
            }
        }
    }
}

/// The cores of one action's simulation cases, one per case of its proof block: Z3's
/// obligations run over the action's `transitions` transition cases (a composite's components
/// sharing the action), each through every case of the proof block, while the Isabelle step
/// lemma covers all transition cases in each of its leaves. A leaf's core is then the union of
/// its case's cores over the transitions, not known when one of them is not. Cores that do not
/// divide evenly are returned as they are (the export then unfolds every invariant).
pub fn cores_per_leaf(
    cores: &[Option<Vec<String>>],
    transitions: usize,
) -> Vec<Option<Vec<String>>> {
    if transitions <= 1 || cores.is_empty() || cores.len() % transitions != 0 {
        return cores.to_vec();
    }
    let per = cores.len() / transitions;
    (0..per)
        .map(|leaf| {
            let mut union: Vec<String> = Vec::new();
            for t in 0..transitions {
                for name in cores[t * per + leaf].as_ref()? {
                    if !union.contains(name) {
                        union.push(name.clone());
                    }
                }
            }
            Some(union)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::cores_per_leaf;

    fn core(names: &[&str]) -> Option<Vec<String>> {
        Some(names.iter().map(|n| n.to_string()).collect())
    }

    #[test]
    fn a_leaf_takes_the_union_of_its_case_over_the_transitions() {
        // Two transitions (LCR's `send`: the input case, the process's case), two proof cases.
        let cores = [core(&[]), core(&["A"]), core(&["R"]), core(&["A", "B"])];
        assert_eq!(
            cores_per_leaf(&cores, 2),
            vec![core(&["R"]), core(&["A", "B"])]
        );
    }

    #[test]
    fn a_leaf_with_one_unknown_case_has_no_core() {
        let cores = [core(&["A"]), None];
        assert_eq!(cores_per_leaf(&cores, 2), vec![None]);
    }

    #[test]
    fn cores_that_do_not_divide_evenly_are_kept() {
        let cores = [core(&["A"]), core(&["B"]), core(&["C"])];
        assert_eq!(cores_per_leaf(&cores, 2), cores.to_vec());
        assert_eq!(cores_per_leaf(&cores, 1), cores.to_vec());
    }
}
