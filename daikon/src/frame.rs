//! The values of every variable in one state, and which of them changed since the previous
//! state of the same run (Daikon's "modified" bit).
//!
//! A [`Frame`] is updated in place from state to state: a variable is recomputed only where one
//! of its inputs changed, and a position counts as modified only if its value really differs.
//! Element variables have one position per index value; other variables have one.
//!
//! The frame also fingerprints the state, rehashing only the state variables that changed.

use crate::vars::{Term, VarModel};
use imbl::OrdSet;
use interpreter::value::Value;
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

/// One variable's values in the current state.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// One value, or one per index value.
    pub values: Vec<Value>,
    /// Whether each position changed since the previous state (all true in a start state).
    pub modified: Vec<bool>,
    /// Whether any position changed.
    pub any: bool,
}

impl Cell {
    /// The value at position `k` (a one-position cell answers every position).
    pub fn at(&self, k: usize) -> &Value {
        if self.values.len() == 1 {
            &self.values[0]
        } else {
            &self.values[k]
        }
    }

    /// Whether position `k` changed (a one-position cell answers every position).
    pub fn modified_at(&self, k: usize) -> bool {
        if self.modified.len() == 1 {
            self.modified[0]
        } else {
            self.modified[k]
        }
    }

    fn set(&mut self, k: usize, value: Value, first: bool) {
        let changed = first || self.values[k] != value;
        if changed {
            self.values[k] = value;
        }
        self.modified[k] = changed;
        self.any |= changed;
    }
}

/// Every variable's values in one state.
#[derive(Debug, Clone)]
pub struct Frame {
    /// One cell per variable of the model.
    pub cells: Vec<Cell>,
    /// The state it holds, slot by slot.
    slots: Vec<Value>,
    /// Whether each slot changed in the last update.
    slot_changed: Vec<bool>,
    /// Each slot's hash.
    slot_hashes: Vec<u64>,
    started: bool,
}

impl Frame {
    /// An empty frame for `model`; the first [`Frame::update`] treats its state as a start state.
    pub fn new(model: &VarModel) -> Frame {
        let cells = (0..model.vars.len())
            .map(|v| {
                let w = model.width(v);
                Cell {
                    values: vec![Value::Bool(false); w],
                    modified: vec![true; w],
                    any: true,
                }
            })
            .collect();
        let n = model.slot_types.len();
        Frame {
            cells,
            slots: vec![Value::Bool(false); n],
            slot_changed: vec![true; n],
            slot_hashes: vec![0; n],
            started: false,
        }
    }

    /// The fingerprint of the state it holds (fixed-seed hashes, the same in every build).
    pub fn fingerprint(&self) -> u64 {
        let mut h = FxHasher::default();
        self.slot_hashes.hash(&mut h);
        h.finish()
    }

    /// Forgets the previous state: the next update starts a new run.
    pub fn restart(&mut self) {
        self.started = false;
    }

    /// Moves the frame to `state`, the successor of the state it holds (or a start state after
    /// [`Frame::new`] or [`Frame::restart`]).
    pub fn update(&mut self, model: &VarModel, state: &[Value]) {
        let first = !self.started;
        self.started = true;
        for (s, value) in state.iter().enumerate() {
            let changed = first || self.slots[s] != *value;
            self.slot_changed[s] = changed;
            if changed {
                self.slots[s] = value.clone();
                let mut h = FxHasher::default();
                value.hash(&mut h);
                self.slot_hashes[s] = h.finish();
            }
        }
        for v in 0..model.vars.len() {
            // Inputs come before the variable, so they are all in `done`.
            let (done, rest) = self.cells.split_at_mut(v);
            let cell = &mut rest[0];
            cell.any = false;
            match &model.vars[v].term {
                Term::Slot(s) => {
                    let changed = self.slot_changed[*s];
                    if changed {
                        cell.values[0] = state[*s].clone();
                    }
                    cell.modified[0] = changed;
                    cell.any = changed;
                }
                Term::Elem(s) => {
                    if !self.slot_changed[*s] {
                        cell.modified.iter_mut().for_each(|m| *m = false);
                    } else if let Value::Array(a) = &state[*s] {
                        let index = model.vars[v].index.expect("elements are indexed");
                        for (k, key) in model.indices[index].carrier.iter().enumerate() {
                            cell.set(k, Value::array_get(a, key), first);
                        }
                    }
                }
                Term::Keys(_) | Term::Values(_) => {
                    let elem = model.vars[v].inputs[0];
                    if first || done[elem].any {
                        let keys = matches!(model.vars[v].term, Term::Keys(_));
                        let index = model.vars[elem].index.expect("elements are indexed");
                        let carrier = &model.indices[index].carrier;
                        let set = non_nil(&done[elem].values, carrier, keys);
                        cell.set(0, Value::Set(set), first);
                    } else {
                        cell.modified[0] = false;
                    }
                }
                Term::Size(input) => {
                    let width = cell.values.len();
                    for k in 0..width {
                        let inp = &done[*input];
                        if first || inp.modified_at(k) {
                            let size = size_of(inp.at(k));
                            cell.set(k, Value::Int(size), first);
                        } else {
                            cell.modified[k] = false;
                        }
                    }
                }
                Term::Inter(a, b) => {
                    let width = cell.values.len();
                    for k in 0..width {
                        let (ca, cb) = (&done[*a], &done[*b]);
                        if first || ca.modified_at(k) || cb.modified_at(k) {
                            let value = match (ca.at(k), cb.at(k)) {
                                (Value::Set(x), Value::Set(y)) => {
                                    Value::Set(x.clone().intersection(y.clone()))
                                }
                                _ => Value::Set(OrdSet::new()),
                            };
                            cell.set(k, value, first);
                        } else {
                            cell.modified[k] = false;
                        }
                    }
                }
            }
        }
    }
}

/// The indices (or values) of the non-`nil` entries among `values`, the entries at `carrier`.
fn non_nil(values: &[Value], carrier: &[Value], keys: bool) -> OrdSet<Value> {
    let mut out = OrdSet::new();
    for (k, v) in values.iter().enumerate() {
        if let Value::Embed(inner) = v {
            if keys {
                out.insert(carrier[k].clone());
            } else {
                out.insert((**inner).clone());
            }
        }
    }
    out
}

/// The size of a collection (0 for anything else).
pub fn size_of(v: &Value) -> i64 {
    match v {
        Value::Set(s) => s.len() as i64,
        Value::Mset(m) => m.values().sum::<u64>() as i64,
        Value::Seq(s) => s.len() as i64,
        Value::Map(m) => m.len() as i64,
        _ => 0,
    }
}
