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

/// The next value after a carrier of integers or one-integer tuples (`[0]..[8]` gives `[9]`);
/// `None` for any other carrier.
pub fn fresh_value(carrier: &[Value]) -> Option<Value> {
    let ints: Option<Vec<i64>> = carrier.iter().map(|v| v.as_int()).collect();
    if let Some(ints) = ints {
        return Some(Value::Int(
            ints.into_iter().max().unwrap_or(-1).checked_add(1)?,
        ));
    }
    let inner: Option<Vec<i64>> = carrier
        .iter()
        .map(|v| match v {
            Value::Tuple(fields) if fields.len() == 1 => fields[0].as_int(),
            _ => None,
        })
        .collect();
    let next = inner?.into_iter().max().unwrap_or(-1).checked_add(1)?;
    Some(Value::Tuple(vec![Value::Int(next)].into()))
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
            let fresh = fresh_value(&carrier)?;
            // Every instance of the action with the parameter replaced; each distinct
            // argument list once.
            let mut tried = BTreeSet::new();
            model
                .instances()
                .iter()
                .filter(|inst| inst.action == action)
                .find_map(|inst| {
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
    fn the_next_value_follows_integers_and_one_integer_tuples() {
        let ints: Vec<Value> = (0..3).map(Value::Int).collect();
        assert_eq!(fresh_value(&ints), Some(Value::Int(3)));
        let ids: Vec<Value> = (0..9)
            .map(|k| Value::Tuple(vec![Value::Int(k)].into()))
            .collect();
        assert_eq!(
            fresh_value(&ids),
            Some(Value::Tuple(vec![Value::Int(9)].into()))
        );
        assert_eq!(fresh_value(&[Value::Bool(true)]), None);
        assert_eq!(fresh_value(&[]), Some(Value::Int(0)));
    }
}
