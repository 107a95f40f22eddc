//! `for` loops in effects as one simultaneous, pointwise update.
//!
//! A loop is translated only when its iterations cannot see each other's writes: each
//! assignment in the body (under the conditions of the `if`s around it) must be
//! `X := insert(e, X)` / `X := X ∪ {e}` (the set gains every `e` of an iteration whose
//! conditions hold), `X := delete(e, X)` / `X := X - {e}` (it loses them), or `X[x] := e` at the
//! loop variable `x` (a pointwise function update); and nothing in the body may read a variable
//! the body writes, except `X[x]` in its own pointwise update. Anything else may depend on the
//! order of iterations and is reported (E1202) rather than translated wrongly.

use super::effect::EffectWriter;
use super::error::{Construct, ExportError, LoopProblem};
use super::expr::{state_reads, term, walk, Env};
use ioa_lang::ir::{BinOp, Builtin, Expr, ExprKind, PlaceStep, Stmt, StmtKind, Type, VarRef};

/// One assignment of a loop body with the conditions it runs under.
struct Leaf<'s> {
    /// (negated?, condition).
    guards: Vec<(bool, &'s Expr)>,
    stmt: &'s Stmt,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum WriteKind {
    Add,
    Remove,
    Point,
}

struct Write<'s> {
    slot: u32,
    kind: WriteKind,
    /// The element added or removed, or the new entry.
    value: &'s Expr,
    guards: Vec<(bool, &'s Expr)>,
    stmt: &'s Stmt,
}

fn flatten<'s>(
    body: &'s [Stmt],
    guards: &[(bool, &'s Expr)],
    out: &mut Vec<Leaf<'s>>,
) -> Result<(), ExportError> {
    for stmt in body {
        match &stmt.kind {
            StmtKind::Assign { .. } => out.push(Leaf {
                guards: guards.to_vec(),
                stmt,
            }),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                let mut before: Vec<(bool, &Expr)> = guards.to_vec();
                for (cond, branch) in branches {
                    let mut g = before.clone();
                    g.push((false, cond));
                    flatten(branch, &g, out)?;
                    before.push((true, cond));
                }
                flatten(otherwise, &before, out)?;
            }
            StmtKind::Ignore => {}
            StmtKind::ForIn { .. } | StmtKind::ForWhere { .. } => {
                return Err(ExportError::Unsupported {
                    construct: Construct::NestedLoop,
                    span: stmt.span,
                })
            }
            StmtKind::While { .. } => {
                return Err(ExportError::Unsupported {
                    construct: Construct::While,
                    span: stmt.span,
                })
            }
            StmtKind::Fire { .. } | StmtKind::Yield(_) => {
                return Err(ExportError::Unsupported {
                    construct: Construct::ScheduleStatement,
                    span: stmt.span,
                })
            }
            StmtKind::Ensure(_) => {
                return Err(ExportError::Unsupported {
                    construct: Construct::Ensuring,
                    span: stmt.span,
                })
            }
        }
    }
    Ok(())
}

fn is_state(e: &Expr, slot: u32) -> bool {
    matches!(e.kind, ExprKind::Var(VarRef::State(s)) if s == slot)
}

fn singleton(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Collection(items) if items.len() == 1 && matches!(e.ty, Type::Set(_)) => {
            Some(&items[0])
        }
        _ => None,
    }
}

fn classify<'s>(
    leaf: &Leaf<'s>,
    var: u32,
    loop_span: ioa_lang::span::Span,
) -> Result<Write<'s>, ExportError> {
    let StmtKind::Assign { target, value } = &leaf.stmt.kind else {
        unreachable!("leaves are assignments")
    };
    let unrecognised = || ExportError::OrderDependentLoop {
        problem: LoopProblem::UnrecognisedWrite,
        span: loop_span,
        at: leaf.stmt.span,
    };
    let VarRef::State(slot) = target.root else {
        return Err(ExportError::Unsupported {
            construct: Construct::AssignToNonState,
            span: leaf.stmt.span,
        });
    };
    let write = |kind, value| Write {
        slot,
        kind,
        value,
        guards: leaf.guards.clone(),
        stmt: leaf.stmt,
    };
    match target.path.as_slice() {
        [] if matches!(value.ty, Type::Set(_)) => match &value.kind {
            ExprKind::Call(Builtin::Insert, args)
                if args.len() == 2 && is_state(&args[1], slot) =>
            {
                Ok(write(WriteKind::Add, &args[0]))
            }
            ExprKind::Call(Builtin::Delete, args)
                if args.len() == 2 && is_state(&args[1], slot) =>
            {
                Ok(write(WriteKind::Remove, &args[0]))
            }
            ExprKind::Binary(BinOp::Union, a, b) => {
                if let (true, Some(e)) = (is_state(a, slot), singleton(b)) {
                    Ok(write(WriteKind::Add, e))
                } else if let (true, Some(e)) = (is_state(b, slot), singleton(a)) {
                    Ok(write(WriteKind::Add, e))
                } else {
                    Err(unrecognised())
                }
            }
            ExprKind::Binary(BinOp::Difference, a, b) => match (is_state(a, slot), singleton(b)) {
                (true, Some(e)) => Ok(write(WriteKind::Remove, e)),
                _ => Err(unrecognised()),
            },
            _ => Err(unrecognised()),
        },
        [PlaceStep::Index(i)] if matches!(i.kind, ExprKind::Var(VarRef::Local(l)) if l == var) => {
            Ok(write(WriteKind::Point, value))
        }
        _ => Err(unrecognised()),
    }
}

