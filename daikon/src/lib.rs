//! Daikon-style detection of likely invariants over automaton traces, printed back as IOA.
//!
//! Every distinct state reached by the runs fed in is a sample. Candidates from a fixed grammar
//! over the automaton's state variables, the elements of its arrays and some derived variables
//! are checked against every sample; those that held are kept if they are unlikely to have held
//! by accident and do not follow from others, and are printed as IOA `invariant` declarations.
//!
//! The parts, in the order data flows through them:
//!
//! - [`vars`]: the variables (state, array and map elements `a[i]`, derived `size(S)`, `A ∩ B`,
//!   the non-`nil` indices and values of `Null`-valued arrays, the non-default keys of other
//!   arrays and of maps);
//! - [`preconditions`]: the actions split on, as Boolean "some instance is enabled" variables;
//! - [`frame`]: their values in one state and which changed since the previous one;
//! - [`candidates`]: which pairs of variables are related, and by what;
//! - [`track`]: the statistics and trackers that samples update, gathered in [`group`]s (one per
//!   condition when splitting);
//! - [`engine`]: feeding traces through frames into the trackers;
//! - [`justify`]: the probability models that decide whether a candidate is convincing;
//! - [`suppress`]: dropping candidates implied by others or by the types;
//! - [`print`](mod@print): IOA text for invariants; [`report`]: numbering, explanations, JSON;
//! - [`dtrace`]: the same traces in Daikon's own `.decls`/`.dtrace` format;
//! - [`transitions`]: per-action pre/post facts (`x' = x + 1`, `A ⊆ A'`, unchanged variables);
//! - [`validate`]: checking the inferred invariants on further random runs.
//!
//! The crate does no I/O: traces come in as [`interpreter::trace::Trace`]s, and text leaves as
//! strings or through `std::io::Write`.

pub mod candidates;
pub mod dtrace;
pub mod engine;
pub mod frame;
pub mod group;
pub mod invariant;
pub mod justify;
pub mod preconditions;
pub mod print;
pub mod report;
pub mod suppress;
pub mod track;
pub mod transitions;
pub mod validate;
pub mod vars;

pub use candidates::GrammarOptions;
pub use engine::Engine;
pub use report::Report;
pub use vars::{DeriveOptions, VarModel};

/// The default confidence: a candidate is reported if the chance that it held by accident is
/// below `1 − 0.99`.
pub const DEFAULT_CONFIDENCE: f64 = 0.99;

/// Options of one detection.
#[derive(Debug, Clone)]
pub struct Options {
    /// Report a candidate only if its chance of holding by accident is below `1 − confidence`.
    pub confidence: f64,
    /// Which derived variables to add.
    pub derive: DeriveOptions,
    /// Which optional parts of the grammar to use.
    pub grammar: GrammarOptions,
    /// Declarations are named `PREFIX1`, `PREFIX2`, ….
    pub prefix: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            confidence: DEFAULT_CONFIDENCE,
            derive: DeriveOptions::all(),
            grammar: GrammarOptions::default(),
            prefix: "Inv_".to_string(),
        }
    }
}

/// Infers invariants of `machine`'s automaton from labelled traces, in one call.
pub fn infer(
    machine: &interpreter::machine::Machine,
    traces: &[(String, interpreter::trace::Trace)],
    options: &Options,
) -> Report {
    infer_with_sources(machine, None, traces, options)
}

/// [`infer`], with the model's source text: needed to split on action preconditions
/// (`options.grammar.split_actions`), whose premises are printed from it.
pub fn infer_with_sources(
    machine: &interpreter::machine::Machine,
    sources: Option<&ioa_lang::source_map::SourceMap>,
    traces: &[(String, interpreter::trace::Trace)],
    options: &Options,
) -> Report {
    let mut model = VarModel::new(machine, options.derive);
    if let (true, Some(sources)) = (options.grammar.split_actions, sources) {
        preconditions::add_action_splits(&mut model, machine, sources);
    }
    let mut engine = Engine::new(machine, &model, options.grammar);
    for (label, trace) in traces {
        engine.add_trace(label, trace);
    }
    let taken: Vec<String> = machine
        .spec
        .invariants
        .iter()
        .map(|i| i.name.clone())
        .collect();
    Report::build(machine.spec, &model, &engine, options, &taken)
}
