//! Running obligations through Z3 in process (the `z3` crate, linked against the system
//! libz3). *Proved* is reported only when Z3 answers unsat for the negated goal; sat gives a
//! counterexample read back as IOA values ([`model`]); anything else is *unknown* with Z3's
//! reason, *exhausted* (the deterministic resource budget, [`budget`], ran out) or *timeout*
//! (the wall-clock safety limit ran out: the one verdict that depends on the machine's load).

pub mod budget;
mod ground;
mod instances;
pub mod model;
pub mod pointwise;
pub mod split;

use crate::obligations::Obligation;
pub use budget::Budget;
pub use budget::Deadline;
use ioa_lang::ir::Spec;
use std::time::Duration;
use z3::ast::Bool;
use z3::{Params, SatResult, Solver};

/// The outcome of one obligation.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Z3 found the negated goal unsatisfiable.
    Proved,
    /// Z3 found a model of the negated goal.
    Failed(model::Counterexample),
    /// Z3 gave up, with its reason.
    Unknown(String),
    /// Z3 spent the whole resource budget without an answer (deterministic).
    Exhausted,
    /// The wall-clock safety limit ran out (depends on the machine's load).
    Timeout,
}

impl Verdict {
    /// `proved`, `failed`, `unknown`, `exhausted` or `timeout`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Proved => "proved",
            Verdict::Failed(_) => "failed",
            Verdict::Unknown(_) => "unknown",
            Verdict::Exhausted => "exhausted",
            Verdict::Timeout => "timeout",
        }
    }
}

/// A verdict, how long Z3 took and how much of its budget it used.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Wall-clock time of the check (parsing included).
    pub time: Duration,
    /// Z3 resource units spent by all attempts (deterministic; the check naming the unsat
    /// core is not counted).
    pub rlimit: u64,
    /// For a proof: the labels of the tracked hypotheses in Z3's unsat core (the assumed
    /// invariants and relation the proof used), in the obligation's order; `None` when the
    /// check that names them ran out of its budget (see [`unsat_core`]) and so did leaving
    /// them out one at a time (the private `core_by_deletion`).
    pub core: Option<Vec<String>>,
}

/// One attempt: Z3's configuration and what the script gets appended.
struct Attempt {
    /// Z3's random seed (another seed is another search order).
    seed: u32,
    /// Model-based quantifier instantiation on (needed for counterexamples).
    mbqi: bool,
    /// Bound every uninterpreted sort to this many elements (a search for small
    /// counterexamples: a model found is a genuine one, unsat proves nothing).
    bound: Option<usize>,
}

/// The unbounded checks, in the order they are tried: E-matching alone (`mbqi` off: it proves
/// what instantiating by patterns proves, and gives up at once when that saturates), then
/// model-based instantiation with three random seeds. A proof's cost varies severalfold with the
/// seed (Inv3 of Global1 at `abstain`: 2.6 M units with seed 0, 9.5 M with seed 1, over 12 M with
/// seed 2), so a seed that stalls is given up for the next within the budget.
const UNBOUNDED: [Attempt; 4] = [
    Attempt {
        seed: 0,
        mbqi: false,
        bound: None,
    },
    Attempt {
        seed: 0,
        mbqi: true,
        bound: None,
    },
    Attempt {
        seed: 1,
        mbqi: true,
        bound: None,
    },
    Attempt {
        seed: 2,
        mbqi: true,
        bound: None,
    },
];

/// Searches for small counterexamples (2 and 3 elements per uninterpreted sort).
const BOUNDED: [Attempt; 2] = [
    Attempt {
        seed: 0,
        mbqi: true,
        bound: Some(2),
    },
    Attempt {
        seed: 0,
        mbqi: true,
        bound: Some(3),
    },
];

/// The clause-by-clause check of an undecided obligation ([`split`]) may spend this many times
/// the obligation's budget: one hard clause gets most of it, and the portfolio then shares its
/// part among four strategies (the `ballots` clause of Paxos → Global1's `prepare` needs 17 M
/// units of one of them).
const SPLIT_BUDGET: u64 = 2;

/// The first round gives every attempt 1/1000 of the budget (most obligations need under
/// 20 000 units); the second round shares what is left among the unbounded checks.
const FIRST_ROUND_SHARE: u64 = 1000;

/// What one attempt answered and spent.
struct Tried {
    verdict: Verdict,
    spent: u64,
}

