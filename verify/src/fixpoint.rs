//! The Houdini fixpoint (Flanagan and Leino): start from every candidate that survived the
//! runs, drop each one that is false in some start state or that some transition does not
//! preserve assuming all remaining candidates, and repeat until nothing changes. What is left is
//! inductive as a conjunction, so each survivor is a proved invariant; the proof of the target
//! then assumes them. When Z3 gives up on a step under every live candidate, the step is tried
//! assuming the candidate alone (preserved under fewer hypotheses is preserved under more),
//! then on its own with the prover's portfolio. Candidates dropped only because Z3 gave up are
//! offered again at the end, one at a time, against the survivors.

use ioa_lang::ir::{AutomatonId, Spec};
use prover_export::houdini::{CandidateChecker, StepAnswer};
use prover_export::obligations::{invariant, Assumptions};
use prover_export::solve::{self, Budget, Verdict};
use prover_export::EncodeError;

/// Why a candidate was dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dropped {
    /// False in a start state (or Z3 could not show it true there).
    Start {
        /// `failed`, `unknown` or `timeout`.
        verdict: &'static str,
    },
    /// A transition does not preserve it, assuming the candidates alive in that round.
    Step {
        /// The round of the fixpoint (1 = the first).
        round: usize,
        /// The transition, as `assignVal` or `abstain case c`.
        transition: String,
        /// Whether Z3 found a counterexample (`false`: it gave up or timed out).
        counterexample: bool,
        /// Without a counterexample: whether the wall-clock safety limit (rather than the
        /// deterministic budget or Z3's own reasoning) stopped it.
        wall_clock: bool,
        /// The counterexample to induction, as IOA values, when Z3 gave one.
        shown: Option<String>,
    },
}

/// Where the fixpoint is: after the start states (round 0) or after a round.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// The round just finished (0: the start states).
    pub round: usize,
    /// Candidates still alive.
    pub alive: usize,
    /// Candidates the fixpoint started with.
    pub of: usize,
    /// Solver queries so far.
    pub queries: usize,
}

/// The outcome of the fixpoint.
#[derive(Debug, Clone)]
pub struct Fixpoint {
    /// The surviving candidates (indices into `spec.invariants`), inductive together.
    pub survivors: Vec<usize>,
    /// The others, each with the reason it was dropped.
    pub dropped: Vec<(usize, Dropped)>,
    /// Rounds run.
    pub rounds: usize,
    /// Solver queries made.
    pub queries: usize,
    /// The most Z3 resource units one answered query of the shared solvers spent.
    pub largest_query: u64,
}

