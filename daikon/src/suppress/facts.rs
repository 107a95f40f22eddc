//! Rules 1–3 of suppression: facts about the types and the universe, constants, and
//! intersections that are one of their operands.

use super::{fact, mark, names, open};
use crate::invariant::{Condition, Finding, Kind};
use crate::vars::{Term, VarId, VarModel};
use interpreter::value::Value;
use ioa_lang::ir::Type;
use rustc_hash::FxHashMap;

/// Rule 1.
pub(super) fn types(model: &VarModel, findings: &mut [Finding], (low, high): (i64, i64)) {
    for f in findings.iter_mut().filter(|f| open(f)) {
        let x = f.invariant.vars[0];
        let var = &model.vars[x];
        match &f.invariant.kind {
            Kind::Lower(c) => {
                let floor = match (&var.term, &var.ty) {
                    (Term::Size(_), _) => Some("sizes are never negative"),
                    (_, Type::Nat) => Some("a Nat is never negative"),
                    _ => None,
                };
                if let (Some(why), true) = (floor, *c <= 0) {
                    mark(f, vec![], format!("implied by the type: {why}"));
                } else if *c < low || *c > high {
                    mark(f, vec![], uninteresting(low, high));
                }
            }
            Kind::Upper(c) if *c > 0 && var.is_intersection_size(model) => {
                mark(f, vec![], INTERSECTION);
            }
            Kind::OneOf(_) if var.is_intersection_size(model) => {
                mark(f, vec![], INTERSECTION);
            }
            Kind::Upper(c) => {
                if let Term::Size(s) = var.term {
                    if let Some(k) = model.vars[s].elem_carrier {
                        if *c >= k as i64 {
                            mark(
                                f,
                                vec![],
                                format!("implied by the universe: the elements have {k} values"),
                            );
                            continue;
                        }
                        // Under a condition, "not every element" is taken for an artefact of
                        // the universe (`size(failed) ≤ 2` of 3 nodes while an action that
                        // needs a live node is enabled).
                        if f.invariant.condition.is_some() && *c + 1 >= k as i64 {
                            mark(f, vec![], NOT_ALL);
                            continue;
                        }
                    }
                }
                if *c < low || *c > high {
                    mark(f, vec![], uninteresting(low, high));
                }
            }
            Kind::OneOf(values) if var.carrier == Some(values.len()) => {
                mark(f, vec![], "implied by the type: these are all its values");
            }
            _ => {}
        }
    }
}

/// Why only `size(A ∩ B) = 0` is said of an intersection: on Cons, `size(decided ∩ failed) ≤ 2`
/// held in 100 random runs of 100 steps only because no run had every node decide and fail.
const INTERSECTION: &str = "an intersection's size is reported only as disjointness (= 0); \
     other bounds on it are taken for artefacts of the runs";

/// Why a conditional bound one below the universe's count is dropped.
const NOT_ALL: &str = "under a condition, a size bound one below the number of elements in the \
     universe is taken for an artefact of the universe";

fn uninteresting(low: i64, high: i64) -> String {
    format!("a bound outside {low}..{high} is taken for an artefact of the runs or the universe")
}