/// Checks one obligation within `budget`. Z3's heuristics are fragile on quantified formulas
/// (a proof's cost varies tenfold with the random seed), so the resource budget is shared by a
/// small portfolio: first every check with 1/1000 of the budget (the unbounded checks of the
/// private `UNBOUNDED` list, then searches for counterexamples over universes of 2 and 3
/// elements per uninterpreted sort), then the unbounded checks again in order, each with an
/// equal share of what is left. Only unbounded checks may prove; any check may refute. Every
/// share is counted in Z3's resource units, so the verdict is the same at any machine load; the
/// wall-clock limit only stops a runaway check, and its expiry is reported as
/// [`Verdict::Timeout`].
///
/// A counterexample to a script with a `subset` of a `lambda` is checked again, within the same
/// budget, in the pointwise encoding of [`pointwise`] (Z3 4.8 gives models of the first that
/// violate its own hypotheses): it is reported only when the pointwise encoding confirms one,
/// and a proof there is a proof. Other verdicts stand (asking the pointwise encoding after every
/// unproved check would double their cost, and the proofs it adds have leaves Isabelle cannot
/// close quickly: all 24 candidate invariants of `ioa verify`'s Global1 at `abstain`).
///
/// An obligation the portfolio leaves undecided (exhausted or unknown) whose goal is a
/// conjunction is asked again clause by clause ([`split::check_parts`]), within a second budget
/// of `SPLIT_BUDGET` times the size: proved when every clause is, refuted when one is.
pub fn check(spec: &Spec, ob: &Obligation, budget: &Budget) -> Outcome {
    let whole = check_whole(spec, ob, budget);
    if !matches!(whole.verdict, Verdict::Exhausted | Verdict::Unknown(_)) {
        return whole;
    }
    let Some(parts) = split::parts(ob) else {
        return whole;
    };
    let split_budget = Budget::new(budget.rlimit.saturating_mul(SPLIT_BUDGET), budget.wall);
    let split = split::check_parts(&parts, &split_budget, |part, b| check_whole(spec, part, b));
    let core = split.core.map(|used| {
        ob.hypotheses
            .iter()
            .filter(|(label, _)| used.contains(label))
            .map(|(label, _)| label.clone())
            .collect()
    });
    let verdict = match split.verdict {
        Verdict::Exhausted | Verdict::Unknown(_) => whole.verdict,
        v => v,
    };
    Outcome {
        verdict,
        time: whole.time + split.time,
        rlimit: whole.rlimit + split.rlimit,
        core,
    }
}

/// [`check`] of the whole goal: the portfolio, and the pointwise encoding for a counterexample
/// with `subset`.
fn check_whole(spec: &Spec, ob: &Obligation, budget: &Budget) -> Outcome {
    let first = check_script(spec, ob, budget);
    if !matches!(first.verdict, Verdict::Failed(_)) {
        return first;
    }
    let Some(script) = pointwise::pointwise_subsets(&ob.script) else {
        return first;
    };
    let again = Obligation {
        script,
        ..ob.clone()
    };
    let second = check_script(spec, &again, budget);
    let (time, rlimit) = (first.time + second.time, first.rlimit + second.rlimit);
    match second.verdict {
        Verdict::Proved | Verdict::Failed(_) => Outcome {
            time,
            rlimit,
            ..second
        },
        _ => Outcome {
            verdict: Verdict::Unknown(
                "Z3 gave a model for `subset` of a set read out of an array, and the pointwise encoding of the same obligation confirmed no counterexample within the budget".into(),
            ),
            core: None,
            time,
            rlimit,
        },
    }
}

/// Counterexamples to `ob` over small universes (2, then 3 elements per uninterpreted sort),
/// each search within a tenth of the budget: models there are finite tables, which read back
/// completely where an unbounded search's model-based instantiation leaves functions defined
/// through projections `ioa prove` cannot evaluate. `ioa prove` asks for them when the
/// interpreter does not confirm the first model. Any one found is a model of the whole script.
pub fn small_counterexamples(
    spec: &Spec,
    ob: &Obligation,
    budget: &Budget,
) -> Vec<model::Counterexample> {
    let deadline = Deadline::after(budget.wall);
    let units = (budget.rlimit / 10).max(1);
    let mut out = Vec::new();
    for attempt in &BOUNDED {
        if deadline.expired() {
            break;
        }
        let tried = z3::with_z3_config(&z3::Config::new(), || {
            attempt_check(spec, ob, units, &deadline, attempt)
        });
        if let Verdict::Failed(cex) = tried.verdict {
            out.push(cex);
        }
    }
    out
}

