//! `ioa system`: prints a composite as a distributed system — its nodes with their slots in the
//! state vector, the network, the message actions and the class of every action's instances —
//! as the system view (`checker::system`) that the local, consequence and liveness searches read
//! sees it.
//!
//! Exit codes: 0 the view was printed; 1 the model is rejected (it does not check, or the view
//! rejects it); 2 the command line is wrong.

use super::model::{self, Model};
use super::output::{print_diagnostics, print_json, print_stdout, usage};
use super::{ColorChoice, Format};
use interpreter::machine::Machine;
use ioa::api::system::{only_composite, system_view, SystemReport};
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use std::process::ExitCode;

/// Options of `ioa system`.
#[derive(clap::Args)]
pub struct SystemArgs {
    /// The model: file, automaton, parameters, universe.
    #[command(flatten)]
    model: super::model::ModelArgs,
    /// Also list every action instance some component takes part in, with its class and node.
    #[arg(long)]
    instances: bool,
    /// The components that form the network (comma-separated), overriding the composite's
    /// `network` clause; without either, the components that share actions with the nodes.
    #[arg(long, value_name = "C,D", value_delimiter = ',')]
    network: Vec<String>,
    /// Print the view as text or as one JSON document.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

fn fail(diags: &[Diagnostic], m: &Model, args: &SystemArgs) -> ExitCode {
    print_diagnostics(diags, &m.sources, args.format, args.color);
    ExitCode::from(1)
}

/// Runs `ioa system`.
pub fn run(args: SystemArgs) -> ExitCode {
    let m = match model::load(
        &args.model.file,
        args.model.universe_file.as_deref(),
        &args.model.universe,
        None,
    ) {
        Ok(m) => m,
        Err((d, s)) => {
            print_diagnostics(&d, &s, args.format, args.color);
            return ExitCode::from(1);
        }
    };
    let automaton = match args.model.automaton.as_deref() {
        Some(name) => model::pick_automaton(&m.spec, Some(name), None),
        None => only_composite(&m),
    };
    let automaton = match automaton {
        Ok(a) => a,
        Err(e) => return usage(e),
    };
    let params = match model::params(&m.spec, automaton, &args.model.params) {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    let machine = match Machine::new(&m.spec, &m.universe, automaton, params) {
        Ok(mach) => mach,
        Err(e) => return fail(&[e.to_diagnostic()], &m, &args),
    };
    let view = match system_view(&machine, &args.network) {
        Ok(v) => v,
        Err(diags) => return fail(&diags, &m, &args),
    };
    let report = SystemReport::of(&view, args.instances);
    match args.format {
        Format::Text => print_stdout(&report.text()),
        Format::Json => print_json(&report),
    }
    ExitCode::SUCCESS
}
