//! `for` loops in effects as one simultaneous, pointwise update of each variable they write.
//!
//! Which loops qualify is decided by [`crate::loop_nest`], the analysis the SMT encoding uses
//! too: each assignment adds to or removes from a set (`X := insert(e, X)`, `X ∪ {e}`,
//! `delete(e, X)`, `X - {e}`), or sets an entry that its iteration owns (`X[x] := e`, or
//! `P.x[k][j] := e` for a family member's loop inside the family's loop); nothing the loops
//! evaluate reads what they write, except that entry before writing it. Anything else may
//! depend on the order of iterations and is reported (E1202) rather than translated wrongly.
//!
//! The update of `X` is `λq₁ … qₘ. if c₁ then v₁ else … else X q₁ … qₘ` for `:=` (the loop
//! variables that index the entry are the λ's own variables), and
//! `λq₁ … qₘ. X q₁ … qₘ ∪ {e |x. c}` (or `-`) for a set, where `c` says that some iteration
//! runs the assignment: the loops' ranges, the `if` conditions around it, and the indices.

use super::effect::EffectWriter;
use super::error::{Construct, ExportError};
use super::expr::{term, Env};
use crate::loop_nest::{self, loop_var_of, Nest, NestError, Range, Unencodable, Write, WriteKind};
use ioa_lang::ir::{Stmt, Type, VarRef};

/// The state `cur` after the loop `stmt`, as a record update.
pub fn loop_update(w: &mut EffectWriter, stmt: &Stmt, cur: &str) -> Result<String, ExportError> {
    let env: Env = w.env.at_state(cur);
    let names = w.state_names.clone();
    let name = |r: &VarRef| match r {
        VarRef::State(k) => names
            .get(*k as usize)
            .map(|n| loop_nest::display_name(n).to_string())
            .unwrap_or_default(),
        _ => String::new(),
    };
    let nest = loop_nest::analyse(stmt, None, &name).map_err(|e| match e {
        NestError::Statement { stmt, what } => ExportError::Unsupported {
            construct: match what {
                Unencodable::While => Construct::While,
                Unencodable::ScheduleStatement => Construct::ScheduleStatement,
                Unencodable::Ensuring => Construct::Ensuring,
                Unencodable::FieldAssignment => Construct::FieldInLoop,
                Unencodable::NonState => Construct::AssignToNonState,
                Unencodable::ChooseInLoop => Construct::ChooseInLoop,
            },
            span: stmt.span,
        },
        NestError::OrderDependent { problem, at } => ExportError::OrderDependentLoop {
            problem,
            span: stmt.span,
            at,
        },
    })?;
    let mut ranges = Vec::new();
    for v in &nest.vars {
        let local = env.local(v.slot, &v.elem);
        ranges.push(match v.range {
            Range::In(collection) => {
                if !matches!(collection.ty, Type::Set(_)) {
                    return Err(ExportError::Unsupported {
                        construct: Construct::LoopOverCollection,
                        span: v.span,
                    });
                }
                format!("({local} \\<in> {})", term(&env, collection)?)
            }
            Range::Where(cond) => term(&env, cond)?,
        });
    }
    let mut updates = Vec::new();
    let mut done: Vec<u32> = Vec::new();
    for wr in &nest.writes {
        let VarRef::State(slot) = *wr.root else {
            return Err(ExportError::Unsupported {
                construct: Construct::AssignToNonState,
                span: wr.stmt.span,
            });
        };
        if done.contains(&slot) {
            continue;
        }
        done.push(slot);
        let mine: Vec<&Write> = nest
            .writes
            .iter()
            .filter(|x| matches!(x.root, VarRef::State(k) if *k == slot))
            .collect();
        let field = env.state_fields[slot as usize].clone();
        let old = format!("({field} {cur})");
        let ty = w.state_types[slot as usize].clone();
        let new = update(&env, &nest, &ranges, &mine, &old, &ty, stmt)?;
        updates.push(format!("{field} := {new}"));
    }
    if updates.is_empty() {
        return Ok(cur.to_string());
    }
    Ok(format!("{cur}\\<lparr>{}\\<rparr>", updates.join(", ")))
}