/// [`check`] of the obligation's script as it is.
fn check_script(spec: &Spec, ob: &Obligation, budget: &Budget) -> Outcome {
    portfolio(budget, true, |attempt, share, deadline| {
        let tried = attempt_check(spec, ob, share, deadline, attempt);
        if !matches!(tried.verdict, Verdict::Proved) || attempt.bound.is_some() {
            return (tried, None);
        }
        // Naming the core costs about what the proof did (often more); a proof that took
        // more than the core's cap is not repeated. The core's checks are bounded by their own
        // resource budgets, under a safety limit of their own: the obligation's wall clock (a
        // few seconds for the export's hints) must not make the core depend on the machine's
        // load.
        let core = if tried.spent <= CORE_MAX_UNITS {
            let units = (2 * tried.spent).clamp(CORE_MIN_UNITS, CORE_MAX_UNITS);
            let limit = Deadline::after(Duration::from_secs_f64(budget::DEFAULT_WALL_SECONDS));
            z3::with_z3_config(&z3::Config::new(), || unsat_core(ob, units, &limit).0)
                .or_else(|| core_by_deletion(ob, attempt, tried.spent, &limit))
        } else {
            None
        };
        (tried, core)
    })
}

/// As [`check`], but every attempt checks with the hypotheses' guards as assumptions
/// (`check-sat-assuming`), so that a proof names its unsat core in the same attempt: the core
/// costs nothing beyond the proof (a second check naming it may run far longer than the proof
/// did). Only the hypotheses labelled in `only` are assumed when it is given (the others are
/// left free: a proof from fewer hypotheses is still a proof; a model is then no counterexample
/// to the obligation, so only the unbounded attempts run and only a proof is reported as such).
/// The Isabelle export asks its order sub-obligations this way: their proofs take millions of
/// units, and only their cores make the leaves small.
pub fn check_naming_core(ob: &Obligation, budget: &Budget, only: Option<&[String]>) -> Outcome {
    portfolio(budget, false, |attempt, share, deadline| {
        attempt_assuming(ob, share, deadline, attempt, only)
    })
}

/// The portfolio of [`check`]: `try_one(attempt, share, deadline)` runs one attempt in a
/// fresh Z3 context (Z3's search, and its resource count, depend on the history of its
/// context, and a verdict must depend only on the obligation's text and budget) and answers
/// with the attempt's verdict and, for a proof, its unsat core. With `bounded`, the searches for
/// small counterexamples of [`BOUNDED`] run in the first round too.
fn portfolio(
    budget: &Budget,
    bounded: bool,
    try_one: impl Fn(&Attempt, u64, &Deadline) -> (Tried, Option<Vec<String>>) + Sync,
) -> Outcome {
    let deadline = Deadline::after(budget.wall);
    let mut spent = 0u64;
    let mut last = Verdict::Exhausted;
    let first_share = (budget.rlimit / FIRST_ROUND_SHARE).max(1);
    let small: &[Attempt] = if bounded { &BOUNDED } else { &[] };
    let plan = UNBOUNDED
        .iter()
        .chain(small.iter())
        .map(|a| (a, None))
        .chain(
            UNBOUNDED
                .iter()
                .enumerate()
                .map(|(k, a)| (a, Some(UNBOUNDED.len() - k))),
        );
    for (attempt, second_round_left) in plan {
        let share = match second_round_left {
            None => first_share,
            Some(n) => budget.rlimit.saturating_sub(spent) / n as u64,
        };
        if share == 0 {
            break;
        }
        if deadline.expired() {
            last = Verdict::Timeout;
            break;
        }
        let (tried, core) =
            z3::with_z3_config(&z3::Config::new(), || try_one(attempt, share, &deadline));
        spent += tried.spent;
        let done = |verdict, core| Outcome {
            verdict,
            time: deadline.elapsed(),
            rlimit: spent,
            core,
        };
        match tried.verdict {
            Verdict::Proved if attempt.bound.is_some() => {}
            Verdict::Proved => return done(Verdict::Proved, core),
            v @ Verdict::Failed(_) => return done(v, None),
            Verdict::Timeout => {
                last = Verdict::Timeout;
                break;
            }
            v @ Verdict::Unknown(_) if attempt.bound.is_none() => last = v,
            _ => {}
        }
    }
    Outcome {
        verdict: last,
        time: deadline.elapsed(),
        rlimit: spent,
        core: None,
    }
}

