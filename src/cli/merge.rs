//! `ioa merge`: merge the `--report` files of a campaign's shards ([`ioa::api::campaign`]) and
//! print or write the whole campaign's report.

use super::output::{print_stderr, print_stdout};
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `ioa merge`.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// The shards' reports (`--report FILE` of `ioa run`, `pair` or `liveness` with `--shard`).
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// Write the merged report here (default: standard output).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// Runs `ioa merge`: exit 0 when no run failed, 1 when one did, 2 on bad reports.
pub fn run(args: MergeArgs) -> ExitCode {
    let merged = match ioa::api::campaign::merge_files(&args.reports) {
        Ok(m) => m,
        Err(e) => {
            print_stderr(&format!("error: {e}\n"));
            return ExitCode::from(2);
        }
    };
    match &args.output {
        Some(path) => {
            if let Err(e) = merged.write(path) {
                print_stderr(&format!("error: {e}\n"));
                return ExitCode::from(2);
            }
        }
        None => print_stdout(merged.to_text().trim_end()),
    }
    let reports = match args.reports.len() {
        1 => "1 report".to_string(),
        n => format!("{n} reports"),
    };
    print_stderr(&match &merged.failure {
        Some(f) => format!(
            "merged {reports} of {}: {} run(s), first failure at run {} (seed {})\n",
            merged.command,
            merged.totals.runs,
            f.run + 1,
            f.seed
        ),
        None => format!(
            "merged {reports} of {}: {} run(s), {} step(s), none failed\n",
            merged.command, merged.totals.runs, merged.totals.steps
        ),
    });
    if merged.failure.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