/// The new value of the variable `old` of type `ty` that the writes `mine` update.
fn update(
    env: &Env,
    nest: &Nest<'_>,
    ranges: &[String],
    mine: &[&Write],
    old: &str,
    ty: &Type,
    stmt: &Stmt,
) -> Result<String, ExportError> {
    let m = mine[0].path.len();
    let (map_entry, set) = steps(ty, m).ok_or(ExportError::Unsupported {
        construct: Construct::LoopIntoMapOrSequence,
        span: stmt.span,
    })?;
    // The λ's variables: a loop variable where every write has it at that index.
    let mut binders: Vec<String> = Vec::new();
    let mut shared: Vec<Option<usize>> = Vec::new();
    for j in 0..m {
        let common = loop_var_of(mine[0].path[j])
            .and_then(|l| nest.vars.iter().position(|v| v.slot == l))
            .filter(|k| {
                !shared.contains(&Some(*k))
                    && mine
                        .iter()
                        .all(|w| loop_var_of(w.path[j]) == Some(nest.vars[*k].slot))
            });
        binders.push(match common {
            Some(k) => env.local(nest.vars[k].slot, &nest.vars[k].elem),
            None => format!("ix{j}"),
        });
        shared.push(common);
    }
    let applied = if m == 0 {
        old.to_string()
    } else {
        format!("{old} {}", binders.join(" "))
    };
    let lambda = |body: String| {
        if m == 0 {
            body
        } else {
            format!("(\\<lambda>{}. {body})", binders.join(" "))
        }
    };
    // When write `w` runs for the λ's indices: its loops' ranges, its conditions, and the
    // indices the λ does not bind by a loop variable.
    let condition = |w: &Write| -> Result<String, ExportError> {
        let mut c: Vec<String> = w.scope.iter().map(|k| ranges[*k].clone()).collect();
        for (negated, g) in &w.guards {
            let t = term(env, g)?;
            c.push(if *negated {
                format!("(\\<not> {t})")
            } else {
                t
            });
        }
        for (j, i) in w.path.iter().enumerate() {
            if shared[j].is_none() {
                c.push(format!("{} = {}", binders[j], term(env, i)?));
            }
        }
        Ok(if c.is_empty() {
            "True".to_string()
        } else {
            c.join(" \\<and> ")
        })
    };
    if let WriteKind::Point(_) = mine[0].kind {
        let mut body = String::new();
        for w in mine {
            let v = term(env, w.kind.expr())?;
            let v = if map_entry { format!("(Some {v})") } else { v };
            body.push_str(&format!("if {} then {v} else ", condition(w)?));
        }
        body.push_str(&applied);
        return Ok(lambda(body));
    }
    if !set {
        return Err(ExportError::Unsupported {
            construct: Construct::LoopIntoMapOrSequence,
            span: stmt.span,
        });
    }
    let mut parts = Vec::new();
    for w in mine {
        let c = condition(w)?;
        let elem = w.kind.expr();
        let value = term(env, elem)?;
        // The write's loops that no index names: some iteration of them.
        let some: Vec<usize> = w
            .scope
            .iter()
            .copied()
            .filter(|k| !shared.contains(&Some(*k)))
            .collect();
        let names: Vec<String> = some
            .iter()
            .map(|k| env.local(nest.vars[*k].slot, &nest.vars[*k].elem))
            .collect();
        parts.push(match names.as_slice() {
            [] => format!("(if {c} then {{{value}}} else {{}})"),
            [only] if value == *only => format!("{{{only}. {c}}}"),
            _ => format!("{{{value} |{}. {c}}}", names.join(" ")),
        });
    }
    let base = if m == 0 {
        applied
    } else {
        format!("({applied})")
    };
    let body = match mine[0].kind {
        WriteKind::Delete(_) => format!("({base} - ({}))", parts.join(" \\<union> ")),
        _ => format!("({base} \\<union> {})", parts.join(" \\<union> ")),
    };
    Ok(lambda(body))
}

/// Whether selecting `depth` indices from a value of `ty` passes only through arrays (the last
/// step may be a map's entry): (the last step is a map's entry, the place is a set).
fn steps(ty: &Type, depth: usize) -> Option<(bool, bool)> {
    let mut at = ty;
    let mut map_entry = false;
    for j in 0..depth {
        at = match at {
            Type::Array(_, v) => v,
            Type::Map(_, v) if j + 1 == depth => {
                map_entry = true;
                v
            }
            _ => return None,
        };
    }
    Some((map_entry, matches!(at, Type::Set(_))))
}
