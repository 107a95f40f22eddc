//! The values of every variable in one state, and which of them changed since the previous
//! state of the same run (Daikon's "modified" bit).
//!
//! A [`Frame`] is updated in place from state to state: a variable is recomputed only where one
//! of its inputs changed, and a position counts as modified only if its value really differs.
//! Element variables have one position per index value; other variables have one.
//!
//! A map may lack a key: the element variable is then *absent* at that position (as is anything
//! derived from it there), and no candidate looks at it. A position whose presence changes counts
//! as modified.
//!
//! The frame also fingerprints the state, rehashing only the state variables that changed.

use crate::vars::{KeyRule, Term, VarModel};
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
    /// Whether each position is absent (a map lacking the key); empty if it never can be.
    pub absent: Vec<bool>,
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

    /// Whether position `k` is absent (a one-position cell answers every position).
    pub fn absent_at(&self, k: usize) -> bool {
        match self.absent.len() {
            0 => false,
            1 => self.absent[0],
            _ => self.absent[k],
        }
    }

    fn set(&mut self, k: usize, value: Value, first: bool) {
        let returned = match self.absent.get_mut(k) {
            Some(a) => std::mem::replace(a, false),
            None => false,
        };
        let changed = first || returned || self.values[k] != value;
        if changed {
            self.values[k] = value;
        }
        self.modified[k] = changed;
        self.any |= changed;
    }

    /// Marks position `k` absent; leaving presence counts as a change.
    fn set_absent(&mut self, k: usize, first: bool) {
        let was_absent = std::mem::replace(&mut self.absent[k], true);
        let changed = first || !was_absent;
        self.modified[k] = changed;
        self.any |= changed;
    }

    /// Sets position `k` to `value`, or absent.
    fn put(&mut self, k: usize, value: Option<Value>, first: bool) {
        match value {
            Some(v) => self.set(k, v, first),
            None => self.set_absent(k, first),
        }
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
    /// Whether the state it holds is the start state of a run.
    first: bool,
}

impl Frame {
    /// An empty frame for `model`; the first [`Frame::update`] treats its state as a start state.
    pub fn new(model: &VarModel) -> Frame {
        let cells = (0..model.vars.len())
            .map(|v| {
                let w = model.width(v);
                let absent = if model.map_slots(v).is_empty() {
                    Vec::new()
                } else {
                    vec![false; w]
                };
                Cell {
                    values: vec![Value::Bool(false); w],
                    modified: vec![true; w],
                    any: true,
                    absent,
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
            first: true,
        }
    }

    /// The fingerprint of the state it holds (fixed-seed hashes, the same in every build).
    pub fn fingerprint(&self) -> u64 {
        let mut h = FxHasher::default();
        self.slot_hashes.hash(&mut h);
        h.finish()
    }

    /// Whether each state slot changed in the last update (all, at a start state).
    pub fn slot_changed(&self) -> &[bool] {
        &self.slot_changed
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
        self.first = first;
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
                    } else {
                        let index = model.vars[v].index.expect("elements are indexed");
                        let carrier = &model.indices[index].carrier;
                        match &state[*s] {
                            Value::Array(a) => {
                                for (k, key) in carrier.iter().enumerate() {
                                    cell.set(k, Value::array_get(a, key), first);
                                }
                            }
                            Value::Map(m) if !cell.absent.is_empty() => {
                                for (k, key) in carrier.iter().enumerate() {
                                    cell.put(k, m.get(key).cloned(), first);
                                }
                            }
                            _ => cell.modified.iter_mut().for_each(|m| *m = false),
                        }
                    }
                }
                Term::Keys(s) | Term::Values(s) => {
                    let elem = model.vars[v].inputs[0];
                    let rule = model.key_rules[*s].as_ref();
                    if let (true, Some(rule)) = (first || done[elem].any, rule) {
                        let keys = matches!(model.vars[v].term, Term::Keys(_));
                        let index = model.vars[elem].index.expect("elements are indexed");
                        let carrier = &model.indices[index].carrier;
                        let set = present(&done[elem], carrier, rule, keys);
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
                            let value = (!inp.absent_at(k)).then(|| Value::Int(size_of(inp.at(k))));
                            cell.put(k, value, first);
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
                                _ if ca.absent_at(k) || cb.absent_at(k) => None,
                                (Value::Set(x), Value::Set(y)) => {
                                    Some(Value::Set(x.clone().intersection(y.clone())))
                                }
                                _ => Some(Value::Set(OrdSet::new())),
                            };
                            cell.put(k, value, first);
                        } else {
                            cell.modified[k] = false;
                        }
                    }
                }
                // Set by the engine, which evaluates preconditions (`Frame::set_enabled`).
                Term::Enabled(_) => cell.modified[0] = false,
            }
        }
    }

    /// Sets the enabledness variables of the state the frame holds (after [`Frame::update`]),
    /// one value per action split, in order.
    pub fn set_enabled(&mut self, model: &VarModel, enabled: &[bool]) {
        let first = self.first;
        for (v, var) in model.vars.iter().enumerate() {
            if let Term::Enabled(k) = var.term {
                let value = Value::Bool(enabled.get(k).copied().unwrap_or(false));
                let cell = &mut self.cells[v];
                cell.any = false;
                cell.set(0, value, first);
            }
        }
    }
}

/// The keys (or the values inside) of the present entries of an element variable's cell, whose
/// positions are the keys in `carrier`.
fn present(elem: &Cell, carrier: &[Value], rule: &KeyRule, keys: bool) -> OrdSet<Value> {
    let mut out = OrdSet::new();
    for (k, v) in elem.values.iter().enumerate() {
        let entry = (!elem.absent_at(k)).then_some(v);
        if !rule.present(entry) {
            continue;
        }
        if keys {
            out.insert(carrier[k].clone());
        } else if let Value::Embed(inner) = v {
            out.insert((**inner).clone());
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
