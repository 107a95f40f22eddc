//! Reads of component state (`P[i].x` in invariants, `A.P[i].x` in simulation relations,
//! proof blocks and schedules) turned into reads of a flattened composite's arrays, and the
//! assignments `B.P[i].x := …` of a proof block's `start` into assignments `B.P.x[i] := …`.

use super::rewrite::Rewrite;
use super::terms::index_into;
use super::Bases;
use crate::ir::{AutomatonBody, AutomatonId, Expr, ExprKind, PlaceStep, Spec, Stmt, Type, VarRef};
use std::collections::HashMap;

/// Rewrites every `P[i].x` of a flattened composite (in invariants, simulations and schedules)
/// into a read of the flat variable.
pub(super) fn fix_references(spec: &mut Spec, bases: &Bases) {
    let types: HashMap<AutomatonId, Vec<Type>> = bases
        .keys()
        .map(|id| {
            let AutomatonBody::Primitive(p) = &spec.automata[id.0 as usize].body else {
                unreachable!("flattened automata are primitive");
            };
            (*id, p.state.iter().map(|v| v.ty.clone()).collect())
        })
        .collect();
    let fixer = RefFixer {
        bases,
        types: &types,
    };
    for inv in &mut spec.invariants {
        inv.body = fixer.expr(&inv.body, Some(inv.automaton));
    }
    for l in &mut spec.liveness {
        let own = Some(l.automaton);
        for e in l.property.exprs_mut() {
            *e = fixer.expr(e, own);
        }
    }
    for sim in &mut spec.simulations {
        sim.relation = fixer.expr(&sim.relation, None);
        if let Some(p) = &mut sim.proof {
            p.start = fixer.stmts(&p.start, None);
            for entry in p.entries.iter_mut().flatten() {
                if let Some(body) = &entry.body {
                    entry.body = Some(fixer.stmts(body, None));
                }
            }
        }
    }
    for s in &mut spec.schedules {
        s.body = fixer.stmts(&s.body, None);
    }
}

struct RefFixer<'a> {
    bases: &'a Bases,
    types: &'a HashMap<AutomatonId, Vec<Type>>,
}

impl RefFixer<'_> {
    fn read(&self, r: &VarRef, node: &Expr, own: Option<AutomatonId>) -> Expr {
        let VarRef::Component {
            automaton,
            component,
            indices,
            slot,
        } = r
        else {
            return node.clone();
        };
        let Some(bases) = self.bases.get(automaton) else {
            return node.clone();
        };
        let flat = bases[*component as usize] + slot;
        let root = if own == Some(*automaton) {
            VarRef::State(flat)
        } else {
            VarRef::Qualified {
                automaton: *automaton,
                slot: flat,
            }
        };
        let array = Expr {
            kind: ExprKind::Var(root),
            ty: self.types[automaton][flat as usize].clone(),
            span: node.span,
        };
        let indices: Vec<Expr> = indices.iter().map(|i| self.expr(i, own)).collect();
        let mut e = index_into(array, &indices);
        e.span = node.span;
        e
    }

    /// An assignment's root `B.P[i].x` (a proof block's `start` building a composite
    /// specification's state) as the flat variable and the member's index: `B.P.x[i]`.
    fn place(&self, r: &VarRef, own: Option<AutomatonId>) -> (VarRef, Vec<PlaceStep>) {
        let VarRef::Component {
            automaton,
            component,
            indices,
            slot,
        } = r
        else {
            return (r.clone(), vec![]);
        };
        let Some(bases) = self.bases.get(automaton) else {
            return (r.clone(), vec![]);
        };
        let flat = bases[*component as usize] + slot;
        let root = if own == Some(*automaton) {
            VarRef::State(flat)
        } else {
            VarRef::Qualified {
                automaton: *automaton,
                slot: flat,
            }
        };
        let steps = indices
            .iter()
            .map(|i| PlaceStep::Index(self.expr(i, own)))
            .collect();
        (root, steps)
    }

    fn rewrite<T>(&self, own: Option<AutomatonId>, f: impl FnOnce(&Rewrite) -> T) -> T {
        let read = |r: &VarRef, node: &Expr| self.read(r, node, own);
        let place = |r: &VarRef| self.place(r, own);
        f(&Rewrite {
            read: &read,
            local: &|k| k,
            place: &place,
        })
    }

    fn expr(&self, e: &Expr, own: Option<AutomatonId>) -> Expr {
        self.rewrite(own, |rw| rw.expr(e))
    }

    fn stmts(&self, body: &[Stmt], own: Option<AutomatonId>) -> Vec<Stmt> {
        self.rewrite(own, |rw| rw.stmts(body))
    }
}
