//! The checks that make a symmetry sound: [`Symmetry::new`] rejects models that single out
//! values of a symmetric type (literals, field reads, parameters, universe candidates not
//! closed under permutation). Walks every expression and statement of the machine's automata
//! and of its invariants.

use super::error::{Break, SymmetryError};
use super::shape::{first_element, shape_of, Shape};
use super::Symmetry;
use crate::ir_walk::{walk_expr, walk_stmt};
use imbl::OrdSet;
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::ir::{AutomatonBody, Expr, ExprKind, Spec, Stmt, Type, TypeId};

impl Symmetry {
    fn name(spec: &Spec, id: TypeId) -> String {
        spec.types[id.0 as usize].name.clone()
    }

    /// Whether `ty` mentions a symmetric type.
    fn mentions(&self, spec: &Spec, ty: &Type) -> Option<TypeId> {
        let ids: Vec<TypeId> = self.types.iter().map(|t| t.id).collect();
        match shape_of(spec, &ids, ty, &mut Vec::new()) {
            Ok(Shape::Plain) => None,
            Ok(shape) => Some(first_element(&shape).map_or(ids[0], |k| ids[k])),
            Err(_) => Some(ids[0]),
        }
    }

    /// Collects every construct of the machine that singles out a value of a symmetric type.
    pub(super) fn check_model(&self, machine: &Machine, errors: &mut Vec<SymmetryError>) {
        let spec = machine.spec;
        let ids: Vec<TypeId> = self.types.iter().map(|t| t.id).collect();
        let mut exprs: Vec<&Expr> = Vec::new();
        let mut stmts: Vec<&Stmt> = Vec::new();
        let mut automata: Vec<usize> = machine
            .instances
            .iter()
            .map(|i| i.automaton.0 as usize)
            .collect();
        automata.push(machine.root.0 as usize);
        automata.sort_unstable();
        automata.dedup();
        for &a in &automata {
            let aut = &spec.automata[a];
            for (j, p) in aut.params.iter().enumerate() {
                if self.family_params.contains(&(a, j)) {
                    continue;
                }
                if let Some(id) = self.mentions(spec, &p.ty) {
                    errors.push(SymmetryError::Breaks {
                        name: Self::name(spec, id),
                        span: p.span,
                        how: Break::Parameter,
                    });
                }
            }
            for act in &aut.actions {
                exprs.extend(&act.where_clause);
                exprs.extend(act.params.iter().filter_map(|p| p.fixed.as_ref()));
            }
            match &aut.body {
                AutomatonBody::Primitive(p) => {
                    exprs.extend(p.state.iter().filter_map(|v| v.init.as_ref()));
                    exprs.extend(&p.so_that);
                    for t in &p.transitions {
                        exprs.extend(t.const_args.iter().map(|(_, e)| e));
                        exprs.extend(&t.where_clause);
                        exprs.extend(&t.pre);
                        stmts.extend(&t.eff);
                    }
                }
                AutomatonBody::Composite(c) => {
                    for comp in &c.components {
                        // The root's families of one index of a symmetric type are checked
                        // by `family.rs`.
                        let family = a == machine.root.0 as usize
                            && matches!(comp.indices.as_slice(),
                                [idx] if matches!(idx.ty, Type::Named(id) if ids.contains(&id)));
                        for idx in comp.indices.iter().filter(|_| !family) {
                            if let Some(id) = self.mentions(spec, &idx.ty) {
                                errors.push(SymmetryError::Breaks {
                                    name: Self::name(spec, id),
                                    span: idx.span,
                                    how: Break::Parameter,
                                });
                            }
                        }
                        exprs.extend(&comp.args);
                    }
                    for h in &c.hidden {
                        exprs.extend(h.const_args.iter().map(|(_, e)| e));
                        exprs.extend(&h.where_clause);
                    }
                }
            }
        }
        for inv in &spec.invariants {
            if inv.automaton == machine.root {
                exprs.push(&inv.body);
            }
        }
        let mut visit = |e: &Expr| {
            let breaks = |ty: &Type| match ty {
                Type::Named(id) => ids.contains(id).then_some(*id),
                _ => None,
            };
            let found = match &e.kind {
                ExprKind::Tuple(_) | ExprKind::EnumConst(_) => {
                    breaks(&e.ty).map(|id| (id, Break::Literal))
                }
                ExprKind::Field(x, _) => breaks(&x.ty).map(|id| (id, Break::Field)),
                _ => None,
            };
            if let Some((id, how)) = found {
                errors.push(SymmetryError::Breaks {
                    name: Self::name(spec, id),
                    span: e.span,
                    how,
                });
            }
        };
        for e in exprs {
            walk_expr(e, &mut visit);
        }
        for s in stmts {
            walk_stmt(s, &mut visit);
        }
        // Universe candidates for action parameters must be closed under the group, which the
        // adjacent transpositions of each type generate.
        for action in &machine.actions {
            for (param, ty) in action.param_names.iter().zip(&action.param_types) {
                let Some(candidates) = machine.universe.param_candidates(&action.name, param)
                else {
                    continue;
                };
                let Some(id) = self.mentions(spec, ty) else {
                    continue;
                };
                let shape = match shape_of(spec, &ids, ty, &mut Vec::new()) {
                    Ok(s) => s,
                    Err(_) => continue,
                };
                let listed: OrdSet<Value> = candidates.iter().cloned().collect();
                let closed = (0..self.types.len()).all(|k| {
                    (1..self.types[k].carrier.len()).all(|i| {
                        let images = self.transposition(k, i - 1, i);
                        candidates
                            .iter()
                            .all(|c| listed.contains(&self.map(&shape, c, &images)))
                    })
                });
                if !closed {
                    errors.push(SymmetryError::CandidatesNotClosed {
                        name: Self::name(spec, id),
                        action: action.name.clone(),
                        param: param.clone(),
                    });
                }
            }
        }
    }

    /// The images of the permutation that swaps positions `a` and `b` of type `k`.
    fn transposition(&self, k: usize, a: usize, b: usize) -> Vec<Vec<Value>> {
        let mut of: Vec<Vec<Value>> = self.types.iter().map(|t| t.carrier.clone()).collect();
        of[k].swap(a, b);
        of
    }
}
