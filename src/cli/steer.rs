//! `ioa run --random --steer`: a campaign of seeded random runs of a composite, each run three
//! ways from the same seed — unsteered, steered by consequence prediction, steered with the
//! immediate safety check too — and a table of how many invariant violations steering avoided,
//! how many the immediate check caught, how many steps it changed and what prediction cost.

use super::explore::{count, thousands};
use super::model::Model;
use super::output::{print_diagnostics, print_stderr, Step};
use super::Format;
use checker::steer::SteerOptions;
use interpreter::machine::Machine;
use ioa::api::explore::ExploreError;
use ioa::api::snapshot::Snapshot;
use ioa::api::steer::{steering_campaign, SteerSettings, TraceWithChoices};
use ioa_lang::diagnostics::Diagnostic;
use std::path::Path;
use std::process::ExitCode;

/// The options of execution steering.
#[derive(Debug, Clone, clap::Args)]
pub struct SteerArgs {
    /// With --random: steer each run by consequence prediction (CrystalBall), and report each
    /// seed unsteered, steered, and steered with the immediate safety check.
    #[arg(long, requires = "random")]
    pub steer: bool,
    /// With --steer: predict every this many steps.
    #[arg(long, requires = "steer", default_value_t = 1)]
    pub predict_every: u64,
    /// With --steer: how many steps a prediction looks ahead.
    #[arg(long, requires = "steer", default_value_t = 6)]
    pub predict_depth: u32,
    /// With --steer: states one prediction may visit (a bound that is the same on every
    /// machine, so a seed replays the same run).
    #[arg(long, requires = "steer", default_value_t = 2_000)]
    pub predict_states: u64,
    /// With --steer: predict from the state this many steps old (stale knowledge).
    #[arg(long, requires = "steer", default_value_t = 0)]
    pub view_lag: usize,
    /// With --steer: start every run from a state of this ITF trace (a scenario's first
    /// round, as in CrystalBall's Paxos experiment) instead of the model's start state.
    #[arg(long, requires = "steer", value_name = "TRACE")]
    pub from: Option<std::path::PathBuf>,
    /// With --from: the state to start from (0 is the trace's first; default: its last).
    #[arg(long, requires = "from", value_name = "K")]
    pub at: Option<usize>,
}

/// The run's settings `ioa run` parsed.
pub struct Campaign<'a> {
    pub machine: &'a Machine<'a>,
    pub model_file: &'a Path,
    pub params: &'a [String],
    pub steps: u64,
    pub seed: u64,
    pub runs: u64,
    pub weights: &'a interpreter::runner::Weights,
    pub trace: Option<&'a Path>,
    pub quiet: bool,
    pub color: super::ColorChoice,
}

fn fail(m: &Model, d: Diagnostic, color: super::ColorChoice) -> ExitCode {
    print_diagnostics(&[d], &m.sources, Format::Text, color);
    ExitCode::from(2)
}

/// Runs the campaign.
pub fn run(m: &Model, c: &Campaign, s: &SteerArgs) -> ExitCode {
    let settings = SteerSettings {
        from: s.from.as_deref(),
        at: s.at,
        runs: c.runs,
        seed: c.seed,
        weights: c.weights,
        options: SteerOptions {
            steps: c.steps,
            predict_every: s.predict_every,
            predict_depth: s.predict_depth,
            predict_states: s.predict_states,
            view_lag: s.view_lag,
            immediate_check: false,
            weights: c.weights.clone(),
        },
        want_trace: c.trace.is_some(),
    };
    let mut started = |start: &Snapshot| print_stderr(&start_line(c, s, start));
    let outcome = match steering_campaign(c.machine, &settings, &mut started) {
        Ok(o) => o,
        Err(ExploreError::Usage(e)) => return super::output::usage(e),
        Err(ExploreError::Diagnostics(d)) => {
            print_diagnostics(&d, &m.sources, Format::Text, c.color);
            return ExitCode::from(2);
        }
    };
    let tally = outcome.tally;
    print_stderr(&tally.text(c.quiet));
    if let (Some(path), Some(first)) = (c.trace, outcome.first) {
        if let Err(code) = write_first(m, c, path, first) {
            return code;
        }
    }
    ExitCode::from(u8::from(tally.with_check > 0))
}

/// The campaign's first line: runs, steps, the snapshot it starts from, seed, prediction.
fn start_line(c: &Campaign, s: &SteerArgs, start: &Snapshot) -> String {
    let from = match &s.from {
        Some(path) => format!(
            " from state {} of {}",
            start.prefix.steps.len(),
            path.display()
        ),
        None => String::new(),
    };
    format!(
        "steering campaign: {} of {}{from} from seed {}; prediction every {} step(s), {} ahead, at most {} states, view lag {}\n",
        count(c.runs, "run"),
        count(c.steps, "step"),
        c.seed,
        s.predict_every,
        count(s.predict_depth as u64, "step"),
        thousands(s.predict_states),
        s.view_lag
    )
}

/// Writes the first seed's steered run (with the immediate check) as an ITF trace.
fn write_first(
    m: &Model,
    c: &Campaign,
    path: &Path,
    first: Result<TraceWithChoices, Diagnostic>,
) -> Step<()> {
    let (trace, choices) = first.map_err(|d| fail(m, d, c.color))?;
    let meta = ioa::api::itf::TraceMeta {
        model: c.model_file,
        params: c.params,
        universe: &m.universe_text,
        choices: &choices,
        extra: serde_json::json!({ "steer": { "seed": c.seed } }),
    };
    super::view::write_trace(path, c.machine, &trace, meta, 2)?;
    let path = path.display();
    print_stderr(&format!(
        "the steered run of seed {} (with the immediate check) written to {path}; check it with `ioa replay {path}`\n",
        c.seed,
    ));
    Ok(())
}
