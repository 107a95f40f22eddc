//! A universally quantified goal clause asked with its variables as constants, and the
//! hypotheses that build sets from their own variables instantiated at those constants.
//!
//! The relation of Paxos → Global1 says that any two distinct members form a quorum:
//! `∀ n1, n2 (… ⇒ {n1, n2} ∈ quorums)`. A step that makes a ballot dead must show that some
//! quorum abstained, and the quorum is the pair of nodes the goal is about: negated, the goal
//! `∀ b, n1, n2 (… ⇒ b ∈ dead')` gives Z3 constants for `n1` and `n2`, but Z3 instantiates
//! the hypothesis only when it meets the term `{n1, n2}`, which nothing in the obligation
//! holds — so it never builds the witness (Paxos → Global1's abstaining `recvPropose` step
//! exhausted 150 M resource units). Here the clause `∀ x̄ P(x̄)` is asked as `¬P(c̄)` with fresh
//! constants `c̄` (the same question: the part is refuted exactly when some `c̄` violates
//! `P`), and every hypothesis conjunct `∀ ȳ Q(ȳ)` that builds a set object from its `ȳ` is
//! also stated as `Q(c̄')` for the assignments `c̄'` of those constants to `ȳ` by sort (each
//! an instance of an asserted hypothesis, under the same guard, so the unsat core still
//! names it). With the pair instance in place that step is proved in about 50 k units.

use crate::smt::sexpr;
use std::collections::HashMap;

/// At most this many instances per part (all assignments of the constants to a hypothesis's
/// variables, hypothesis after hypothesis).
const MAX_INSTANCES: usize = 16;

/// The assertions that replace `(assert (not CLAUSE))` for a clause `(forall (…) body)`:
/// the constants' declarations, the negated body over them and the instances. `None` when the
/// clause is not universally quantified, no hypothesis builds a set from its variables or the
/// text holds quoted symbols (which this reader does not interpret).
pub fn skolemised(script: &str, clause: &str, tag: &str) -> Option<String> {
    if clause.contains('|') {
        return None;
    }
    let (binders, body) = quantified(clause)?;
    let constants: Vec<(String, String)> = binders
        .iter()
        .enumerate()
        .map(|(k, (_, sort))| (format!("sk.{tag}.{k}"), sort.clone()))
        .collect();
    let renaming: HashMap<&str, &str> = binders
        .iter()
        .zip(&constants)
        .map(|((name, _), (c, _))| (name.as_str(), c.as_str()))
        .collect();
    let instances = instances(script, &constants);
    if instances.is_empty() {
        return None;
    }
    let mut out = String::new();
    for (c, sort) in &constants {
        out.push_str(&format!("(declare-const {c} {sort})\n"));
    }
    out.push_str(&format!(
        "(assert (not {}))",
        sexpr::rename_atoms(&body, &renaming)
    ));
    for i in instances {
        out.push('\n');
        out.push_str(&i);
    }
    Some(out)
}

/// `(forall ((x S) …) body)` as its binders and body.
fn quantified(term: &str) -> Option<(Vec<(String, String)>, String)> {
    let items = sexpr::items(term)?;
    if items.len() != 3 || items[0] != "forall" {
        return None;
    }
    let mut binders = Vec::new();
    for b in sexpr::items(&items[1])? {
        match sexpr::items(&b)?.as_slice() {
            [name, sort] => binders.push((name.clone(), sort.clone())),
            _ => return None,
        }
    }
    Some((binders, items[2].clone()))
}

/// The instances at `constants` of every hypothesis conjunct that builds a set object from its
/// own variables, each as `(assert (=> GUARD instance))`.
fn instances(script: &str, constants: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for line in script.lines() {
        let Some(inner) = line
            .strip_prefix("(assert ")
            .and_then(|l| l.strip_suffix(')'))
        else {
            continue;
        };
        let Some(items) = sexpr::items(inner) else {
            continue;
        };
        let [arrow, guard, term] = items.as_slice() else {
            continue;
        };
        if arrow != "=>" || !guard.starts_with("hyp.") || term.contains('|') {
            continue;
        }
        for conjunct in super::split::conjuncts(term) {
            let Some((binders, body)) = quantified(&conjunct) else {
                continue;
            };
            if !builds_set_from(&body, &binders) {
                continue;
            }
            for assignment in assignments(&binders, constants) {
                if out.len() == MAX_INSTANCES {
                    return out;
                }
                let renaming: HashMap<&str, &str> = binders
                    .iter()
                    .zip(&assignment)
                    .map(|((name, _), c)| (name.as_str(), c.as_str()))
                    .collect();
                out.push(format!(
                    "(assert (=> {guard} {}))",
                    sexpr::rename_atoms(&body, &renaming)
                ));
            }
        }
    }
    out
}

/// Whether `body` holds a set object (`(Set_….obj (store …))`) built from some of `binders`.
fn builds_set_from(body: &str, binders: &[(String, String)]) -> bool {
    body.match_indices(".obj (store ").any(|(at, _)| {
        let object = body[..at]
            .rfind('(')
            .and_then(|start| sexpr::term_at(body, start));
        object.is_some_and(|o| sexpr::atoms(o).any(|t| binders.iter().any(|(n, _)| n == t)))
    })
}

/// Every way of giving each binder a constant of its sort (none when a sort has no constant).
fn assignments(binders: &[(String, String)], constants: &[(String, String)]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![vec![]];
    for (_, sort) in binders {
        let of_sort: Vec<&String> = constants
            .iter()
            .filter(|(_, s)| s == sort)
            .map(|(c, _)| c)
            .collect();
        out = out
            .into_iter()
            .flat_map(|prefix| {
                of_sort.iter().map(move |c| {
                    let mut next = prefix.clone();
                    next.push((*c).clone());
                    next
                })
            })
            .take(MAX_INSTANCES)
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::skolemised;

    const SCRIPT: &str = "(declare-const hyp.1 Bool)\n\
        (assert (=> hyp.1 (and (forall ((a Node)) (p a)) (forall ((x.1 Node) (x.2 Node)) (q (S.obj (store (store e x.1 true) x.2 true)))))))\n";

    #[test]
    fn a_universal_clause_gets_constants_and_the_pair_instances() {
        let out = skolemised(SCRIPT, "(forall ((b Ballot) (n Node)) (r b n))", "1").unwrap();
        assert_eq!(
            out,
            "(declare-const sk.1.0 Ballot)\n(declare-const sk.1.1 Node)\n\
             (assert (not (r sk.1.0 sk.1.1)))\n\
             (assert (=> hyp.1 (q (S.obj (store (store e sk.1.1 true) sk.1.1 true)))))"
        );
    }

    #[test]
    fn nothing_changes_without_a_set_building_hypothesis_or_a_universal_goal() {
        let plain = "(assert (=> hyp.1 (forall ((a Node)) (p a))))\n";
        assert!(skolemised(plain, "(forall ((n Node)) (r n))", "1").is_none());
        assert!(skolemised(SCRIPT, "(r c)", "1").is_none());
        assert!(skolemised(SCRIPT, "(forall ((v Value)) (r v))", "1").is_none());
    }
}
