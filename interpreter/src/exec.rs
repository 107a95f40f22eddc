//! Executing effect statements: assignments in order, conditionals and loops, against a state
//! that later statements see updated.

use crate::error::{EvalResult, RunError};
use crate::eval::{Chooser, Scope, StateView};
use crate::universe::Universe;
use crate::value::Value;
use ioa_lang::ir::{Place, PlaceStep, Spec, Stmt, StmtKind, Type, VarRef};

/// Mutable variables a statement list may assign.
pub struct Frame<'a> {
    /// The spec.
    pub spec: &'a Spec,
    /// Carriers.
    pub universe: &'a Universe,
    /// The automaton's state, updated in place.
    pub state: &'a mut Vec<Value>,
    /// Declared types of the state variables (for `Nat` checks).
    pub state_types: &'a [Type],
    /// The automaton's parameters.
    pub params: &'a [Value],
    /// Schedule or auxiliary variables, updated in place.
    pub aux: &'a mut Vec<Value>,
    /// Their declared types.
    pub aux_types: &'a [Type],
    /// Other automata and components (read only).
    pub view: &'a dyn StateView,
}

impl Frame<'_> {
    /// A read-only scope over the frame's current values.
    pub fn scope(&self) -> Scope<'_> {
        Scope {
            spec: self.spec,
            universe: self.universe,
            state: self.state,
            params: self.params,
            aux: self.aux,
            view: self.view,
        }
    }

    /// Runs statements in order.
    pub fn exec(
        &mut self,
        stmts: &[Stmt],
        locals: &mut [Value],
        ch: &mut dyn Chooser,
    ) -> EvalResult<()> {
        for s in stmts {
            self.exec_one(s, locals, ch)?;
        }
        Ok(())
    }

    fn exec_one(&mut self, s: &Stmt, locals: &mut [Value], ch: &mut dyn Chooser) -> EvalResult<()> {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                let v = self.scope().eval(value, locals, ch)?;
                self.assign(target, v, locals, ch, s.span)
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (c, body) in branches {
                    if self.scope().truth(c, locals, ch)? {
                        return self.exec(body, locals, ch);
                    }
                }
                self.exec(otherwise, locals, ch)
            }
            StmtKind::ForIn {
                var,
                collection,
                body,
            } => {
                let items: Vec<Value> = match self.scope().eval(collection, locals, ch)? {
                    Value::Set(x) => x.into_iter().collect(),
                    Value::Mset(m) => m
                        .into_iter()
                        .flat_map(|(x, n)| std::iter::repeat_n(x, n as usize))
                        .collect(),
                    Value::Seq(x) => x.iter().cloned().collect(),
                    _ => vec![],
                };
                for item in items {
                    locals[*var as usize] = item;
                    self.exec(body, locals, ch)?;
                }
                Ok(())
            }
            StmtKind::ForWhere {
                var,
                ty,
                cond,
                body,
            } => {
                let range = self.universe.carrier_at(self.spec, ty, s.span)?;
                for item in range.iter() {
                    locals[*var as usize] = item.clone();
                    if self.scope().truth(cond, locals, ch)? {
                        self.exec(body, locals, ch)?;
                    }
                }
                Ok(())
            }
            StmtKind::Ignore | StmtKind::Yield(_) => Ok(()),
            StmtKind::Ensure(e) => {
                if self.scope().truth(e, locals, ch)? {
                    Ok(())
                } else {
                    Err(crate::error::RunError::EnsuringFailed { span: e.span })
                }
            }
            StmtKind::While { .. } | StmtKind::Fire { .. } => {
                unreachable!(
                    "the checker allows `while` and `fire` only in schedules and proof entries"
                )
            }
        }
    }

    /// Assigns `v` to a place, checking `Nat` targets.
    pub fn assign(
        &mut self,
        target: &Place,
        v: Value,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
        span: ioa_lang::span::Span,
    ) -> EvalResult<()> {
        let (root_ty, slot) = match &target.root {
            VarRef::State(s) => (self.state_types.get(*s as usize), *s as usize),
            VarRef::Aux(s) => (self.aux_types.get(*s as usize), *s as usize),
            // The pre-state values an `ensuring` clause reads, saved before the effect.
            VarRef::Local(s) if target.path.is_empty() => {
                locals[*s as usize] = v;
                return Ok(());
            }
            _ => unreachable!("effects assign state or auxiliary variables only"),
        };
        if target.path.is_empty() && root_ty == Some(&Type::Nat) {
            if let Value::Int(i) = v {
                if i < 0 {
                    return Err(RunError::NegativeNat { span, value: i });
                }
            }
        }
        let mut keys = Vec::with_capacity(target.path.len());
        for step in &target.path {
            keys.push(match step {
                PlaceStep::Field(k) => PathKey::Field(*k as usize),
                PlaceStep::Index(e) => PathKey::Index(self.scope().eval(e, locals, ch)?),
            });
        }
        let root = match &target.root {
            VarRef::State(_) => &mut self.state[slot],
            _ => &mut self.aux[slot],
        };
        *root = update_path(root, &keys, v, span)?;
        Ok(())
    }
}

/// A step into a place whose key has been evaluated.
pub enum Key {
    /// A tuple field by position.
    Field(usize),
    /// An array, map or sequence key.
    Index(Value),
}

/// The name the simulation checker uses for a place step.
pub type PathKey = Key;

/// `old` with the place `keys` leads to set to `v`, as an assignment does (the compiled
/// explorer updates interned values with it, so both engines share one meaning of places).
pub fn update_path(
    old: &Value,
    keys: &[PathKey],
    v: Value,
    span: ioa_lang::span::Span,
) -> EvalResult<Value> {
    let Some((first, rest)) = keys.split_first() else {
        return Ok(v);
    };
    match (first, old) {
        (PathKey::Field(k), Value::Tuple(fields)) => {
            let mut f: Vec<Value> = fields.to_vec();
            f[*k] = update_path(&fields[*k], rest, v, span)?;
            Ok(Value::Tuple(f.into()))
        }
        (PathKey::Index(i), Value::Array(a)) => {
            let inner = update_path(&Value::array_get(a, i), rest, v, span)?;
            Ok(Value::array_set(a, i.clone(), inner))
        }
        (PathKey::Index(i), Value::Seq(s)) => {
            let k = i
                .as_int()
                .and_then(|k| usize::try_from(k).ok())
                .filter(|k| *k < s.len());
            let k = k.ok_or(RunError::Undefined {
                span,
                what: "a sequence index out of range",
            })?;
            let inner = update_path(&s[k], rest, v, span)?;
            Ok(Value::seq(s.update(k, inner)))
        }
        (PathKey::Index(i), Value::Map(m)) => {
            let current = m.get(i).cloned().unwrap_or(Value::Nil);
            let inner = update_path(&current, rest, v, span)?;
            Ok(Value::Map(m.update(i.clone(), inner)))
        }
        _ => Err(RunError::Undefined {
            span,
            what: "an assignment into a value of another shape",
        }),
    }
}
