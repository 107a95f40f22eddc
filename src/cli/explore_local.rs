//! `ioa explore --local`: local model checking (LMC) of a composite's nodes, from its start
//! state or from a state of a recorded run (`--from TRACE --at K`), optionally side by side with
//! the global explorer under the same limits (`--compare-global`).

use super::explore::{count, ExploreArgs, EXIT_ERROR, EXIT_LIMIT, EXIT_VIOLATION};
use super::model::Model;
use super::output::{print_diagnostics, print_stderr, print_stdout, usage};
use super::Format;
use checker::explore::Options;
use checker::local::{LocalReport, LocalVerdict};
use interpreter::machine::Machine;
use interpreter::runner::RunReport;
use ioa::api::explore::ExploreError;
use ioa::api::local::{
    check_local, comparison, describe_strategy, eager_line, json, nodes_line, run_global,
    stats_lines, verdict_line, LocalSettings,
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
        Err(ExploreError::Diagnostics(d)) => return fail(m, &d, args),
    };
    let (report, start) = (checked.report, checked.start);
    let aut = &machine.spec.automata[machine.root.0 as usize].name;
    let strategy = describe_strategy(machine, &report);
    if !args.quiet && args.format == Format::Text {
        print_stderr(&format!(
            "local model checking of {aut}: {}; {strategy}\n",
            nodes_line(&report)
        ));
    }
    if args.format == Format::Text {
        print_stderr(&format!("{}\n", eager_line(&report)));
    }
    if args.format == Format::Text {
        let severity = if args.local.skip_network_invariants {
            "note"
        } else {
            "warning"
        };
        for (k, component) in &report.left_out {
            print_stderr(&format!(
                "{severity}: invariant `{}` is not checked: it reads the network component `{component}`, and local model checking combines node states only\n",
                machine.spec.invariants[*k].name
            ));
        }
    }
    let run_report = checked.confirmed;
    let code = match &report.verdict {
        LocalVerdict::Violated { .. } => ExitCode::from(EXIT_VIOLATION),
        LocalVerdict::Limit(_) => ExitCode::from(EXIT_LIMIT),
        // Exit 0 only for a complete verification: a bound, an unsettled preliminary
        // violation or an invariant left out unasked make the run incomplete.
        LocalVerdict::NoViolation { .. }
            if report.verified()
                || (args.local.skip_network_invariants
                    && report.stats.unsettled == 0
                    && matches!(report.verdict, LocalVerdict::NoViolation { bounded: false })) =>
        {
            ExitCode::SUCCESS
        }
        LocalVerdict::NoViolation { .. } => ExitCode::from(EXIT_LIMIT),
    };
    let global = if args.local.compare_global {
        Some(run_global(machine, &options, &start))
    } else {
        None
    };
    if args.format == Format::Json {
        print_stdout(
            &serde_json::to_string_pretty(&json(machine, &report, run_report.as_ref(), &global))
                .expect("JSON of plain data"),
        );
    } else {
        print_text(
            args,
            m,
            machine,
            &report,
            run_report.as_ref(),
            start.prefix.steps.len(),
        );
        if let Some(g) = &global {
            print_stderr(&comparison(&report, g));
        }
    }
    if let (Some(file), Some(r)) = (&args.trace, &run_report) {
        let written = ioa::api::itf::write_trace(
            file,
            machine,
            &r.trace,
            ioa::api::itf::TraceMeta {
                model: &args.file,
                params: &args.params,
                universe: &m.universe_text,
                choices: &r.choices,
                extra: serde_json::json!({ "explore": { "local": true, "confirmed": true } }),
            },
        );
        if let Err(e) = written {
            print_stderr(&format!(
                "error: cannot write trace `{}`: {e}\n",
                file.display()
            ));
            return ExitCode::from(EXIT_ERROR);
        }
        if args.format == Format::Text {
            print_stderr(&format!(
                "trace written to {}; check it with `ioa replay {}`\n",
                file.display(),
                file.display()
            ));
            print_stderr(&super::view::hint(file));
        }
    }
    code
}

fn fail(m: &Model, diags: &[ioa_lang::diagnostics::Diagnostic], args: &ExploreArgs) -> ExitCode {
    print_diagnostics(diags, &m.sources, Format::Text, args.color);
    ExitCode::from(EXIT_ERROR)
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
