//! The detector proper: traces stream in, every distinct reached state is a sample, and each
//! sample updates the per-variable statistics and the pair trackers (Daikon's "check every
//! candidate against every sample, destroy the falsified ones").
//!
//! A state already seen (in this run or an earlier one) is skipped: it can neither falsify nor
//! further justify anything. Within a sample, a candidate is looked at only where one of its
//! variables changed since the previous state of the run: elsewhere it sees the same values as
//! before. Candidates come in [`Group`]s: the unconditional one, and with splitting one per
//! condition. When splitting on actions, the engine also decides in every state which actions
//! have an enabled instance (once per distinct state) and hands that to the frame.

use crate::candidates::GrammarOptions;
use crate::frame::{Cell, Frame};
use crate::group::Group;
use crate::invariant::{Finding, Witness};
use crate::vars::{Term, VarModel};
use interpreter::machine::Machine;
use interpreter::trace::Trace;
use interpreter::value::{Printer, Value};
use rustc_hash::FxHashMap;
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
    /// Conditions split on.
    pub conditions: u64,
}

/// Streams traces of one machine into candidates.
pub struct Engine<'m, 's> {
    machine: &'m Machine<'s>,
    model: &'m VarModel,
    frame: Frame,
    groups: Vec<Group>,
    seen: FxHashSet<u64>,
    counts: Counts,
    /// Whether conditions on actions are used.
    split_actions: bool,
    /// Which actions had an enabled instance, by state fingerprint (`None`: evaluation failed).
    enabled: FxHashMap<u64, Vec<Option<bool>>>,
    /// The action splits whose evaluation failed in some state: their conditions are dropped.
    broken: Vec<bool>,
    /// The enabledness of each action split in the previous state of the run (empty at a start).
    last_enabled: Vec<Option<bool>>,
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
        let mut groups = vec![Group::unconditional(model, grammar)];
        if grammar.split || grammar.split_actions {
            groups.extend(Group::conditional(model, grammar));
        }
        let counts = Counts {
            variables: model.vars.len() as u64,
            pairs: groups.iter().map(|g| g.pair_count() as u64).sum(),
            conditions: groups.len() as u64 - 1,
            ..Counts::default()
        };
        Engine {
            machine,
            model,
            frame: Frame::new(model),
            groups,
            seen: FxHashSet::default(),
            counts,
            split_actions: grammar.split_actions && !model.actions.is_empty(),
            enabled: FxHashMap::default(),
            broken: vec![false; model.actions.len()],
            last_enabled: Vec::new(),
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
        self.last_enabled.clear();
        self.groups.iter_mut().for_each(Group::restart);
        let printer = Printer::new(self.machine.spec);
        for (k, state) in trace.states.iter().enumerate() {
            self.counts.states += 1;
            self.frame.update(self.model, state);
            if self.split_actions {
                self.set_enabled(state);
            }
            let cells = &self.frame.cells;
            let fresh = self.seen.insert(self.frame.fingerprint());
            self.counts.samples += u64::from(fresh);
            let place = Place {
                label,
                trace,
                state: k,
            };
            let (machine, model) = (self.machine, self.model);
            let witness = |vars: &[usize], at: usize| {
                make_witness(machine, model, &printer, &place, cells, vars, at)
            };
            for group in &mut self.groups {
                group.evaluate(cells);
                if fresh {
                    group.sample(cells, &witness);
                } else {
                    group.skip();
                }
            }
        }
    }

    /// Decides which actions have an enabled instance in `state`, the state the frame holds.
    fn set_enabled(&mut self, state: &[Value]) {
        let (machine, model) = (self.machine, self.model);
        let changed = self.frame.slot_changed();
        let last = &self.last_enabled;
        let values = self
            .enabled
            .entry(self.frame.fingerprint())
            .or_insert_with(|| {
                model
                    .actions
                    .iter()
                    .enumerate()
                    .map(|(k, a)| {
                        // Unchanged inputs, unchanged enabledness (the previous state's answer).
                        let reads = machine.action_reads(a.action);
                        match last.get(k) {
                            Some(v) if !reads.touched(changed) => *v,
                            _ => a.enabled(machine, state),
                        }
                    })
                    .collect()
            })
            .clone();
        for (broken, v) in self.broken.iter_mut().zip(values.iter()) {
            *broken |= v.is_none();
        }
        let flags: Vec<bool> = values.iter().map(|v| v.unwrap_or(false)).collect();
        self.frame.set_enabled(model, &flags);
        self.last_enabled = values;
    }

    /// Every candidate with its evidence; verdicts are `Reported`, `Unjustified` or
    /// `Falsified` (suppression comes later). Conditions on an action whose precondition could
    /// not be evaluated in some state are left out.
    pub fn findings(&self, confidence: f64) -> Vec<Finding> {
        let usable = |g: &&Group| match &g.condition {
            Some(c) => match self.model.vars[c.var].term {
                Term::Enabled(k) => !self.broken[k],
                _ => true,
            },
            None => true,
        };
        self.groups
            .iter()
            .filter(usable)
            .flat_map(|g| g.findings(self.model, confidence))
            .collect()
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
