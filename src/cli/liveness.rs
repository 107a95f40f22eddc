//! `ioa liveness`: MaceMC's search for liveness bugs on instances too large for the exact
//! check. Breadth-first search to `--bfs-depth`, random walks of at most `--depth-max` steps
//! from the states at that depth, and FindCriticalTransition on the first walk that never
//! reaches the goal. Prints the seed, the dead path, the critical step `n: action`, the state
//! change at it and the state against the live path that shares its prefix, and writes both
//! paths as ITF traces `ioa replay` accepts.
//!
//! Verdicts are honest: a dead path is "suspected dead after N walks of length D", never a
//! proof; finding none proves nothing either. Exit codes: 0 no dead path found, 1 a suspected
//! dead path with its critical transition (C1), 2 error, 3 a dead path whose critical
//! transition could not be placed (C2: raise --depth-max).

use super::explore::{count, parse_duration, EXIT_ERROR, EXIT_LIMIT, EXIT_VIOLATION};
use super::model;
use super::output::{print_diagnostics, print_stderr, print_stdout, usage};
use super::{ColorChoice, Format};
use checker::liveness::macemc::{self, BrokenInvariant, Critical, SearchOptions};
use checker::liveness::Property;
use checker::model::MachineModel;
use interpreter::machine::Machine;
use ioa::api::campaign::{CampaignReport, Shard};
use ioa::api::liveness_common::{
    error_diagnostic, exhausted_notes, find_property, log_lines, replay, shape, state_diff,
    write_itf,
};
use ioa::api::macemc::{campaign_records, confidence, found_verdict, throughput, unplaced_verdict};
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of `ioa liveness`.
#[derive(Debug, Clone, clap::Args)]
pub struct LivenessSearchArgs {
    /// The model, its automaton (default: the one the property is about) and universe.
    #[command(flatten)]
    pub model: model::ModelArgs,
    /// The liveness property to search for violations of.
    #[arg(long)]
    pub property: String,
    /// The seed of every random choice (printed; the same seed gives the same report).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random walks from the breadth-first frontier before giving up.
    #[arg(long, default_value_t = 1000)]
    pub walks: u64,
    /// The longest walk, in steps (MaceMC's d_max).
    #[arg(long, default_value_t = 200)]
    pub depth_max: u64,
    /// The breadth-first search's depth; walks start from the states at this depth.
    #[arg(long, default_value_t = 3)]
    pub bfs_depth: u32,
    /// Walks per state when FindCriticalTransition asks whether a state recovers (k).
    #[arg(long, default_value_t = 10)]
    pub recover_walks: u64,
    /// States, in all, that exact searches may store to confirm that a state no walk
    /// recovered from is dead (0: trust the walks).
    #[arg(long, default_value_t = 10_000)]
    pub confirm_states: u64,
    /// Bias walks: `NAME=WEIGHT,…` by action name or kind (input, output, internal).
    #[arg(long)]
    pub weights: Option<String>,
    /// Bound on the breadth-first search's states.
    #[arg(long)]
    pub max_states: Option<u64>,
    /// Stop starting walks after this long (`90`, `5m`).
    #[arg(long)]
    pub time_limit: Option<String>,
    /// Make only the walks w ≡ I (mod N) (`--shard I/N`); `ioa merge` combines the shards'
    /// `--report` files into the whole search's report.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Write the search's report (every walk from the frontier, the first dead path) as JSON.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Write `dead.itf.json` and `live.itf.json` (for `ioa replay`) into this folder.
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
    /// Print only the verdict lines, no timing.
    #[arg(long)]
    pub quiet: bool,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Runs `ioa liveness`.
pub fn run(args: LivenessSearchArgs) -> ExitCode {
    let m = match model::load(
        &args.model.file,
        args.model.universe_file.as_deref(),
        &args.model.universe,
        None,
    ) {
        Ok(m) => m,
        Err((d, s)) => {
            print_diagnostics(&d, &s, Format::Text, args.color);
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let fail = |d: Diagnostic| {
        print_diagnostics(&[d], &m.sources, Format::Text, args.color);
        ExitCode::from(EXIT_ERROR)
    };
    let automaton = match model::pick_for_property(
        &m.spec,
        args.model.automaton.as_deref(),
        Some(&args.property),
    ) {
        Ok(a) => a,
        Err(e) => return usage(e),
    };
    let params = match model::params(&m.spec, automaton, &args.model.params) {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    let liveness = match find_property(&m.spec, automaton, &args.property) {
        Ok(l) => l,
        Err(e) => return usage(e),
    };
    let weights = match ioa::api::runs::parse_weights(args.weights.as_deref()) {
        Ok(w) => w,
        Err(e) => return usage(e),
    };
    let shard = match args.shard.as_deref().map(Shard::parse).transpose() {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    let time_limit = match args.time_limit.as_deref().map(parse_duration).transpose() {
        Ok(t) => t,
        Err(e) => return usage(format!("--time-limit: {e}")),
    };
    let machine = match Machine::new(&m.spec, &m.universe, automaton, params) {
        Ok(mach) => mach,
        Err(e) => return fail(e.to_diagnostic()),
    };
    let model = match MachineModel::new(&machine, None) {
        Ok(x) => x,
        Err(e) => return fail(e.to_diagnostic()),
    };
    let name = &args.property;
    let aut = &m.spec.automata[automaton.0 as usize].name;
    let of_shard = shard
        .map(|s| {
            format!(
                " (shard {}/{}: walks ≡ {} mod {})",
                s.index, s.count, s.index, s.count
            )
        })
        .unwrap_or_default();
    print_stderr(&format!(
        "searching {name} of {aut} ({}): seed {}, breadth first to depth {}, then up to {} of at most {} (k = {}){of_shard}\n",
        shape(liveness),
        args.seed,
        args.bfs_depth,
        count(args.walks, "walk"),
        count(args.depth_max, "step"),
        args.recover_walks
    ));
    let options = SearchOptions {
        bfs_depth: args.bfs_depth,
        walks: args.walks,
        depth_max: args.depth_max,
        recover_walks: args.recover_walks,
        confirm_states: args.confirm_states,
        seed: args.seed,
        weights,
        max_states: args.max_states,
        time_limit,
        shard: shard.map(|s| (s.index, s.count)),
    };
    let property = Property::new(liveness);
    let report = match macemc::search(&model, &property, &options) {
        Ok(r) => r,
        Err(e) => return fail(error_diagnostic(e)),
    };
    let stats = &report.stats;
    if let Some(path) = &args.report {
        let campaign = serde_json::json!({
            "model": args.model.file.display().to_string(),
            "automaton": aut,
            "property": name,
            "params": args.model.params,
            "universe": m.universe_text,
            "seed": args.seed,
            "bfs_depth": args.bfs_depth,
            "depth_max": args.depth_max,
            "recover_walks": args.recover_walks,
            "weights": args.weights,
            "max_states": args.max_states,
            "bfs_states": stats.bfs_states,
            "frontier": stats.frontier,
        });
        let (records, failure) = match campaign_records(&model, &report) {
            Ok(x) => x,
            Err(d) => return fail(d),
        };
        // Without a frontier there is nothing to walk from, in any shard.
        let planned = if stats.frontier == 0 { 0 } else { args.walks };
        let doc = CampaignReport::new("liveness", campaign, planned, shard, records, failure);
        if let Err(e) = doc.write(path) {
            return usage(e);
        }
    }
    let throughput = throughput(stats);
    if !args.quiet {
        print_stderr(&format!(
            "breadth first: {} stored{}; {} at the frontier to walk from\n",
            count(stats.bfs_states, "state"),
            match stats.bfs_limit {
                Some(_) => " (stopped at a limit)",
                None => "",
            },
            count(stats.frontier, "state")
        ));
    }
    if let Some(broken) = &report.broken {
        return report_broken(&args, &m, &model, broken, &throughput);
    }
    let Some(dead) = &report.dead else {
        let why = if stats.frontier == 0 {
            "the breadth-first search left no state to walk from".to_string()
        } else if report.timed_out {
            format!(
                "the time limit stopped the walks after {}",
                count(stats.walks, "walk")
            )
        } else {
            format!(
                "every one of {} reached the goal",
                count(stats.walks, "walk")
            )
        };
        print_stderr(&format!(
            "no dead path found: {why} (at most {} each); this is not a proof\n",
            count(args.depth_max, "step")
        ));
        if !args.quiet {
            print_stderr(&format!("{throughput}\n"));
        }
        return ExitCode::SUCCESS;
    };

    let dead_run = match replay(&model, &dead.path) {
        Ok(r) => r,
        Err(d) => return fail(d),
    };
    let live_run = match &dead.critical {
        Critical::Found { live, .. } => match replay(&model, live) {
            Ok(r) => Some(r),
            Err(d) => return fail(d),
        },
        _ => None,
    };
    let steps = dead_run.trace.steps.len();
    let ending = if dead.deadlocked {
        "ends where no action is enabled"
    } else {
        "never reaches the goal"
    };
    let what = match dead.critical {
        Critical::NotDead { .. } => "walk that never reaches the goal, though its last state can",
        _ => "suspected dead path",
    };
    print_stdout(&format!(
        "{what} ({}; the walk starts at state {}, the obligation at state {}; it {ending}):",
        count(steps as u64, "step"),
        dead.walk_start,
        dead.obligation_at
    ));
    let shown = match &dead.critical {
        Critical::Found { step, .. } => (step + 3).min(steps),
        _ => steps.min(20),
    };
    print_stdout(log_lines(&machine, &dead_run.trace, 1, shown).trim_end());
    if shown < steps {
        print_stdout(&format!(
            "… {} more (see the trace)",
            count((steps - shown) as u64, "step")
        ));
    }
    if let Some(last) = dead_run.trace.states.last() {
        for note in exhausted_notes(&model, last) {
            print_stdout(&format!("in the walk's last state, {note}"));
        }
    }
    let (code, verdict) = match &dead.critical {
        Critical::Found {
            step,
            before,
            after,
            ..
        } => {
            let line = dead_run.trace.log_line(&machine, *step);
            print_stdout(&format!("critical transition (C1): {line}"));
            print_stdout(&format!(
                "how sure: {}",
                confidence(before, after, args.recover_walks, args.confirm_states)
            ));
            print_stdout(&format!("state change at step {step}:"));
            print_stdout(
                state_diff(
                    &machine,
                    &dead_run.trace.states[step - 1],
                    &dead_run.trace.states[*step],
                )
                .trim_end(),
            );
            if let Some(live) = &live_run {
                let shared = step - 1;
                print_stdout(&format!(
                    "live path: shares the first {} and reaches the goal after {} in all",
                    count(shared as u64, "step"),
                    count(live.trace.steps.len() as u64, "step")
                ));
                if live.trace.steps.len() > shared {
                    print_stdout(&format!(
                        "  it takes instead {}",
                        live.trace.log_line(&machine, shared + 1)
                    ));
                    print_stdout(&format!("state {step}, dead path → live path:"));
                    print_stdout(
                        state_diff(
                            &machine,
                            &dead_run.trace.states[*step],
                            &live.trace.states[*step],
                        )
                        .trim_end(),
                    );
                }
            }
            let verdict = found_verdict(
                name,
                *step,
                &line,
                after,
                dead.walk,
                stats.walks,
                args.depth_max,
            );
            (ExitCode::from(EXIT_VIOLATION), verdict)
        }
        other => match unplaced_verdict(name, other) {
            (true, verdict) => (ExitCode::from(EXIT_VIOLATION), verdict),
            (false, verdict) => (ExitCode::from(EXIT_LIMIT), verdict),
        },
    };
    if let Some(dir) = &args.traces {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return usage(format!("cannot create `{}`: {e}", dir.display()));
        }
        let critical = match &dead.critical {
            Critical::Found { step, .. } => Some(*step),
            _ => None,
        };
        let mut written = Vec::new();
        let runs = [
            ("dead.itf.json", Some(&dead_run), "dead"),
            ("live.itf.json", live_run.as_ref(), "live"),
        ];
        for (file, run, kind) in runs {
            let Some(run) = run else { continue };
            let path = dir.join(file);
            let meta = serde_json::json!({
                "property": name, "kind": kind, "critical": critical, "seed": args.seed,
                "walk_start": dead.walk_start, "obligation": dead.obligation_at,
            });
            if let Err(e) = write_itf(
                &path,
                &m,
                &machine,
                &args.model.file,
                &args.model.params,
                run,
                meta,
            ) {
                return usage(format!("cannot write `{}`: {e}", path.display()));
            }
            written.push(path.display().to_string());
        }
        print_stderr(&format!(
            "traces written: {} (check with `ioa replay`)\n",
            written.join(", ")
        ));
    }
    print_stderr(&format!("{verdict}\n"));
    if !args.quiet {
        print_stderr(&format!("{throughput}\n"));
    }
    code
}

/// A walk reached a state that breaks an invariant: the path, re-executed, and the trace.
fn report_broken(
    args: &LivenessSearchArgs,
    m: &model::Model,
    model: &MachineModel,
    broken: &BrokenInvariant,
    throughput: &str,
) -> ExitCode {
    let machine = model.machine();
    let run = match replay(model, &broken.path) {
        Ok(r) => r,
        Err(d) => {
            print_diagnostics(&[d], &m.sources, Format::Text, args.color);
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let steps = run.trace.steps.len();
    let invariant = &m.spec.invariants[broken.invariant].name;
    print_stdout(&format!(
        "invariant `{invariant}` is violated after step {steps}, in a state a walk reached:"
    ));
    let from = steps.saturating_sub(19).max(1);
    if from > 1 {
        print_stdout(&format!("… {} before", count((from - 1) as u64, "step")));
    }
    print_stdout(log_lines(machine, &run.trace, from, steps).trim_end());
    if let Some(dir) = &args.traces {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return usage(format!("cannot create `{}`: {e}", dir.display()));
        }
        let path = dir.join("invariant.itf.json");
        let meta = serde_json::json!({
            "property": args.property, "kind": "invariant", "invariant": invariant,
            "seed": args.seed,
        });
        if let Err(e) = write_itf(
            &path,
            m,
            machine,
            &args.model.file,
            &args.model.params,
            &run,
            meta,
        ) {
            return usage(format!("cannot write `{}`: {e}", path.display()));
        }
        print_stderr(&format!(
            "trace written: {} (check with `ioa replay`)\n",
            path.display()
        ));
    }
    print_stderr(&format!(
        "violated: invariant `{invariant}` fails after {} (found while searching {}; the liveness search stopped there)\n",
        count(steps as u64, "step"),
        args.property
    ));
    if !args.quiet {
        print_stderr(&format!("{throughput}\n"));
    }
    ExitCode::from(EXIT_VIOLATION)
}
