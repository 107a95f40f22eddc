//! Rule 4 of suppression: equality sets. Variables that are reported equal form a class led by
//! its first variable, and only the leader is talked about.

use super::mark;
use crate::invariant::{Finding, Kind};
use crate::vars::{Term, VarId, VarModel};
use rustc_hash::FxHashMap;

/// Rule 4.
pub(super) fn equalities(model: &VarModel, findings: &mut [Finding]) {
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
        .filter(|(_, f)| {
            f.reported()
                && f.invariant.condition.is_none()
                && f.invariant.kind == Kind::Equal
                && same_scope(f)
        })
        .map(|(i, _)| i)
        .collect();
    for &i in &equalities {
        let (a, b) = (findings[i].invariant.vars[0], findings[i].invariant.vars[1]);
        let (ra, rb) = (find(&mut leader, a), find(&mut leader, b));
        // A variable with an IOA spelling leads, then the smaller: state variables come before
        // derived ones.
        let rank = |v: VarId| (!model.vars[v].is_term(), v);
        let (keep, join) = if rank(ra) < rank(rb) {
            (ra, rb)
        } else {
            (rb, ra)
        };
        leader[join] = keep;
    }
    let mut roots: Vec<VarId> = (0..n).map(|v| find(&mut leader, v)).collect();
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
    // The size of a follower follows the size of its leader (`size(mirror)` is said as
    // `size(pair)` once `pair = mirror`), tied by the same equality. The loop changes only the
    // roots of sizes of followers, never of a leader's size, so one pass suffices (a key set's
    // size comes before the sizes of state variables, so the leader's may come later).
    for v in 0..n {
        let Term::Size(s) = model.vars[v].term else {
            continue;
        };
        if roots[s] == s || roots[v] != v {
            continue;
        }
        let lead = roots[s];
        if let Some(w) = (0..n).find(|w| *w != v && model.vars[*w].term == Term::Size(lead)) {
            roots[v] = roots[w];
            if let Some(&t) = tie.get(&s) {
                tie.insert(v, t);
            }
        }
    }
    for (i, f) in findings.iter_mut().enumerate() {
        if !f.reported() {
            continue;
        }
        let vars = f.invariant.all_vars();
        let is_tie = f.invariant.condition.is_none()
            && f.invariant.kind == Kind::Equal
            && tie.values().any(|&t| t == i);
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
