//! `ioa explore --local`: local model checking (LMC) of a composite's nodes, from its start
//! state or from a state of a recorded run (`--from TRACE --at K`), optionally side by side with
//! the global explorer under the same limits (`--compare-global`).

use super::explore::{count, fail, ExploreArgs, EXIT_ERROR, EXIT_LIMIT, EXIT_VIOLATION};
use super::model::Model;
use super::output::{print_diagnostics, print_json, print_stderr, print_stdout, usage, Step};
use super::Format;
use checker::explore::Options;
use checker::local::{LocalReport, LocalVerdict};
use interpreter::machine::Machine;
use interpreter::runner::RunReport;
use ioa::api::explore::ExploreError;
use ioa::api::local::{
    check_local, comparison, conclusion, describe_strategy, eager_line, json, left_out_lines,
    nodes_line, run_global, stats_lines, verdict_line, Conclusion, LocalSettings,
};
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of local model checking.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LocalArgs {
    /// Local model checking: explore each node's local states over a network that keeps every
    /// message (LMC), for composites of nodes and a network (see `ioa system`).
    #[arg(long)]
    pub local: bool,
    /// With --local: the components that form the network (comma-separated), overriding the
    /// composite's `network` clause; without either, the components that share actions with
    /// the nodes (the first component being a node).
    #[arg(long, requires = "local", value_name = "C,D", value_delimiter = ',')]
    pub network: Vec<String>,
    /// With --local: leave out (and list) the invariants that read network state instead of
    /// reporting the run as incomplete (exit 3).
    #[arg(long, requires = "local")]
    pub skip_network_invariants: bool,
    /// With --local: also run the global explorer with the same limits and print both.
    #[arg(long, requires = "local")]
    pub compare_global: bool,
    /// With --local: start from a state of this ITF trace instead of the start state.
    #[arg(long, requires = "local", value_name = "TRACE")]
    pub from: Option<PathBuf>,
    /// With --from: the state to start from (0 is the trace's first; default: its last).
    #[arg(long, requires = "from", value_name = "K")]
    pub at: Option<usize>,
    /// With --local: at most this many local (non-delivery) events per node along a path (the
    /// rounds of LMC §4.2).
    #[arg(long, requires = "local", value_name = "N")]
    pub max_local_events: Option<u32>,
    /// With --local: combine every node state when checking invariants (LMC-GEN), instead of
    /// only the combinations an invariant's shape says can violate it (LMC-OPT).
    #[arg(long, requires = "local")]
    pub all_combinations: bool,
    /// With --local: global states the soundness check may visit per preliminary violation.
    #[arg(long, requires = "local", default_value_t = 1_000_000)]
    pub max_sequences: u64,
    /// With --local: explore every send as an event of its own, even when the model passes the
    /// check that lets a node fire its queued sends as part of the event that queued them.
    #[arg(long, requires = "local")]
    pub no_eager_sends: bool,
}

/// Runs `ioa explore --local`.
pub fn run(args: &ExploreArgs, m: &Model, machine: &Machine, options: Options) -> ExitCode {
    let settings = LocalSettings {
        from: args.local.from.as_deref(),
        at: args.local.at,
        network: &args.local.network,
        max_local_events: args.local.max_local_events,
        max_sequences: args.local.max_sequences,
        all_combinations: args.local.all_combinations,
        strict: !args.invariants.is_empty(),
        no_eager_sends: args.local.no_eager_sends,
    };
    let checked = match check_local(machine, &options, &settings) {
        Ok(c) => c,
        Err(ExploreError::Usage(e)) => return usage(e),
        Err(ExploreError::Diagnostics(d)) => return fail(&d, m, args.color),
    };
    let (report, start) = (checked.report, checked.start);
    let skip = args.local.skip_network_invariants;
    if args.format == Format::Text {
        if !args.quiet {
            let aut = &machine.spec.automata[machine.root.0 as usize].name;
            let (nodes, strategy) = (nodes_line(&report), describe_strategy(machine, &report));
            print_stderr(&format!(
                "local model checking of {aut}: {nodes}; {strategy}\n"
            ));
        }
        print_stderr(&format!("{}\n", eager_line(&report)));
        for line in left_out_lines(machine, &report, skip) {
            print_stderr(&line);
        }
    }
    let run_report = checked.confirmed;
    let code = ExitCode::from(match conclusion(&report, skip) {
        Conclusion::Verified => 0,
        Conclusion::Violated => EXIT_VIOLATION,
        Conclusion::Incomplete => EXIT_LIMIT,
    });
    let global = args
        .local
        .compare_global
        .then(|| run_global(machine, &options, &start));
    if args.format == Format::Json {
        print_json(&json(machine, &report, run_report.as_ref(), &global));
    } else {
        let prefix_steps = start.prefix.steps.len();
        print_text(args, m, machine, &report, run_report.as_ref(), prefix_steps);
        if let Some(g) = &global {
            print_stderr(&comparison(&report, g));
        }
    }
    match run_report {
        Some(r) => write_confirmed(args, m, machine, &r).map_or_else(|c| c, |()| code),
        None => code,
    }
}

/// Writes the confirmed run as an ITF trace when `--trace` asks for one.
fn write_confirmed(args: &ExploreArgs, m: &Model, machine: &Machine, r: &RunReport) -> Step<()> {
    let Some(file) = &args.trace else {
        return Ok(());
    };
    let meta = ioa::api::itf::TraceMeta {
        model: &args.file,
        params: &args.params,
        universe: &m.universe_text,
        choices: &r.choices,
        extra: serde_json::json!({ "explore": { "local": true, "confirmed": true } }),
    };
    super::view::write_trace(file, machine, &r.trace, meta, EXIT_ERROR)?;
    if args.format == Format::Text {
        let file_text = file.display();
        print_stderr(&format!(
            "trace written to {file_text}; check it with `ioa replay {file_text}`\n"
        ));
        print_stderr(&super::view::hint(file));
    }
    Ok(())
}

fn print_text(
    args: &ExploreArgs,
    m: &Model,
    machine: &Machine,
    report: &LocalReport,
    run: Option<&RunReport>,
    prefix_steps: usize,
) {
    let s = &report.stats;
    match &report.verdict {
        LocalVerdict::NoViolation { .. } | LocalVerdict::Limit(_) => print_stderr(&verdict_line(
            machine,
            report,
            args.local.skip_network_invariants,
        )),
        LocalVerdict::Violated { .. } => {
            let r = run.expect("a confirmed run");
            for k in 1..=r.trace.steps.len() {
                print_stdout(&r.trace.log_line(machine, k));
            }
            if let Some(d) = ioa::api::diagnose::stop_diagnostic(machine, r) {
                print_diagnostics(&[d], &m.sources, Format::Text, args.color);
            }
            let from = if prefix_steps > 0 {
                format!(" after the {prefix_steps} step(s) of the trace it started from")
            } else {
                String::new()
            };
            print_stderr(&format!(
                "confirmed violation: a run of {}{from}, replayed by the interpreter\n",
                count((r.trace.steps.len() - prefix_steps) as u64, "step")
            ));
        }
    }
    for line in stats_lines(report) {
        print_stderr(&format!("{line}\n"));
    }
    if !args.quiet {
        print_stderr(&format!("time {:.3} s\n", s.elapsed.as_secs_f64()));
    }
}
