//! Rules 5 and 6 of suppression: invariants that follow from reported ones (transitivity,
//! sizes of subsets, bounds through an order), and conditional invariants that hold without
//! their condition.

use super::{fact, mark, open};
use crate::invariant::{Condition, Finding, Kind};
use crate::vars::{Term, VarId, VarModel};
use rustc_hash::FxHashMap;

/// Rule 6: a conditional invariant that held without its condition.
pub(super) fn conditions(findings: &mut [Finding]) {
    let mut unconditional: FxHashMap<Vec<VarId>, Vec<usize>> = FxHashMap::default();
    for (i, f) in findings.iter().enumerate() {
        if fact(f) {
            unconditional
                .entry(f.invariant.vars.clone())
                .or_default()
                .push(i);
        }
    }
    let mut marks = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        if f.invariant.condition.is_none() || !open(f) {
            continue;
        }
        let Some(candidates) = unconditional.get(&f.invariant.vars) else {
            continue;
        };
        let stronger = candidates
            .iter()
            .find(|&&j| at_least_as_strong(&findings[j].invariant.kind, &f.invariant.kind));
        if let Some(&j) = stronger {
            marks.push((i, j));
        }
    }
    for (i, j) in marks {
        mark(&mut findings[i], vec![j], "it holds without the condition");
    }
}

/// Whether `strong` (over the same variables) implies `weak`.
fn at_least_as_strong(strong: &Kind, weak: &Kind) -> bool {
    match (strong, weak) {
        (Kind::Upper(a), Kind::Upper(b)) => a <= b,
        (Kind::Lower(a), Kind::Lower(b)) => a >= b,
        (Kind::Less, Kind::LessEq) => true,
        (Kind::Const(c), Kind::OneOf(vs)) => vs.contains(c),
        (Kind::OneOf(us), Kind::OneOf(vs)) => us.iter().all(|u| vs.contains(u)),
        (a, b) => a == b,
    }
}

/// Rule 5. Premises are the findings reported when the rule starts.
pub(super) fn consequences(model: &VarModel, findings: &mut [Finding]) {
    let mut premises: FxHashMap<Option<Condition>, Premises> = FxHashMap::default();
    let mut verdicts = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        if !f.reported() {
            continue;
        }
        let condition = f.invariant.condition.clone();
        let p = premises
            .entry(condition.clone())
            .or_insert_with(|| Premises::new(findings, condition.as_ref()));
        if let Some((by, reason)) = p.implies(model, i, f) {
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
    /// The reported findings without a condition or under `condition`.
    fn new(findings: &[Finding], condition: Option<&Condition>) -> Self {
        let mut p = Premises {
            subset: FxHashMap::default(),
            order: FxHashMap::default(),
            disjoint: FxHashMap::default(),
            member: FxHashMap::default(),
            one_of: FxHashMap::default(),
            upper: FxHashMap::default(),
            lower: FxHashMap::default(),
        };
        let applies = |f: &Finding| {
            f.reported()
                && (f.invariant.condition.is_none() || f.invariant.condition.as_ref() == condition)
        };
        for (i, f) in findings.iter().enumerate().filter(|(_, f)| applies(f)) {
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