/// One attempt of [`check_naming_core`]: the script checked with the guards of the hypotheses
/// in `only` (all when `None`) as assumptions; on a proof, the labels of the core's guards in
/// the obligation's order. A model is reported as [`Verdict::Unknown`] (with hypotheses left
/// out it refutes nothing).
fn attempt_assuming(
    ob: &Obligation,
    units: u64,
    deadline: &Deadline,
    attempt: &Attempt,
    only: Option<&[String]>,
) -> (Tried, Option<Vec<String>>) {
    let solver = attempt_solver(units, deadline, attempt);
    solver.from_string(ob.script.as_str());
    if !parsed_completely(&solver, &ob.script) {
        let verdict = Verdict::Unknown("internal error: Z3 rejected the generated SMT-LIB2".into());
        return (Tried { verdict, spent: 0 }, None);
    }
    let assumed: Vec<&(String, String)> = ob
        .hypotheses
        .iter()
        .filter(|(label, _)| only.is_none_or(|o| o.contains(label)))
        .collect();
    let (result, spent, core) = check_assuming(&solver, &assumed);
    match result {
        SatResult::Unsat => {
            let verdict = Verdict::Proved;
            (Tried { verdict, spent }, core)
        }
        SatResult::Sat => {
            let verdict = Verdict::Unknown("a model (not every hypothesis assumed)".into());
            (Tried { verdict, spent }, None)
        }
        SatResult::Unknown => {
            let reason = solver
                .get_reason_unknown()
                .unwrap_or_else(|| "no reason given".into());
            let verdict = unknown_verdict(reason, spent, units, deadline);
            (Tried { verdict, spent }, None)
        }
    }
}

/// The budget of the check that names the hypotheses a proof used: twice what the proof took,
/// within these bounds (it is not part of the obligation's budget: the verdict never waits
/// for it).
const CORE_MIN_UNITS: u64 = 1_000_000;
const CORE_MAX_UNITS: u64 = 2_000_000;

/// The hypotheses of a proved obligation that Z3's unsat core names: the script checked with
/// every hypothesis guard as an assumption, within `units` (the core is not minimised: it may
/// name a hypothesis the proof could do without). The proof
/// itself is searched with the guards asserted, which Z3 decides several times faster on
/// quantified obligations than with assumptions; this second check only names what was used,
/// and `None` says it ran out of its budget. Returns the core and the units spent.
pub fn unsat_core(ob: &Obligation, units: u64, deadline: &Deadline) -> (Option<Vec<String>>, u64) {
    if ob.hypotheses.is_empty() {
        return (Some(vec![]), 0);
    }
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32("rlimit", budget::param(units));
    params.set_u32("timeout", deadline.millis_left());
    // No `core.minimize`: Z3 4.8.12 minimises outside its resource and time limits (a
    // simulation step spent minutes there).
    solver.set_params(&params);
    solver.from_string(ob.script.as_str());
    let all: Vec<&(String, String)> = ob.hypotheses.iter().collect();
    let (_, spent, core) = check_assuming(&solver, &all);
    (core, spent)
}

/// Checks `solver` with the guards of `hypotheses` as assumptions: Z3's answer, the units it
/// spent and, on unsat, the labels of the hypotheses whose guards are in its core (in the
/// order of `hypotheses`).
fn check_assuming(
    solver: &Solver,
    hypotheses: &[&(String, String)],
) -> (SatResult, u64, Option<Vec<String>>) {
    let guards: Vec<Bool> = hypotheses
        .iter()
        .map(|(_, g)| Bool::new_const(g.as_str()))
        .collect();
    let before = budget::count(solver);
    let result = solver.check_assumptions(&guards);
    let spent = budget::count(solver).saturating_sub(before);
    if result != SatResult::Unsat {
        return (result, spent, None);
    }
    let used: Vec<String> = solver
        .get_unsat_core()
        .iter()
        .map(|c| c.to_string())
        .collect();
    let core = hypotheses
        .iter()
        .filter(|(_, g)| used.contains(g))
        .map(|(label, _)| label.clone())
        .collect();
    (result, spent, Some(core))
}

