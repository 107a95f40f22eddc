//! Effects (statement sequences) as HOL: a state term when the effect is deterministic, a
//! relation between the pre-state and `σ'` when it makes choices.
//!
//! Statements are translated in order, like the interpreter runs them (SSA as a `let` chain of
//! intermediate states `σ1`, `σ2`, …). Consecutive assignments to different variables that do not
//! read each other's targets become one record update. A conditional becomes an `if` term. A
//! `choose` in a statement becomes an existential around the rest of the effect, with its
//! condition evaluated in the state reached so far. Loops are [`super::loops`]'s.

use super::error::{Construct, ExportError};
use super::expr::{chooses, state_reads, term, Choice, Env};
use super::loops::loop_update;
use ioa_lang::ir::{Expr, PlaceStep, Stmt, StmtKind, Type, VarRef};

/// Translates the effects of one automaton's transitions.
pub struct EffectWriter<'a> {
    /// Names and state terms; `hoisted` grows as `choose`s are bound.
    pub env: Env<'a>,
    /// State variable types, by slot.
    pub state_types: Vec<Type>,
    /// State variable names, by slot (for messages).
    pub state_names: Vec<String>,
    /// The stem of intermediate state names.
    pub stem: String,
    counter: usize,
}

/// The expressions a statement evaluates itself (not those of its nested statements).
pub(super) fn exprs_of(stmt: &Stmt) -> Vec<&Expr> {
    match &stmt.kind {
        StmtKind::Assign { target, value } => {
            let mut v: Vec<&Expr> = target
                .path
                .iter()
                .filter_map(|s| match s {
                    PlaceStep::Index(e) => Some(e),
                    PlaceStep::Field(_) => None,
                })
                .collect();
            v.push(value);
            v
        }
        StmtKind::If { branches, .. } => branches.iter().map(|(c, _)| c).collect(),
        StmtKind::ForIn { collection, .. } => vec![collection],
        StmtKind::ForWhere { cond, .. } | StmtKind::While { cond, .. } => vec![cond],
        StmtKind::Fire { args, .. } => args.iter().collect(),
        StmtKind::Yield(e) | StmtKind::Ensure(e) => vec![e],
        StmtKind::Ignore => vec![],
    }
}

/// The statements nested in a statement (branches and loop bodies).
pub(super) fn nested(stmt: &Stmt) -> Vec<&Stmt> {
    match &stmt.kind {
        StmtKind::If {
            branches,
            otherwise,
        } => branches
            .iter()
            .flat_map(|(_, b)| b.iter())
            .chain(otherwise.iter())
            .collect(),
        StmtKind::ForIn { body, .. }
        | StmtKind::ForWhere { body, .. }
        | StmtKind::While { body, .. } => body.iter().collect(),
        _ => vec![],
    }
}

impl<'a> EffectWriter<'a> {
    /// A writer over `env`, naming intermediate states `stem1`, `stem2`, ….
    pub fn new(env: Env<'a>, state_types: Vec<Type>, state_names: Vec<String>, stem: &str) -> Self {
        EffectWriter {
            env,
            state_types,
            state_names,
            stem: stem.to_string(),
            counter: 0,
        }
    }

    fn fresh(&mut self) -> String {
        self.counter += 1;
        format!("{}{}", self.stem, self.counter)
    }

    /// Whether `stmt` (or a statement inside it) contains a `choose` not yet bound.
    pub fn has_choice(&self, stmt: &Stmt) -> bool {
        let mut found = Vec::new();
        for e in exprs_of(stmt) {
            chooses(e, &self.env.hoisted, &mut found);
        }
        !found.is_empty() || nested(stmt).iter().any(|s| self.has_choice(s))
    }

    /// Whether the whole effect is deterministic.
    pub fn is_deterministic(&self, stmts: &[Stmt]) -> bool {
        !stmts.iter().any(|s| self.has_choice(s))
    }