/// Rule 2.
pub(super) fn constants(model: &VarModel, findings: &mut [Finding]) {
    // Constants, by the condition they hold under (`None`: unconditional facts, which hold
    // under every condition too; conditional ones count only while reported).
    let mut consts: FxHashMap<(Option<Condition>, VarId), (usize, Value)> = FxHashMap::default();
    for (i, f) in findings.iter().enumerate() {
        let usable = fact(f) || (f.invariant.condition.is_some() && f.reported());
        if let (Kind::Const(c), true) = (&f.invariant.kind, usable) {
            let key = (f.invariant.condition.clone(), f.invariant.vars[0]);
            consts.insert(key, (i, c.clone()));
        }
    }
    for f in findings.iter_mut().filter(|f| open(f)) {
        let cond = f.invariant.condition.clone();
        let constant = |v: &VarId| {
            consts
                .get(&(cond.clone(), *v))
                .or_else(|| consts.get(&(None, *v)))
        };
        let is_const = |v: &VarId| constant(v).is_some();
        let empty = |v: &VarId| matches!(constant(v), Some((_, Value::Set(s))) if s.is_empty());
        let vars = f.invariant.vars.clone();
        let by = |vs: &[VarId]| vs.iter().filter_map(|v| constant(v).map(|c| c.0)).collect();
        // Anything said of the size of a set that never changed follows from the set.
        if let (1, Term::Size(s)) = (vars.len(), &model.vars[vars[0]].term) {
            if let Some((by, _)) = constant(s) {
                mark(
                    f,
                    vec![*by],
                    format!("{} never changed", model.vars[*s].name),
                );
                continue;
            }
        }
        match &f.invariant.kind {
            Kind::Const(_) if model.vars[vars[0]].is_derived() => {
                let roots = base_vars(model, vars[0]);
                if roots.iter().all(is_const) {
                    let names = names(model, &roots);
                    mark(f, by(&roots), format!("{names} never changed"));
                } else if let Some(e) = roots
                    .iter()
                    .find(|v| empty(v))
                    .filter(|_| intersects(model, vars[0]))
                {
                    mark(
                        f,
                        by(&[*e]),
                        format!("{} is always empty", model.vars[*e].name),
                    );
                }
            }
            _ if vars.len() == 2 && vars.iter().all(is_const) => {
                mark(
                    f,
                    by(&vars),
                    format!("{} never changed", names(model, &vars)),
                );
            }
            Kind::Subset if empty(&vars[0]) => {
                mark(f, by(&vars[..1]), "the smaller set is always empty");
            }
            Kind::Disjoint => {
                if let Some(e) = vars.iter().find(|v| empty(v)) {
                    mark(
                        f,
                        by(&[*e]),
                        format!("{} is always empty", model.vars[*e].name),
                    );
                }
            }
            _ => {}
        }
    }
}

/// The state and element variables a variable is computed from (itself if it is one).
fn base_vars(model: &VarModel, v: VarId) -> Vec<VarId> {
    let inputs = &model.vars[v].inputs;
    if inputs.is_empty() {
        return vec![v];
    }
    let mut out: Vec<VarId> = inputs.iter().flat_map(|i| base_vars(model, *i)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a variable is (the size of) an intersection, which an empty operand empties.
fn intersects(model: &VarModel, v: VarId) -> bool {
    match model.vars[v].term {
        Term::Inter(..) => true,
        Term::Size(s) => matches!(model.vars[s].term, Term::Inter(..)),
        _ => false,
    }
}

/// Rule 3.
pub(super) fn intersections(model: &VarModel, findings: &mut [Finding]) {
    let mut included: FxHashMap<(VarId, VarId), usize> = FxHashMap::default();
    for (i, f) in findings.iter().enumerate() {
        if fact(f) && matches!(f.invariant.kind, Kind::Subset | Kind::Equal) {
            let (a, b) = (f.invariant.vars[0], f.invariant.vars[1]);
            included.insert((a, b), i);
            if f.invariant.kind == Kind::Equal {
                included.insert((b, a), i);
            }
        }
    }
    for f in findings.iter_mut().filter(|f| open(f)) {
        for &v in &f.invariant.vars.clone() {
            let Term::Size(inter) = model.vars[v].term else {
                continue;
            };
            let Term::Inter(a, b) = model.vars[inter].term else {
                continue;
            };
            let (na, nb) = (&model.vars[a].name, &model.vars[b].name);
            if let Some(&i) = included.get(&(a, b)) {
                mark(
                    f,
                    vec![i],
                    format!("{na} ∩ {nb} is {na}, since {na} ⊆ {nb}"),
                );
            } else if let Some(&i) = included.get(&(b, a)) {
                mark(
                    f,
                    vec![i],
                    format!("{na} ∩ {nb} is {nb}, since {nb} ⊆ {na}"),
                );
            }
        }
    }
}