/// Runs the fixpoint over the invariants `candidates` of automaton `a`: `query` budgets each
/// query of the shared solvers, `check` each obligation checked on its own (the prover's
/// portfolio, which shares its budget among strategies). Budgets are Z3 resource units, so the
/// survivors are the same at any machine load; wall-clock limits only stop runaway queries.
/// `progress` hears after the start states and after each round how many candidates are still
/// alive, of how many, and how many queries were made so far (a fixpoint over a large model
/// runs for minutes).
pub fn houdini(
    spec: &Spec,
    a: AutomatonId,
    candidates: &[usize],
    query: Budget,
    check: Budget,
    progress: &mut dyn FnMut(Progress),
) -> Result<Fixpoint, EncodeError> {
    let mut dropped = Vec::new();
    let mut alive = Vec::new();
    let mut queries = 0;
    for &k in candidates {
        let start = invariant::obligations(spec, k, &Assumptions::Named(vec![]))?;
        queries += 1;
        match solve::check(spec, &start[0], &query).verdict {
            Verdict::Proved => alive.push(k),
            v => dropped.push((k, Dropped::Start { verdict: v.word() })),
        }
    }
    progress(Progress {
        round: 0,
        alive: alive.len(),
        of: candidates.len(),
        queries,
    });
    let bodies: Vec<_> = alive.iter().map(|&k| &spec.invariants[k].body).collect();
    let checker = CandidateChecker::new(spec, a, &bodies, query)?;
    // Positions in `alive` (the checker's numbering).
    let mut live: Vec<usize> = (0..alive.len()).collect();
    let mut rounds = 0;
    loop {
        rounds += 1;
        let mut keep = Vec::new();
        let mut lost = Vec::new();
        for &c in &live {
            let mut verdict = None;
            for t in 0..checker.n_transitions() {
                queries += 1;
                match checker.preserved(t, c, &live) {
                    StepAnswer::Preserved => {}
                    StepAnswer::Broken => {
                        verdict = Some((t, true, false));
                        break;
                    }
                    StepAnswer::Unknown | StepAnswer::Timeout => {
                        // The shared solver gave up under every live candidate. Many
                        // invariants are preserved assuming only themselves, which is a much
                        // smaller query (and proves more: fewer hypotheses).
                        queries += 1;
                        if checker.preserved(t, c, &[c]) == StepAnswer::Preserved {
                            continue;
                        }
                        // Then the obligation on its own, with the prover's portfolio of
                        // strategies, before dropping the candidate.
                        queries += 1;
                        let names: Vec<String> = live
                            .iter()
                            .map(|&l| spec.invariants[alive[l]].name.clone())
                            .collect();
                        let obligations =
                            invariant::obligations(spec, alive[c], &Assumptions::Named(names))?;
                        let verdict_alone = solve::check(spec, &obligations[t + 1], &check);
                        match verdict_alone.verdict {
                            Verdict::Proved => {}
                            Verdict::Failed(_) => {
                                verdict = Some((t, true, false));
                                break;
                            }
                            v => {
                                verdict = Some((t, false, matches!(v, Verdict::Timeout)));
                                break;
                            }
                        }
                    }
                }
            }
            match verdict {
                None => keep.push(c),
                Some((t, counterexample, wall_clock)) => {
                    // Show the counterexample to induction: the obligation on its own, under
                    // the same assumptions, gives it as IOA values.
                    let shown = if counterexample {
                        let names: Vec<String> = live
                            .iter()
                            .map(|&l| spec.invariants[alive[l]].name.clone())
                            .collect();
                        let obligations =
                            invariant::obligations(spec, alive[c], &Assumptions::Named(names))?;
                        queries += 1;
                        match solve::check(spec, &obligations[t + 1], &check).verdict {
                            Verdict::Failed(cex) => Some(cex.render()),
                            _ => None,
                        }
                    } else {
                        None
                    };
                    lost.push((
                        c,
                        Dropped::Step {
                            round: rounds,
                            transition: invariant::transition_label(spec, a, t),
                            counterexample,
                            wall_clock,
                            shown,
                        },
                    ))
                }
            }
        }
        let done = lost.is_empty();
        dropped.extend(lost.into_iter().map(|(c, why)| (alive[c], why)));
        live = keep;
        progress(Progress {
            round: rounds,
            alive: live.len(),
            of: candidates.len(),
            queries,
        });
        if done {
            break;
        }
    }
    // Re-admission: a candidate dropped because Z3 gave up (not because of a counterexample)
    // may be provable once harder candidates are gone. If it is preserved assuming the
    // survivors and itself, the survivors with it are still inductive together (each survivor
    // is preserved under more assumptions too), so it joins them.
    let mut survivors: Vec<usize> = live.into_iter().map(|c| alive[c]).collect();
    loop {
        let mut readmitted = None;
        for (pos, (k, why)) in dropped.iter().enumerate() {
            if !matches!(
                why,
                Dropped::Step {
                    counterexample: false,
                    ..
                }
            ) {
                continue;
            }
            let mut names: Vec<String> = survivors
                .iter()
                .map(|&s| spec.invariants[s].name.clone())
                .collect();
            names.push(spec.invariants[*k].name.clone());
            let obligations = invariant::obligations(spec, *k, &Assumptions::Named(names))?;
            let mut all = true;
            for ob in &obligations[1..] {
                queries += 1;
                if !matches!(solve::check(spec, ob, &check).verdict, Verdict::Proved) {
                    all = false;
                    break;
                }
            }
            if all {
                readmitted = Some(pos);
                break;
            }
        }
        match readmitted {
            Some(pos) => {
                let (k, _) = dropped.remove(pos);
                survivors.push(k);
            }
            None => break,
        }
    }
    survivors.sort_unstable();
    Ok(Fixpoint {
        survivors,
        dropped,
        rounds,
        queries,
        largest_query: checker.largest_query(),
    })
}