    /// The relation `post = effect(cur)`, with existentials for the effect's choices.
    pub fn relation(
        &mut self,
        stmts: &[Stmt],
        cur: &str,
        post: &str,
    ) -> Result<String, ExportError> {
        let Some(j) = stmts.iter().position(|s| self.has_choice(s)) else {
            return Ok(format!("{post} = {}", self.state_term(stmts, cur)?));
        };
        if j > 0 {
            let prefix = self.state_term(&stmts[..j], cur)?;
            let name = self.fresh();
            let rest = self.relation(&stmts[j..], &name, post)?;
            return Ok(format!("(let {name} = {prefix} in {rest})"));
        }
        let stmt = &stmts[0];
        match &stmt.kind {
            StmtKind::Assign { .. } => {
                let mut found: Vec<Choice> = Vec::new();
                for e in exprs_of(stmt) {
                    chooses(e, &self.env.hoisted, &mut found);
                }
                let choice = &found[0];
                if let Some(cond) = choice.cond {
                    let mut inner = Vec::new();
                    chooses(cond, &self.env.hoisted, &mut inner);
                    if !inner.is_empty() {
                        return Err(ExportError::Unsupported {
                            construct: Construct::NestedChoose,
                            span: choice.expr.span,
                        });
                    }
                }
                let env = self.env.at_state(cur);
                let var = env.local(choice.var, choice.ty);
                let ty = super::expr::type_in_term(&env, choice.ty);
                let cond = match choice.cond {
                    Some(c) => Some(term(&env, c)?),
                    None => None,
                };
                self.env.hoisted.insert(choice.var);
                let rest = self.relation(stmts, cur, post)?;
                Ok(match cond {
                    Some(c) => format!("(\\<exists>({var}::{ty}). {c} \\<and> {rest})"),
                    None => format!("(\\<exists>({var}::{ty}). {rest})"),
                })
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                let env = self.env.at_state(cur);
                let mut out = String::from("(");
                for (cond, body) in branches {
                    let mut found = Vec::new();
                    chooses(cond, &self.env.hoisted, &mut found);
                    if let Some(c) = found.first() {
                        return Err(ExportError::Unsupported {
                            construct: Construct::ChooseOutsideEffect,
                            span: c.expr.span,
                        });
                    }
                    let mut seq = body.clone();
                    seq.extend_from_slice(&stmts[1..]);
                    out.push_str(&format!(
                        "if {} then {} else ",
                        term(&env, cond)?,
                        self.relation(&seq, cur, post)?
                    ));
                }
                let mut seq = otherwise.clone();
                seq.extend_from_slice(&stmts[1..]);
                out.push_str(&self.relation(&seq, cur, post)?);
                out.push(')');
                Ok(out)
            }
            _ => Err(ExportError::Unsupported {
                construct: Construct::ChooseInLoop,
                span: stmt.span,
            }),
        }
    }

    /// The state after the deterministic statements `stmts`, run from state `cur`.
    pub fn state_term(&mut self, stmts: &[Stmt], cur: &str) -> Result<String, ExportError> {
        let segments = self.segments(stmts)?;
        if segments.is_empty() {
            return Ok(cur.to_string());
        }
        let mut cur = cur.to_string();
        let mut bindings = Vec::new();
        let last = segments.len() - 1;
        for (k, seg) in segments.iter().enumerate() {
            let t = self.segment_term(seg, &cur)?;
            if k == last {
                if bindings.is_empty() {
                    return Ok(t);
                }
                return Ok(format!("(let {} in {t})", bindings.join("; ")));
            }
            let name = self.fresh();
            bindings.push(format!("{name} = {t}"));
            cur = name;
        }
        unreachable!("the last segment returns")
    }