/// How many times `e` reads `slot[var]` exactly (the one read a pointwise update may make).
fn own_entry_reads(e: &Expr, slot: u32, var: u32) -> usize {
    let mut n = 0;
    walk(e, &mut |x| {
        if let ExprKind::Index(a, i) = &x.kind {
            if is_state(a, slot) && matches!(i.kind, ExprKind::Var(VarRef::Local(l)) if l == var) {
                n += 1;
            }
        }
    });
    n
}

/// The state `cur` after the loop `stmt`, as a record update.
pub fn loop_update(w: &mut EffectWriter, stmt: &Stmt, cur: &str) -> Result<String, ExportError> {
    let env: Env = w.env.at_state(cur);
    let (var, range, body, elem_ty) = match &stmt.kind {
        StmtKind::ForIn {
            var,
            collection,
            body,
        } => {
            let Type::Set(elem) = &collection.ty else {
                return Err(ExportError::Unsupported {
                    construct: Construct::LoopOverCollection,
                    span: stmt.span,
                });
            };
            let name = env.local(*var, elem);
            (
                *var,
                format!("({name} \\<in> {})", term(&env, collection)?),
                body,
                (**elem).clone(),
            )
        }
        StmtKind::ForWhere {
            var,
            ty,
            cond,
            body,
        } => (*var, term(&env, cond)?, body, ty.clone()),
        _ => unreachable!("called on loops only"),
    };
    let name = env.local(var, &elem_ty);
    let mut leaves = Vec::new();
    flatten(body, &[], &mut leaves)?;
    let writes = leaves
        .iter()
        .map(|l| classify(l, var, stmt.span))
        .collect::<Result<Vec<_>, _>>()?;
    // Which variables are written, in order of first write, and are the writes compatible?
    let mut slots: Vec<u32> = Vec::new();
    for wr in &writes {
        if let Some(prev) = writes
            .iter()
            .take_while(|o| !std::ptr::eq(*o, wr))
            .find(|o| o.slot == wr.slot)
        {
            if prev.kind != wr.kind || wr.kind == WriteKind::Point {
                return Err(ExportError::OrderDependentLoop {
                    problem: LoopProblem::ConflictingWrites {
                        var: w.state_names[wr.slot as usize].clone(),
                    },
                    span: stmt.span,
                    at: wr.stmt.span,
                });
            }
        } else {
            slots.push(wr.slot);
        }
    }
    // No iteration may read what another writes.
    for wr in &writes {
        let mut reads: Vec<u32> = wr.guards.iter().flat_map(|(_, g)| state_reads(g)).collect();
        reads.extend(state_reads(wr.value));
        for &slot in &slots {
            let n = reads.iter().filter(|&&r| r == slot).count();
            let allowed = if wr.kind == WriteKind::Point && wr.slot == slot {
                own_entry_reads(wr.value, slot, var)
            } else {
                0
            };
            if n > allowed {
                return Err(ExportError::OrderDependentLoop {
                    problem: LoopProblem::ReadsWritten {
                        var: w.state_names[slot as usize].clone(),
                    },
                    span: stmt.span,
                    at: wr.stmt.span,
                });
            }
        }
    }
    let mut updates = Vec::new();
    for &slot in &slots {
        let field = env.state_fields[slot as usize].clone();
        let old = format!("({field} {cur})");
        let mut parts = Vec::new();
        let mut kind = WriteKind::Add;
        for wr in writes.iter().filter(|wr| wr.slot == slot) {
            kind = wr.kind;
            let mut cond = vec![range.clone()];
            for (neg, g) in &wr.guards {
                let g = term(&env, g)?;
                cond.push(if *neg { format!("(\\<not> {g})") } else { g });
            }
            let cond = cond.join(" \\<and> ");
            let value = term(&env, wr.value)?;
            parts.push(match wr.kind {
                WriteKind::Point => {
                    format!("(\\<lambda>{name}. if {cond} then {value} else {old} {name})")
                }
                _ if value == name => format!("{{{name}. {cond}}}"),
                _ => format!("{{{value} |{name}. {cond}}}"),
            });
        }
        let new = match kind {
            WriteKind::Point => parts.remove(0),
            WriteKind::Add => format!("({old} \\<union> {})", parts.join(" \\<union> ")),
            WriteKind::Remove => format!("({old} - ({}))", parts.join(" \\<union> ")),
        };
        updates.push(format!("{field} := {new}"));
    }
    if updates.is_empty() {
        return Ok(cur.to_string());
    }
    Ok(format!("{cur}\\<lparr>{}\\<rparr>", updates.join(", ")))
}
