//! When the finite universe, not the algorithm, is what blocks progress: a liveness check on a
//! finite instance can fail only because the instance ran out of values (every ballot of
//! `Ballot = [0]..[8]` used, so no leader can start another round). MaceMC's users met this as
//! "dead" paths that were properties of their bounds; TLC users meet it as deadlocks at the
//! edge of a `CONSTANT` set. To tell the two apart, an action with no enabled instance in a
//! stopped state is tried once more with a value *just outside* its parameter's carrier (the
//! next integer, or the next one-integer tuple): if that instance is enabled, the report names
//! the action, the parameter and the value, so the user can enlarge the universe rather than
//! hunt for a bug that is not there.
//!
//! Only parameters that range over a type's carrier are tried: candidates a universe lists for
//! one action (`fail.i = [2]`) are a deliberate restriction, not an exhausted supply; and an
//! instance counts only if some component controls it (a node outside the family would take
//! part only through the inputs of others, which is the environment's move, not progress).

use crate::model::MachineModel;
use interpreter::value::Value;
use ioa_lang::ast::ActionKind;
use std::collections::BTreeSet;

/// An action that could continue with one more value of a parameter's type.
#[derive(Debug, Clone, PartialEq)]
pub struct Exhausted {
    /// The action's position in the machine's actions.
    pub action: usize,
    /// The parameter's position.
    pub param: usize,
    /// The value outside the carrier that enables it.
    pub fresh: Value,
    /// The instance (all arguments) found enabled with it.
    pub args: Vec<Value>,
    /// How many values the parameter's carrier has.
    pub carrier_size: usize,
}

/// How many values past a carrier's end are tried: ids are often dealt round robin (ballot `b`
/// belongs to node `b mod n`), so the next value a given node may use can be a few steps away.
pub const FRESH_VALUES: i64 = 8;

/// The values just after a carrier of integers or one-integer tuples (`[0]..[8]` gives `[9]`,
/// `[10]`, …, [`FRESH_VALUES`] of them); none for any other carrier.
pub fn fresh_values(carrier: &[Value]) -> Vec<Value> {
    let one_int = |v: &Value| match v {
        Value::Tuple(fields) if fields.len() == 1 => fields[0].as_int(),
        _ => None,
    };
    let ints: Option<Vec<i64>> = carrier.iter().map(Value::as_int).collect();
    let (max, tuples) = match ints {
        Some(ints) => (ints.into_iter().max(), false),
        None => match carrier.iter().map(one_int).collect::<Option<Vec<i64>>>() {
            Some(inner) => (inner.into_iter().max(), true),
            None => return Vec::new(),
        },
    };
    let start = max.unwrap_or(-1);
    (1..=FRESH_VALUES)
        .filter_map(|k| start.checked_add(k))
        .map(|k| {
            if tuples {
                Value::Tuple(vec![Value::Int(k)].into())
            } else {
                Value::Int(k)
            }
        })
        .collect()
}

/// The actions that have no enabled instance in `state` but would have one if a parameter
/// took the value just outside its type's carrier; at most one entry per action.
pub fn exhausted(model: &MachineModel, state: &[Value]) -> Vec<Exhausted> {
    let machine = model.machine();
    let enabled = |action: usize, args: &[Value]| {
        matches!(machine.enabled(state, action, args, false), Ok(Ok(_)))
    };
    // Some instance controls it: with a value no component accepts (a node that does not
    // exist), only inputs would take part, and an input alone is the environment's move.
    let controlled = |action: usize, args: &[Value]| {
        machine
            .participants(action, args)
            .is_ok_and(|ps| ps.iter().any(|&(_, kind)| kind != ActionKind::Input))
    };
    let mut live_actions = BTreeSet::new();
    for inst in model.instances() {
        if !live_actions.contains(&inst.action) && enabled(inst.action, &inst.args) {
            live_actions.insert(inst.action);
        }
    }
    let mut out = Vec::new();
    for (action, a) in machine.actions.iter().enumerate() {
        if live_actions.contains(&action) {
            continue;
        }
        let found = a.param_types.iter().enumerate().find_map(|(param, ty)| {
            if machine
                .universe
                .param_candidates(&a.name, &a.param_names[param])
                .is_some()
            {
                return None;
            }
            let carrier = machine.carrier(ty, Default::default()).ok()?;
            // Every instance of the action with the parameter replaced by each value past the
            // carrier, nearest first; each distinct argument list once.
            let mut tried = BTreeSet::new();
            let instances: Vec<_> = model
                .instances()
                .iter()
                .filter(|inst| inst.action == action)
                .collect();
            let candidates = fresh_values(&carrier);
            candidates
                .iter()
                .flat_map(|fresh| instances.iter().map(move |inst| (fresh, inst)))
                .find_map(|(fresh, inst)| {
                    let mut args = inst.args.clone();
                    args[param] = fresh.clone();
                    if !tried.insert(format!("{args:?}"))
                        || !controlled(action, &args)
                        || !enabled(action, &args)
                    {
                        return None;
                    }
                    Some(Exhausted {
                        action,
                        param,
                        fresh: fresh.clone(),
                        args,
                        carrier_size: carrier.len(),
                    })
                })
        });
        out.extend(found);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_values_follow_integers_and_one_integer_tuples() {
        let ints: Vec<Value> = (0..3).map(Value::Int).collect();
        assert_eq!(fresh_values(&ints)[..2], [Value::Int(3), Value::Int(4)]);
        assert_eq!(fresh_values(&ints).len(), FRESH_VALUES as usize);
        let ids: Vec<Value> = (0..9)
            .map(|k| Value::Tuple(vec![Value::Int(k)].into()))
            .collect();
        assert_eq!(
            fresh_values(&ids)[0],
            Value::Tuple(vec![Value::Int(9)].into())
        );
        assert!(fresh_values(&[Value::Bool(true)]).is_empty());
        assert_eq!(fresh_values(&[])[0], Value::Int(0));
    }
}