/// What the checks of [`core_by_deletion`] may spend together, and each at least (a check gets
/// four times what the proof took, within these bounds).
const DELETION_MAX_UNITS: u64 = 2_000_000;
const DELETION_MIN_UNITS: u64 = 100_000;

/// The hypotheses a proof needs, found by leaving them out one at a time, when the check with
/// assumptions ([`unsat_core`]) runs out of its budget: with the guards asserted, as the proof
/// was searched (`attempt`: its configuration), Z3 may decide an obligation tens of times faster
/// than with them assumed (LCR's `QueueAboveOwnUid` at `send`: 33 thousand units against 1.2
/// million). Each hypothesis in turn is left out of the set kept so far, and dropped when Z3
/// still proves the goal without it. What is left is a set of hypotheses that Z3 proved the goal
/// from, none of which could be left out within the per-check budget. `None` when the checks
/// together would spend more than [`DELETION_MAX_UNITS`] or the wall-clock deadline passes.
fn core_by_deletion(
    ob: &Obligation,
    attempt: &Attempt,
    proof_units: u64,
    deadline: &Deadline,
) -> Option<Vec<String>> {
    let units = (4 * proof_units).clamp(DELETION_MIN_UNITS, DELETION_MAX_UNITS);
    let mut keep = vec![true; ob.hypotheses.len()];
    let mut spent = 0u64;
    for k in 0..keep.len() {
        if spent + units > DELETION_MAX_UNITS || deadline.expired() {
            return None;
        }
        keep[k] = false;
        let (proved, used) = z3::with_z3_config(&z3::Config::new(), || {
            proves_with(ob, &keep, units, deadline, attempt)
        });
        spent += used;
        keep[k] = !proved;
    }
    Some(
        ob.hypotheses
            .iter()
            .zip(&keep)
            .filter(|(_, kept)| **kept)
            .map(|((label, _), _)| label.clone())
            .collect(),
    )
}

/// Whether Z3 proves `ob` from the hypotheses whose `keep` is set (their guards asserted, the
/// others left free), within `units`; and the units it spent.
fn proves_with(
    ob: &Obligation,
    keep: &[bool],
    units: u64,
    deadline: &Deadline,
    attempt: &Attempt,
) -> (bool, u64) {
    let solver = attempt_solver(units, deadline, attempt);
    solver.from_string(ob.script.as_str());
    for ((_, g), _) in ob.hypotheses.iter().zip(keep).filter(|(_, k)| **k) {
        solver.assert(Bool::new_const(g.as_str()));
    }
    let before = budget::count(&solver);
    let result = solver.check();
    let spent = budget::count(&solver).saturating_sub(before);
    (result == SatResult::Unsat, spent)
}

/// `script` with every uninterpreted sort it declares limited to `k` elements: a search for
/// small counterexamples (sat is a genuine counterexample; unsat proves nothing). `ioa`'s
/// portfolio and the SMT-LIB2 test use it; append `(check-sat)` to run it.
pub fn bounded_script(script: &str, k: usize) -> String {
    let mut out = script.to_string();
    for sort in declared_sorts(script) {
        let names: Vec<String> = (0..k).map(|i| format!("bound.{sort}.{i}")).collect();
        for n in &names {
            out.push_str(&format!("(declare-const {n} {sort})\n"));
        }
        let eqs: Vec<String> = names.iter().map(|n| format!("(= x {n})")).collect();
        out.push_str(&format!(
            "(assert (forall ((x {sort})) (or {})))\n",
            eqs.join(" ")
        ));
    }
    out
}

/// Whether Z3 took every assertion of `script` (a rejected script leaves fewer: the parser
/// stops at the first error, and the crate reports none).
pub fn parsed_completely(solver: &Solver, script: &str) -> bool {
    let expected = script.lines().filter(|l| l.starts_with("(assert ")).count();
    solver.get_assertions().len() == expected
}

/// The uninterpreted sorts a script declares.
fn declared_sorts(script: &str) -> Vec<&str> {
    script
        .lines()
        .filter_map(|l| l.strip_prefix("(declare-sort "))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect()
}

