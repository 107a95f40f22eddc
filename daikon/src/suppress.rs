//! Suppression: invariants that held but follow from others (or from the types) are not
//! reported, and `--explain` names what they follow from. The rules, applied in this order:
//!
//! 1. **Types and universe.** `size(S) ≥ 0` and `x ≥ 0` for a `Nat`; `size(S) ≤ k` when the
//!    element type of `S` has only `k` values in the universe; a one-of listing every value of a
//!    type. Bounds whose constant lies outside the interesting range (Daikon's −1 to 2, see
//!    [`GrammarOptions::bounds`]) are dropped here too.
//! 2. **Constants.** A relation between two variables that never changed follows from their two
//!    constants; `A ⊆ B` and `size(A ∩ B) = 0` follow from `A = {}`; an invariant of a derived
//!    variable follows from the constants it is computed from (`size(S) = 2` from `S = {…}`).
//! 3. **Redundant intersections.** When `A ⊆ B` held, `A ∩ B` is `A`, so nothing about
//!    `size(A ∩ B)` is news.
//! 4. **Equality sets.** When `x = y` is reported, the variables form one class with a leader
//!    (the first of them); every other invariant that mentions a non-leader is said of the leader
//!    already, and only the equalities with the leader are kept.
//! 5. **Consequences** among the invariants still reported: `A ⊆ C` from `A ⊆ B` and `B ⊆ C`;
//!    `x ≤ z` (or `<`) from `x ≤ y` and `y ≤ z`; `size(A) ≤ size(B)` from `A ⊆ B`; `size(C ∩ B) =
//!    0` from `size(A ∩ B) = 0` and `C ⊆ A`; `x ∈ C` from `x ∈ B` and `B ⊆ C`; bounds from a
//!    one-of; `x ≤ c` from `x ≤ y` (or `x ⊆ y` for sizes) and `y ≤ c'` with `c' ≤ c`, and the same
//!    for lower bounds.
//!
//! Rules 1–3 apply to every candidate that held; rules 4–5 take as premises only invariants that
//! are reported (justified, printable and not suppressed by rules 1–4), so a suppressed invariant
//! always follows from reported ones or from facts about the types.

use crate::candidates::GrammarOptions;
use crate::invariant::{Finding, Kind, Verdict};
use crate::vars::{Term, VarId, VarModel};
use interpreter::value::Value;
use ioa_lang::ir::Type;
use rustc_hash::FxHashMap;

/// Marks the suppressed findings.
pub fn suppress(model: &VarModel, findings: &mut [Finding], grammar: GrammarOptions) {
    types(model, findings, grammar.bounds);
    constants(model, findings);
    intersections(model, findings);
    equalities(model, findings);
    consequences(model, findings);
}

fn mark(f: &mut Finding, by: Vec<usize>, reason: impl Into<String>) {
    f.verdict = Verdict::Suppressed {
        by,
        reason: reason.into(),
    };
}

/// Whether the finding is still a candidate for suppression (held, printable, not yet suppressed).
fn open(f: &Finding) -> bool {
    matches!(f.verdict, Verdict::Reported | Verdict::Unjustified)
}