    /// Splits statements into steps: runs of independent assignments, and single statements.
    fn segments<'s>(&self, stmts: &'s [Stmt]) -> Result<Vec<Vec<&'s Stmt>>, ExportError> {
        let mut out: Vec<Vec<&Stmt>> = Vec::new();
        let mut run: Vec<&Stmt> = Vec::new();
        let mut written: Vec<u32> = Vec::new();
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Assign { target, .. } => {
                    let VarRef::State(root) = target.root else {
                        // Only an `ensuring` clause saves pre-state values into locals.
                        let construct = match target.root {
                            VarRef::Local(_) => Construct::Ensuring,
                            _ => Construct::AssignToNonState,
                        };
                        return Err(ExportError::Unsupported {
                            construct,
                            span: stmt.span,
                        });
                    };
                    let reads_written = exprs_of(stmt)
                        .iter()
                        .flat_map(|e| state_reads(e))
                        .any(|s| written.contains(&s));
                    if reads_written || written.contains(&root) {
                        out.push(std::mem::take(&mut run));
                        written.clear();
                    }
                    written.push(root);
                    run.push(stmt);
                }
                StmtKind::Ignore => {}
                _ => {
                    if !run.is_empty() {
                        out.push(std::mem::take(&mut run));
                        written.clear();
                    }
                    out.push(vec![stmt]);
                }
            }
        }
        if !run.is_empty() {
            out.push(run);
        }
        Ok(out)
    }

    fn segment_term(&mut self, seg: &[&Stmt], cur: &str) -> Result<String, ExportError> {
        let first = seg[0];
        match &first.kind {
            StmtKind::Assign { .. } => {
                let mut updates = Vec::new();
                for stmt in seg {
                    let StmtKind::Assign { target, value } = &stmt.kind else {
                        unreachable!("a run holds assignments only")
                    };
                    let VarRef::State(root) = target.root else {
                        unreachable!("checked in segments")
                    };
                    let env = self.env.at_state(cur);
                    let field = env.state_fields[root as usize].clone();
                    let value = term(&env, value)?;
                    let base = format!("({field} {cur})");
                    let ty = self.state_types[root as usize].clone();
                    let new = update(&env, &base, &ty, &target.path, value)?;
                    updates.push(format!("{field} := {new}"));
                }
                Ok(format!("{cur}\\<lparr>{}\\<rparr>", updates.join(", ")))
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                let env = self.env.at_state(cur);
                let mut out = String::from("(");
                for (cond, body) in branches {
                    let c = term(&env, cond)?;
                    let t = self.state_term(body, cur)?;
                    out.push_str(&format!("if {c} then {t} else "));
                }
                out.push_str(&self.state_term(otherwise, cur)?);
                out.push(')');
                Ok(out)
            }
            StmtKind::ForIn { .. } | StmtKind::ForWhere { .. } => loop_update(self, first, cur),
            StmtKind::While { .. } => Err(ExportError::Unsupported {
                construct: Construct::While,
                span: first.span,
            }),
            StmtKind::Fire { .. } | StmtKind::Yield(_) | StmtKind::Ignore => {
                Err(ExportError::Unsupported {
                    construct: Construct::ScheduleStatement,
                    span: first.span,
                })
            }
            StmtKind::Ensure(_) => Err(ExportError::Unsupported {
                construct: Construct::Ensuring,
                span: first.span,
            }),
        }
    }
}

/// The value of `base` (of type `ty`) with the place `path` inside it set to `value`.
pub fn update(
    env: &Env,
    base: &str,
    ty: &Type,
    path: &[PlaceStep],
    value: String,
) -> Result<String, ExportError> {
    let Some((step, rest)) = path.split_first() else {
        return Ok(value);
    };
    Ok(match (step, ty) {
        (PlaceStep::Index(i), Type::Array(_, v)) => {
            let i = term(env, i)?;
            let inner = update(env, &format!("({base} {i})"), v, rest, value)?;
            format!("({base}({i} := {inner}))")
        }
        (PlaceStep::Index(i), Type::Map(_, v)) => {
            let i = term(env, i)?;
            let inner = update(env, &format!("(the ({base} {i}))"), v, rest, value)?;
            format!("({base}({i} \\<mapsto> {inner}))")
        }
        (PlaceStep::Index(i), Type::Seq(v)) => {
            let i = term(env, i)?;
            let inner = update(env, &format!("({base} ! nat {i})"), v, rest, value)?;
            format!("(list_update {base} (nat {i}) {inner})")
        }
        (PlaceStep::Field(k), Type::Named(id)) => {
            let field = env.names.field(id.0, *k);
            let fty = match &env.names.spec().types[id.0 as usize].kind {
                ioa_lang::ir::TypeDefKind::Tuple(fields) => fields[*k as usize].1.clone(),
                _ => Type::Bool,
            };
            let inner = update(env, &format!("({field} {base})"), &fty, rest, value)?;
            format!("({base}\\<lparr>{field} := {inner}\\<rparr>)")
        }
        _ => format!("(undefined {value})"),
    })
}
