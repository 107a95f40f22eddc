//! Key sets of arrays and maps: when an entry counts as present ([`KeyRule`]), and which rule
//! a slot gets from its entry type and its value in a start state.

use super::DeriveOptions;
use interpreter::value::Value;
use ioa_lang::ir::Type;

/// When the entry of an array or map at a key counts as present, for its key set: the key is
/// defined (always, for an array) and the entry differs from `default` (if there is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRule {
    /// Whether the container is a map, whose keys may be missing.
    pub map: bool,
    /// The value a present entry differs from: `nil` for `Null` entries, otherwise the default
    /// of the container in the start state (`None` for a map that had none: then every defined
    /// key is present).
    pub default: Option<Value>,
}

impl KeyRule {
    /// Whether an entry counts as present: `entry` is `None` where a map lacks the key.
    pub fn present(&self, entry: Option<&Value>) -> bool {
        match (entry, &self.default) {
            (None, _) => false,
            (Some(v), Some(d)) => v != d,
            (Some(_), None) => true,
        }
    }
}

/// Resolves every `choose` of a start state with its first candidate.
pub(crate) struct FirstChoice;

impl interpreter::eval::Chooser for FirstChoice {
    fn choose(
        &mut self,
        span: ioa_lang::span::Span,
        candidates: &[Value],
    ) -> interpreter::error::EvalResult<Value> {
        candidates
            .first()
            .cloned()
            .ok_or(interpreter::error::RunError::UnresolvedChoice { span })
    }
}

/// The key rule of an array or map slot (`entry` its entry type, `start` its value in the start
/// state), if a key set is derived for it under `options`.
pub(crate) fn key_rule(
    map: bool,
    entry: &Type,
    start: Option<&Value>,
    options: DeriveOptions,
) -> Option<KeyRule> {
    if let Type::Null(_) = entry {
        return options.null_arrays.then_some(KeyRule {
            map,
            default: Some(Value::Nil),
        });
    }
    if !options.keys {
        return None;
    }
    let default = match start {
        Some(Value::Array(a)) => Some(a.default.clone()),
        // A map without a default: its key set is the set of defined keys.
        Some(Value::Map(_)) if map => None,
        _ => return None,
    };
    Some(KeyRule { map, default })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_present_when_defined_and_not_the_default() {
        let array = KeyRule {
            map: false,
            default: Some(Value::Int(0)),
        };
        assert!(array.present(Some(&Value::Int(2))));
        assert!(!array.present(Some(&Value::Int(0))));
        let partial = KeyRule {
            map: true,
            default: None,
        };
        assert!(partial.present(Some(&Value::Int(0))));
        assert!(!partial.present(None));
    }

    #[test]
    fn null_entries_have_nil_as_default_and_others_need_a_start_state() {
        let all = DeriveOptions::all();
        let rule = key_rule(false, &Type::Null(Box::new(Type::Int)), None, all).unwrap();
        assert_eq!(rule.default, Some(Value::Nil));
        assert!(key_rule(false, &Type::Int, None, all).is_none());
        let start = Value::constant_array(Value::Int(7));
        let rule = key_rule(true, &Type::Int, Some(&start), all).unwrap();
        assert_eq!((rule.map, rule.default), (true, Some(Value::Int(7))));
        let off = DeriveOptions {
            keys: false,
            ..DeriveOptions::all()
        };
        assert!(key_rule(false, &Type::Int, Some(&start), off).is_none());
    }
}
