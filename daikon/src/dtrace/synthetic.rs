//! Intersections of sets, written as synthetic variables for Daikon.
//!
//! Daikon has no invariant that says two collections are disjoint, so the paper's `succeeded ∩
//! dead = {}` (and `voted[n] ∩ abstained[n] = {}`) cannot come out of the state's variables
//! alone. A front end may add variables of its own (the manual's `synthetic` flag, `var-kind
//! function` with `function-args`), so the export adds, for every two set-valued state
//! variables with the same element type, their intersection `intersection(a,b)`, and, for every
//! two arrays of such sets over the same finite index type, the intersection of their entries
//! at each index (`intersection(voted[[0]],abstained[[0]])`). Daikon then reports
//! `intersection(succeeded,dead)[] == []`. These are the pairs `ioa infer` derives too.

use super::layout::MAX_EXPANDED_INDICES;
use interpreter::universe::Universe;
use interpreter::value::{Printer, Value};
use ioa_lang::ir::{Spec, Type};

/// One operand: a state slot, and an array index when the set is an entry of an array.
#[derive(Debug, Clone)]
pub struct Operand {
    /// The state slot.
    pub slot: usize,
    /// The index, for an array of sets.
    pub index: Option<Value>,
    /// Its name in the export (`voted[[0]]`).
    pub name: String,
}

/// A synthetic intersection variable.
#[derive(Debug, Clone)]
pub struct Intersection {
    /// `intersection(a,b)`.
    pub name: String,
    /// Its operands.
    pub operands: [Operand; 2],
    /// Its type (that of both operands).
    pub ty: Type,
}

impl Intersection {
    /// Its value in a state.
    pub fn value(&self, state: &[Value]) -> Value {
        let read = |o: &Operand| -> Option<imbl::OrdSet<Value>> {
            let v = match (&state[o.slot], &o.index) {
                (v, None) => v.clone(),
                (Value::Array(a), Some(k)) => Value::array_get(a, k),
                _ => return None,
            };
            match v {
                Value::Set(s) => Some(s),
                _ => None,
            }
        };
        match (read(&self.operands[0]), read(&self.operands[1])) {
            (Some(a), Some(b)) => Value::Set(a.intersection(b)),
            _ => Value::Nil,
        }
    }
}

/// The intersections of the state variables `names: types`, in declaration order of pairs.
pub fn intersections(
    spec: &Spec,
    universe: &Universe,
    names: &[String],
    types: &[Type],
) -> Vec<Intersection> {
    let printer = Printer::new(spec);
    let mut out = Vec::new();
    for a in 0..types.len() {
        for b in a + 1..types.len() {
            match (&types[a], &types[b]) {
                (Type::Set(x), Type::Set(y)) if x == y => {
                    let op = |s: usize| Operand {
                        slot: s,
                        index: None,
                        name: names[s].clone(),
                    };
                    out.push(Intersection {
                        name: format!("intersection({},{})", names[a], names[b]),
                        operands: [op(a), op(b)],
                        ty: types[a].clone(),
                    });
                }
                (Type::Array(ka, va), Type::Array(kb, vb))
                    if ka == kb && va == vb && matches!(**va, Type::Set(_)) =>
                {
                    let Some(keys) = universe.carrier(spec, ka) else {
                        continue;
                    };
                    if keys.len() > MAX_EXPANDED_INDICES {
                        continue;
                    }
                    for key in keys.iter() {
                        let text = format!("[{}]", printer.show(key));
                        let op = |s: usize| Operand {
                            slot: s,
                            index: Some(key.clone()),
                            name: format!("{}{text}", names[s]),
                        };
                        let (oa, ob) = (op(a), op(b));
                        out.push(Intersection {
                            name: format!("intersection({},{})", oa.name, ob.name),
                            operands: [oa, ob],
                            ty: (**va).clone(),
                        });
                    }
                }
                _ => {}
            }
        }
    }
    out
}