/// Rule 1.
fn types(model: &VarModel, findings: &mut [Finding], (low, high): (i64, i64)) {
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

fn uninteresting(low: i64, high: i64) -> String {
    format!("a bound outside {low}..{high} is taken for an artefact of the runs or the universe")
}

/// Rule 2.
fn constants(model: &VarModel, findings: &mut [Finding]) {
    let mut constant: FxHashMap<VarId, (usize, Value)> = FxHashMap::default();
    for (i, f) in findings.iter().enumerate() {
        if let (Kind::Const(c), true) = (&f.invariant.kind, f.held()) {
            constant.insert(f.invariant.vars[0], (i, c.clone()));
        }
    }
    let empty = |v: &VarId| matches!(constant.get(v), Some((_, Value::Set(s))) if s.is_empty());
    for f in findings.iter_mut().filter(|f| open(f)) {
        let vars = f.invariant.vars.clone();
        let by = |vs: &[VarId]| vs.iter().map(|v| constant[v].0).collect::<Vec<_>>();
        match &f.invariant.kind {
            Kind::Const(_) if model.vars[vars[0]].is_derived() => {
                let roots = base_vars(model, vars[0]);
                if roots.iter().all(|v| constant.contains_key(v)) {
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
            _ if vars.len() == 2 && vars.iter().all(|v| constant.contains_key(v)) => {
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

fn names(model: &VarModel, vars: &[VarId]) -> String {
    vars.iter()
        .map(|v| model.vars[*v].name.as_str())
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Rule 3.
fn intersections(model: &VarModel, findings: &mut [Finding]) {
    let mut included: FxHashMap<(VarId, VarId), usize> = FxHashMap::default();
    for (i, f) in findings.iter().enumerate() {
        if f.held() && matches!(f.invariant.kind, Kind::Subset | Kind::Equal) {
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

/// Rule 4.
fn equalities(model: &VarModel, findings: &mut [Finding]) {
    let n = model.vars.len();
    let mut leader: Vec<VarId> = (0..n).collect();
    fn find(leader: &mut [VarId], v: VarId) -> VarId {
        let mut r = v;
        while leader[r] != r {
            r = leader[r];
        }
        leader[v] = r;
        r
    }
    let same_scope = |f: &Finding| {
        let (a, b) = (f.invariant.vars[0], f.invariant.vars[1]);
        model.vars[a].index == model.vars[b].index
    };
    let equalities: Vec<usize> = findings
        .iter()
        .enumerate()
        .filter(|(_, f)| f.reported() && f.invariant.kind == Kind::Equal && same_scope(f))
        .map(|(i, _)| i)
        .collect();
    for &i in &equalities {
        let (a, b) = (findings[i].invariant.vars[0], findings[i].invariant.vars[1]);
        let (ra, rb) = (find(&mut leader, a), find(&mut leader, b));
        // The smaller variable leads: state variables come before derived ones.
        let (keep, join) = if ra < rb { (ra, rb) } else { (rb, ra) };
        leader[join] = keep;
    }
    let roots: Vec<VarId> = (0..n).map(|v| find(&mut leader, v)).collect();
    // For each non-leader, the equality that ties it to its leader.
    let mut tie: FxHashMap<VarId, usize> = FxHashMap::default();
    for &i in &equalities {
        let (a, b) = (findings[i].invariant.vars[0], findings[i].invariant.vars[1]);
        if roots[a] == a && roots[b] == a {
            tie.insert(b, i);
        } else if roots[b] == b && roots[a] == b {
            tie.insert(a, i);
        }
    }
    for (i, f) in findings.iter_mut().enumerate() {
        if !f.reported() {
            continue;
        }
        let vars = &f.invariant.vars;
        let is_tie = f.invariant.kind == Kind::Equal && tie.values().any(|&t| t == i);
        if is_tie {
            continue;
        }
        let followers: Vec<VarId> = vars.iter().copied().filter(|v| roots[*v] != *v).collect();
        if followers.is_empty() {
            continue;
        }
        let by: Vec<usize> = followers
            .iter()
            .filter_map(|v| tie.get(v).copied())
            .collect();
        let text = followers
            .iter()
            .map(|v| format!("{} = {}", model.vars[roots[*v]].name, model.vars[*v].name))
            .collect::<Vec<_>>()
            .join(", ");
        mark(
            f,
            by,
            format!("said of the equal variable instead ({text})"),
        );
    }
}

/// Rule 5. Premises are the findings reported when the rule starts.
fn consequences(model: &VarModel, findings: &mut [Finding]) {
    let premises = Premises::new(findings);
    let mut verdicts = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        if !f.reported() {
            continue;
        }
        if let Some((by, reason)) = premises.implies(model, i, f) {
            verdicts.push((i, by, reason));
        }
    }
    for (i, by, reason) in verdicts {
        mark(&mut findings[i], by, reason);
    }
}

/// The reported findings, by kind and variables.
struct Premises {
    subset: FxHashMap<(VarId, VarId), usize>,
    /// `x ≤ y` or `x < y`: the finding and whether it is strict.
    order: FxHashMap<(VarId, VarId), (usize, bool)>,
    disjoint: FxHashMap<(VarId, VarId), usize>,
    member: FxHashMap<(VarId, VarId), usize>,
    one_of: FxHashMap<VarId, usize>,
    upper: FxHashMap<VarId, (usize, i64)>,
    lower: FxHashMap<VarId, (usize, i64)>,
}

impl Premises {
    fn new(findings: &[Finding]) -> Self {
        let mut p = Premises {
            subset: FxHashMap::default(),
            order: FxHashMap::default(),
            disjoint: FxHashMap::default(),
            member: FxHashMap::default(),
            one_of: FxHashMap::default(),
            upper: FxHashMap::default(),
            lower: FxHashMap::default(),
        };
        for (i, f) in findings.iter().enumerate().filter(|(_, f)| f.reported()) {
            let v = &f.invariant.vars;
            match &f.invariant.kind {
                Kind::Subset => {
                    p.subset.insert((v[0], v[1]), i);
                }
                Kind::Less => {
                    p.order.insert((v[0], v[1]), (i, true));
                }
                Kind::LessEq => {
                    p.order.insert((v[0], v[1]), (i, false));
                }
                Kind::Disjoint => {
                    p.disjoint.insert((v[0], v[1]), i);
                    p.disjoint.insert((v[1], v[0]), i);
                }
                Kind::Member => {
                    p.member.insert((v[0], v[1]), i);
                }
                Kind::OneOf(_) => {
                    p.one_of.insert(v[0], i);
                }
                Kind::Upper(c) => {
                    p.upper.insert(v[0], (i, *c));
                }
                Kind::Lower(c) => {
                    p.lower.insert(v[0], (i, *c));
                }
                _ => {}
            }
        }
        p
    }

    /// The premises finding `i` follows from, if any.
    fn implies(&self, model: &VarModel, i: usize, f: &Finding) -> Option<(Vec<usize>, String)> {
        let v = &f.invariant.vars;
        let n = model.vars.len();
        let name = |x: VarId| model.vars[x].name.clone();
        match &f.invariant.kind {
            Kind::Subset => (0..n).find_map(|m| {
                let (p, q) = (self.subset.get(&(v[0], m))?, self.subset.get(&(m, v[1]))?);
                Some((vec![*p, *q], format!("transitivity through {}", name(m))))
            }),
            Kind::Less | Kind::LessEq => {
                let strict = f.invariant.kind == Kind::Less;
                let through = (0..n).find_map(|m| {
                    let (p, s1) = self.order.get(&(v[0], m))?;
                    let (q, s2) = self.order.get(&(m, v[1]))?;
                    (!strict || *s1 || *s2)
                        .then(|| (vec![*p, *q], format!("transitivity through {}", name(m))))
                });
                through.or_else(|| {
                    if strict {
                        return None;
                    }
                    let (Term::Size(a), Term::Size(b)) =
                        (&model.vars[v[0]].term, &model.vars[v[1]].term)
                    else {
                        return None;
                    };
                    let p = self.subset.get(&(*a, *b))?;
                    Some((vec![*p], "a subset is no larger".to_string()))
                })
            }
            Kind::Disjoint => (0..n).find_map(|m| {
                if let (Some(p), Some(q)) =
                    (self.disjoint.get(&(m, v[1])), self.subset.get(&(v[0], m)))
                {
                    return Some((vec![*p, *q], format!("{} ⊆ {}", name(v[0]), name(m))));
                }
                let (p, q) = (self.disjoint.get(&(v[0], m))?, self.subset.get(&(v[1], m))?);
                Some((vec![*p, *q], format!("{} ⊆ {}", name(v[1]), name(m))))
            }),
            Kind::Member => (0..n).find_map(|m| {
                let (p, q) = (self.member.get(&(v[0], m))?, self.subset.get(&(m, v[1]))?);
                Some((vec![*p, *q], format!("{} ⊆ {}", name(m), name(v[1]))))
            }),
            Kind::Lower(_) | Kind::Upper(_) if self.one_of.contains_key(&v[0]) => Some((
                vec![self.one_of[&v[0]]],
                "implied by the one-of".to_string(),
            )),
            Kind::Upper(c) => (0..n).find_map(|m| {
                let (q, c2) = self.upper.get(&m)?;
                if *q == i || c2 > c {
                    return None;
                }
                let p = self.below(model, v[0], m)?;
                Some((vec![p, *q], format!("{} ≤ {}", name(v[0]), name(m))))
            }),
            Kind::Lower(c) => (0..n).find_map(|m| {
                let (q, c2) = self.lower.get(&m)?;
                if *q == i || c2 < c {
                    return None;
                }
                let p = self.below(model, m, v[0])?;
                Some((vec![*q, p], format!("{} ≤ {}", name(m), name(v[0]))))
            }),
            _ => None,
        }
    }

    /// A premise saying `x ≤ y`: an order, or an inclusion between the sets they measure.
    fn below(&self, model: &VarModel, x: VarId, y: VarId) -> Option<usize> {
        if let Some((p, _)) = self.order.get(&(x, y)) {
            return Some(*p);
        }
        match (&model.vars[x].term, &model.vars[y].term) {
            (Term::Size(a), Term::Size(b)) => self.subset.get(&(*a, *b)).copied(),
            _ => None,
        }
    }
}