fn attempt_check(
    spec: &Spec,
    ob: &Obligation,
    units: u64,
    deadline: &Deadline,
    attempt: &Attempt,
) -> Tried {
    let solver = attempt_solver(units, deadline, attempt);
    let script = match attempt.bound {
        Some(k) => bounded_script(&ob.script, k),
        None => ob.script.clone(),
    };
    solver.from_string(script.as_str());
    if !parsed_completely(&solver, &script) {
        return Tried {
            verdict: Verdict::Unknown(
                "internal error: Z3 rejected the generated SMT-LIB2 (run `ioa export smt` and `z3` on the file to see why)".into(),
            ),
            spent: 0,
        };
    }
    for (_, g) in &ob.hypotheses {
        solver.assert(Bool::new_const(g.as_str()));
    }
    let before = budget::count(&solver);
    let result = solver.check();
    let spent = budget::count(&solver).saturating_sub(before);
    let verdict = match result {
        SatResult::Unsat => Verdict::Proved,
        SatResult::Sat => match solver.get_model() {
            Some(m) => Verdict::Failed(model::counterexample(spec, ob, &m)),
            None => Verdict::Unknown("Z3 said sat but gave no model".into()),
        },
        SatResult::Unknown => {
            let reason = solver
                .get_reason_unknown()
                .unwrap_or_else(|| "no reason given".into());
            unknown_verdict(reason, spent, units, deadline)
        }
    };
    Tried { verdict, spent }
}

/// What Z3 makes of an obligation with only some of its hypotheses assumed.
pub enum Partial {
    /// Unsat: the goal follows from those hypotheses (so from all of them), which the core names.
    Proved(Option<Vec<String>>),
    /// A model of those hypotheses in which the step falsifies the goal: a counterexample to the
    /// whole obligation only if the others hold in it too, which the caller checks.
    Model(model::Counterexample),
    /// No answer within the units.
    Undecided,
}

/// The obligation checked with the guards of the hypotheses labelled in `only` assumed and the
/// others left free, within `units` (the honest-counterexample search of `ioa prove` grows
/// `only` from the hypotheses the interpreter finds false in each model). Z3's model-based
/// instantiation finds models of a few quantified hypotheses where it gives up on all of them:
/// `LastVoteBelowPromise` of the composite Paxos with the promise check dropped has a model in
/// 15 thousand units with itself assumed, and none with its 27 hypotheses.
/// Several configurations are tried in turn, each within `units`; a model `useful` rejects
/// (one the caller can learn nothing from) makes the search go on to the next. Returns the
/// answer and the units spent.
pub fn check_assuming_only(
    spec: &Spec,
    ob: &Obligation,
    units: u64,
    wall: Duration,
    only: &[String],
    useful: &mut dyn FnMut(&model::Counterexample) -> bool,
) -> (Partial, u64) {
    let deadline = Deadline::after(wall);
    // The other hypotheses are left out of the script, not merely unassumed: Z3 4.8.12's
    // model-based instantiation gives up ("incomplete quantifiers") on quantified formulas
    // behind guards it may set false, as it does on them assumed. So are the axioms reading a
    // record's integer field back from its constructor (`∀ f0: Int. Node.location(mk_Node(f0))
    // = f0`), which no finite model satisfies, and the records' extensionality axioms
    // (`∀ t u: Vote. t.ballot = u.ballot ∧ t.value = u.value ⇒ t = u`), on which the same
    // instantiation gives up: a model of the weaker script may be no counterexample, and the
    // interpreter, which judges every model, says so.
    let mut dropped: Vec<String> = ob
        .hypotheses
        .iter()
        .filter(|(label, _)| !only.contains(label))
        .map(|(_, guard)| format!("(assert (=> {guard} "))
        .collect();
    dropped.push("(assert (forall ((f0 Int))".into());
    let extensionality = |l: &str| l.starts_with("(assert (forall ((t ") && l.contains(") (u ");
    let kept: Vec<&str> = ob
        .script
        .lines()
        .filter(|l| !dropped.iter().any(|d| l.starts_with(d.as_str())))
        .collect();
    let script: String = kept
        .iter()
        .filter(|l| !extensionality(l))
        .flat_map(|l| [*l, "\n"])
        .collect();
    // The grounded search keeps the extensionality axioms: expanded over finitely many
    // elements they are quantifier-free, and without them two records of a model may have the
    // same fields (two nodes at one location), a state the interpreter cannot build.
    let with_extensionality: String = kept.iter().flat_map(|l| [*l, "\n"]).collect();
    let mut spent = 0;
    for (seed, ematching) in SEARCHES {
        let (partial, used) = z3::with_z3_config(&z3::Config::new(), || {
            search_once(spec, ob, &script, only, units, &deadline, seed, ematching)
        });
        spent += used;
        match &partial {
            Partial::Undecided => {}
            Partial::Model(m) if !useful(m) => {}
            _ => return (partial, spent),
        }
    }
    // Then over GROUND_SIZES elements per sort, every quantifier over them expanded: a
    // model there is a candidate like any other; unsat proves nothing.
    for k in GROUND_SIZES {
        let Some(grounded) = ground::ground(&with_extensionality, k) else {
            break;
        };
        let (partial, used) = z3::with_z3_config(&z3::Config::new(), || {
            search_once(
                spec,
                ob,
                &grounded,
                only,
                units.saturating_mul(GROUND_SHARE_FACTOR),
                &deadline,
                0,
                true,
            )
        });
        spent += used;
        if let Partial::Model(m) = &partial {
            if useful(m) {
                return (partial, spent);
            }
        }
    }
    (Partial::Undecided, spent)
}

