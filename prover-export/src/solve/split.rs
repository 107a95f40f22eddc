//! Splitting an obligation's goal into its conjuncts, checked one at a time.
//!
//! A simulation step's goal is a conjunction of a dozen quantified clauses (the fired actions'
//! preconditions, the relation after the step); negated whole, it is one disjunction that Z3
//! must refute at once, and its quantifier instantiation wanders among all the clauses. Each
//! clause alone is a much smaller refutation: Paxos → Global1's `prepare` step exhausts 50 M
//! units whole and its twelve relation clauses are proved in a few thousand units each. The
//! parts share the obligation's hypotheses, so the obligation holds exactly when every part
//! does, and a model of one part's negation is a counterexample to the whole.

use super::{Budget, Deadline, Outcome, Verdict};
use crate::obligations::Obligation;
use crate::smt::sexpr;
use std::time::Duration;

/// The first round gives every part this fraction of the budget (most clauses need a few
/// thousand units); the second shares what is left among the parts still open, in order.
const FIRST_ROUND_SHARE: u64 = 100;

/// One part of a split obligation: which goal and conjunct, and the script asking for it.
#[derive(Debug, Clone)]
pub struct Part {
    /// `goal 3, clause 6 of 12`.
    pub label: String,
    /// The obligation with the negated goal replaced by the negated conjunct.
    pub obligation: Obligation,
}

/// The parts of `ob`: one per top-level conjunct of each goal. `None` when the goal has a
/// single conjunct or the script does not end its goal the way `assert_goals` writes it.
pub fn parts(ob: &Obligation) -> Option<Vec<Part>> {
    let names: Vec<String> = ob.goals.iter().map(|(_, n)| n.clone()).collect();
    let negated = format!("(assert (not {}))", crate::smt::and(&names));
    if ob.script.matches(negated.as_str()).count() != 1 {
        return None;
    }
    let mut out = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let head = format!("(assert (= {name} ");
        let line = ob.script.lines().find(|l| l.starts_with(&head))?;
        let term = line.strip_prefix(&head)?.strip_suffix("))")?;
        let clauses = conjuncts(term);
        let n = clauses.len();
        for (j, clause) in clauses.into_iter().enumerate() {
            let asked = super::instances::skolemised(&ob.script, &clause, &format!("{k}.{j}"))
                .unwrap_or_else(|| format!("(assert (not {clause}))"));
            let script = ob.script.replacen(negated.as_str(), &asked, 1);
            out.push(Part {
                label: format!("goal {}, clause {} of {n}", k + 1, j + 1),
                obligation: Obligation {
                    script,
                    ..ob.clone()
                },
            });
        }
    }
    (out.len() > 1).then_some(out)
}

/// Checks the parts with `check_one` within `budget` in two rounds (see `FIRST_ROUND_SHARE`):
/// proved when every part is (the core is the union of the parts' cores), refuted by the first
/// part refuted, else the verdict of the first part left open. The time and resource units are
/// those the parts spent.
pub fn check_parts(
    parts: &[Part],
    budget: &Budget,
    check_one: impl Fn(&Obligation, &Budget) -> Outcome,
) -> Outcome {
    let deadline = Deadline::after(budget.wall);
    let mut spent = 0u64;
    let mut core: Option<Vec<String>> = Some(vec![]);
    let mut open: Vec<&Part> = Vec::new();
    let mut last = Verdict::Exhausted;
    let first_share = (budget.rlimit / FIRST_ROUND_SHARE).max(1);
    // Round one: every part with a small share; round two: the open ones share the rest.
    let mut todo: Vec<&Part> = parts.iter().collect();
    for round in 0..2 {
        let n = todo.len();
        for (k, part) in todo.into_iter().enumerate() {
            let share = match round {
                0 => first_share,
                _ => budget.rlimit.saturating_sub(spent) / (n - k) as u64,
            };
            if share == 0 || deadline.expired() {
                let verdict = if share == 0 { last } else { Verdict::Timeout };
                return outcome(verdict, &deadline, spent, None);
            }
            let wall = Duration::from_millis(u64::from(deadline.millis_left()));
            let tried = check_one(&part.obligation, &Budget::new(share, wall));
            spent += tried.rlimit;
            match tried.verdict {
                Verdict::Proved => {
                    core = core.zip(tried.core).map(|(mut all, more)| {
                        all.extend(more);
                        all
                    });
                }
                v @ (Verdict::Failed(_) | Verdict::Timeout) => {
                    return outcome(v, &deadline, spent, None)
                }
                v if round == 1 => return outcome(v, &deadline, spent, None),
                v => {
                    last = v;
                    open.push(part);
                }
            }
        }
        todo = std::mem::take(&mut open);
    }
    outcome(Verdict::Proved, &deadline, spent, core)
}

fn outcome(
    verdict: Verdict,
    deadline: &Deadline,
    rlimit: u64,
    core: Option<Vec<String>>,
) -> Outcome {
    Outcome {
        verdict,
        time: deadline.elapsed(),
        rlimit,
        core,
    }
}

/// The top-level conjuncts of an SMT-LIB2 term, nested `and`s flattened; the term itself when
/// it is no conjunction.
pub fn conjuncts(term: &str) -> Vec<String> {
    match sexpr::items(term) {
        Some(items) if items.first().map(String::as_str) == Some("and") => {
            items[1..].iter().flat_map(|a| conjuncts(a)).collect()
        }
        _ => vec![term.trim().to_string()],
    }
}

#[cfg(test)]
mod tests {
    use super::conjuncts;

    #[test]
    fn nested_conjunctions_are_flattened() {
        assert_eq!(
            conjuncts("(and (and a (f b)) (forall ((x Int)) (and (p x) q)) |a b|)"),
            vec!["a", "(f b)", "(forall ((x Int)) (and (p x) q))", "|a b|"]
        );
    }

    #[test]
    fn other_terms_are_one_part() {
        assert_eq!(conjuncts("(or a b)"), vec!["(or a b)"]);
        assert_eq!(conjuncts("true"), vec!["true"]);
        assert_eq!(
            conjuncts("(and a b) (and c d)"),
            vec!["(and a b) (and c d)"]
        );
    }
}
