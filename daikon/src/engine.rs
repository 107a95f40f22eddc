//! The detector proper: traces stream in, every distinct reached state is a sample, and each
//! sample updates the per-variable statistics and the pair trackers (Daikon's "check every
//! candidate against every sample, destroy the falsified ones").
//!
//! A state already seen (in this run or an earlier one) is skipped: it can neither falsify nor
//! further justify anything. Within a sample, a candidate is looked at only where one of its
//! variables changed since the previous state of the run: elsewhere it sees the same values as
//! before.

use crate::candidates::{self, GrammarOptions};
use crate::frame::{Cell, Frame};
use crate::invariant::{Finding, Witness};
use crate::track::unary::UnaryStats;
use crate::track::Pair;
use crate::vars::VarModel;
use interpreter::machine::Machine;
use interpreter::trace::Trace;
use interpreter::value::{Printer, Value};
use rustc_hash::{FxHashSet, FxHasher};
use std::hash::{Hash, Hasher};

/// Printed values in witnesses are cut to this many characters.
const MAX_VALUE_TEXT: usize = 120;

/// Counts of what the engine saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Runs fed in.
    pub traces: u64,
    /// States fed in, repeats included.
    pub states: u64,
    /// Distinct states: the samples.
    pub samples: u64,
    /// Variables (state, element and derived).
    pub variables: u64,
    /// Pair trackers.
    pub pairs: u64,
}

/// Streams traces of one machine into candidates.
pub struct Engine<'m, 's> {
    machine: &'m Machine<'s>,
    model: &'m VarModel,
    frame: Frame,
    unary: Vec<UnaryStats>,
    pairs: Vec<Pair>,
    seen: FxHashSet<u64>,
    counts: Counts,
}

/// Where the current sample is, for witnesses.
struct Place<'a> {
    label: &'a str,
    trace: &'a Trace,
    state: usize,
}

impl<'m, 's> Engine<'m, 's> {
    /// An engine for `machine`'s traces over `model`'s variables.
    pub fn new(machine: &'m Machine<'s>, model: &'m VarModel, grammar: GrammarOptions) -> Self {
        let pairs = candidates::pairs(model, grammar);
        let counts = Counts {
            variables: model.vars.len() as u64,
            pairs: pairs.len() as u64,
            ..Counts::default()
        };
        Engine {
            machine,
            model,
            frame: Frame::new(model),
            unary: vec![UnaryStats::default(); model.vars.len()],
            pairs,
            seen: FxHashSet::default(),
            counts,
        }
    }

    /// What was seen so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Feeds one run. `label` names it in witnesses (`schedule NormalRun`).
    pub fn add_trace(&mut self, label: &str, trace: &Trace) {
        self.counts.traces += 1;
        self.frame.restart();
        for (k, state) in trace.states.iter().enumerate() {
            self.counts.states += 1;
            self.frame.update(self.model, state);
            if self.seen.insert(fingerprint(state)) {
                self.counts.samples += 1;
                let place = Place {
                    label,
                    trace,
                    state: k,
                };
                self.sample(&place);
            }
        }
    }

    fn sample(&mut self, place: &Place) {
        let model = self.model;
        let cells = &self.frame.cells;
        let printer = Printer::new(self.machine.spec);
        let machine = self.machine;
        for (v, stats) in self.unary.iter_mut().enumerate() {
            if !model.vars[v].proposes {
                continue;
            }
            let cell = &cells[v];
            stats.count(cell.values.len());
            if !cell.any {
                continue;
            }
            for k in 0..cell.values.len() {
                if cell.modified[k] {
                    let witness = || make_witness(machine, model, &printer, place, cells, &[v], k);
                    stats.observe(&cell.values[k], &witness);
                }
            }
        }
        for pair in &mut self.pairs {
            let (ca, cb): (&Cell, &Cell) = (&cells[pair.a], &cells[pair.b]);
            if !(ca.any || cb.any) || !pair.alive() {
                continue;
            }
            let width = ca.values.len().max(cb.values.len());
            for k in 0..width {
                if ca.modified_at(k) || cb.modified_at(k) {
                    let vars = [pair.a, pair.b];
                    let witness = || make_witness(machine, model, &printer, place, cells, &vars, k);
                    pair.observe(ca.at(k), cb.at(k), &witness);
                    if !pair.alive() {
                        break;
                    }
                }
            }
        }
    }

    /// Every candidate with its evidence; verdicts are `Reported`, `Unjustified` or
    /// `Falsified` (suppression comes later).
    pub fn findings(&self, confidence: f64) -> Vec<Finding> {
        let mut out = Vec::new();
        for (v, stats) in self.unary.iter().enumerate() {
            if self.model.vars[v].proposes {
                out.extend(stats.findings(self.model, v, confidence));
            }
        }
        for pair in &self.pairs {
            out.extend(pair.findings(confidence));
        }
        out
    }
}

/// A state's fingerprint (fixed-seed hash, the same in every build and run).
pub fn fingerprint(state: &[Value]) -> u64 {
    let mut h = FxHasher::default();
    state.hash(&mut h);
    h.finish()
}

fn make_witness(
    machine: &Machine,
    model: &VarModel,
    printer: &Printer,
    place: &Place,
    cells: &[Cell],
    vars: &[usize],
    k: usize,
) -> Witness {
    let index = model.index_of(vars).map(|i| {
        let space = &model.indices[i];
        format!("{} = {}", space.var_name, printer.show(&space.carrier[k]))
    });
    let values = vars
        .iter()
        .map(|v| {
            let mut text = printer.show(cells[*v].at(k));
            if text.chars().count() > MAX_VALUE_TEXT {
                text = text.chars().take(MAX_VALUE_TEXT).collect::<String>() + "…";
            }
            (model.vars[*v].name.clone(), text)
        })
        .collect();
    let action = (place.state > 0).then(|| {
        let line = place.trace.log_line(machine, place.state);
        let line = line.split_once(": ").map(|(_, rest)| rest).unwrap_or(&line);
        let suffix = format!(" in automaton {}", model.automaton);
        line.strip_suffix(&suffix).unwrap_or(line).to_string()
    });
    Witness {
        trace: place.label.to_string(),
        state: place.state,
        action,
        index,
        values,
    }
}