/// The universe sizes of the grounded searches of [`check_assuming_only`].
const GROUND_SIZES: [usize; 2] = [2, 3];

/// A grounded search may spend this many times the units of one model-based search: it is
/// the one that finds models of many quantified hypotheses (the LMC papers' bug1 planted in
/// the composite Paxos needs about 2 M units over 3 elements per sort, with twelve
/// hypotheses), where the others give up early or not at all.
const GROUND_SHARE_FACTOR: u64 = 4;

/// The configurations [`check_assuming_only`] tries in turn, each within its units: random
/// seed and whether E-matching runs beside model-based instantiation. On the five hypotheses
/// of `LastVoteBelowPromise` at `recvPropose` (promise check dropped) seed 0 gives up after
/// 12.8 M units, seed 1 finds a model in 39 thousand, and model-based instantiation alone in 32
/// thousand.
const SEARCHES: [(u32, bool); 3] = [(0, true), (1, true), (0, false)];

/// One search of [`check_assuming_only`] in the current context.
#[allow(clippy::too_many_arguments)]
fn search_once(
    spec: &Spec,
    ob: &Obligation,
    script: &str,
    only: &[String],
    units: u64,
    deadline: &Deadline,
    seed: u32,
    ematching: bool,
) -> (Partial, u64) {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32("rlimit", budget::param(units));
    params.set_u32("timeout", deadline.millis_left());
    params.set_u32("random_seed", seed);
    params.set_bool("ematching", ematching);
    solver.set_params(&params);
    solver.from_string(script);
    if !parsed_completely(&solver, script) {
        return (Partial::Undecided, 0);
    }
    let assumed: Vec<&(String, String)> = ob
        .hypotheses
        .iter()
        .filter(|(label, _)| only.contains(label))
        .collect();
    let (result, spent, core) = check_assuming(&solver, &assumed);
    let partial = match result {
        SatResult::Unsat => Partial::Proved(core),
        SatResult::Sat => match solver.get_model() {
            Some(m) => Partial::Model(model::counterexample(spec, ob, &m)),
            None => Partial::Undecided,
        },
        SatResult::Unknown => Partial::Undecided,
    };
    (partial, spent)
}

/// A solver configured as `attempt` says, within `units` and the deadline.
fn attempt_solver(units: u64, deadline: &Deadline, attempt: &Attempt) -> Solver {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32("rlimit", budget::param(units));
    params.set_u32("timeout", deadline.millis_left());
    if !attempt.mbqi {
        params.set_bool("mbqi", false);
    }
    if attempt.seed != 0 {
        params.set_u32("random_seed", attempt.seed);
    }
    solver.set_params(&params);
    solver
}

/// Why Z3 stopped: the resource budget (deterministic), the wall clock, or its own reason.
/// Z3 reports a spent budget as "max. resource limit exceeded" or, when it runs out during a
/// tactic, as "canceled", like an expired timeout; the count and the clock tell them apart.
fn unknown_verdict(reason: String, spent: u64, units: u64, deadline: &Deadline) -> Verdict {
    let stopped = reason.contains("resource limit")
        || reason.contains("canceled")
        || reason.contains("timeout");
    if !stopped {
        Verdict::Unknown(reason)
    } else if spent >= units {
        Verdict::Exhausted
    } else if deadline.expired() || reason.contains("timeout") || reason.contains("canceled") {
        Verdict::Timeout
    } else {
        Verdict::Exhausted
    }
}
