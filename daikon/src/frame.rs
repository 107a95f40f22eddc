//! The values of every variable in one state, and which of them changed since the previous
//! state of the same run (Daikon's "modified" bit).
//!
//! A [`Frame`] is updated in place from state to state: a variable is recomputed only where one
//! of its inputs changed, and a position counts as modified only if its value really differs.
//! Element variables have one position per index value; other variables have one.

use crate::vars::{Term, VarModel};
use imbl::OrdSet;
use interpreter::value::Value;

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
    /// For an element variable, the array value it was last computed from (so an unchanged
    /// array, usually the very same shared value, is not looked into again).
    arrays: Vec<Option<Value>>,
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
        Frame {
            cells,
            arrays: vec![None; model.vars.len()],
            started: false,
        }
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
        for v in 0..model.vars.len() {
            let mut cell = std::mem::take(&mut self.cells[v]);
            cell.any = false;
            match &model.vars[v].term {
                Term::Slot(s) => cell.set(0, state[*s].clone(), first),
                Term::Elem(s) => {
                    let unchanged = !first && self.arrays[v].as_ref() == Some(&state[*s]);
                    if unchanged {
                        cell.modified.iter_mut().for_each(|m| *m = false);
                    } else if let Value::Array(a) = &state[*s] {
                        let index = model.vars[v].index.expect("elements are indexed");
                        for (k, key) in model.indices[index].carrier.iter().enumerate() {
                            cell.set(k, Value::array_get(a, key), first);
                        }
                        self.arrays[v] = Some(state[*s].clone());
                    }
                }
                Term::Keys(_) | Term::Values(_) => {
                    let elem = model.vars[v].inputs[0];
                    if first || self.cells[elem].any {
                        let keys = matches!(model.vars[v].term, Term::Keys(_));
                        let index = model.vars[elem].index.expect("elements are indexed");
                        let carrier = &model.indices[index].carrier;
                        let set = non_nil(&self.cells[elem].values, carrier, keys);
                        cell.set(0, Value::Set(set), first);
                    } else {
                        cell.modified[0] = false;
                    }
                }
                Term::Size(input) => {
                    let width = cell.values.len();
                    for k in 0..width {
                        let inp = &self.cells[*input];
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
                        let (ca, cb) = (&self.cells[*a], &self.cells[*b]);
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
            self.cells[v] = cell;
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
