//! `for` loops as pointwise updates: a loop nest whose iterations are independent (the rules
//! of [`crate::loop_nest`], shared with the Isabelle export) becomes, for each variable it
//! writes, one fresh constant and a quantified axiom saying what each of its entries is after
//! the whole nest: `X′[q…] = if (some iteration writes q…) then its value else X[q…]` for `:=`,
//! and `y ∈ S′[q…] ⇔ y ∈ S[q…] ∨ (some iteration inserts y there)` for sets.

use super::expr::{Encoder, Env};
use super::sorts::relation;
use super::stmt::Root;
use crate::error::EncodeError;
use crate::loop_nest::{self, loop_var_of, Nest, NestError, Range, Write, WriteKind};
use ioa_lang::ir::{Place, Stmt, Type, VarRef};

/// A loop variable's SMT side: its bound variable, sort, and range condition.
struct Bound {
    name: String,
    sort: String,
    range: String,
}

/// The nest's loop variables bound, and the environment that sees them.
struct Scope {
    vars: Vec<Bound>,
    env: Env,
}

impl Encoder<'_> {
    /// The loop `s` as one pointwise update per variable it writes.
    pub(super) fn pointwise(&mut self, s: &Stmt, env: Env) -> Result<Env, EncodeError> {
        let spec = self.spec;
        let name = |r: &VarRef| loop_nest_name(spec, &env, r);
        let nest = loop_nest::analyse(s, env.automaton, &name).map_err(|e| match e {
            NestError::Statement { stmt, what } => EncodeError::Unsupported {
                what: match what {
                    loop_nest::Unencodable::While => "a `while` loop in an effect",
                    loop_nest::Unencodable::ScheduleStatement => "`fire` or `yield` in an effect",
                    loop_nest::Unencodable::Ensuring => "an `ensuring` check inside a loop",
                    loop_nest::Unencodable::FieldAssignment => {
                        "an assignment to a tuple's field inside a loop"
                    }
                    loop_nest::Unencodable::NonState => {
                        "an assignment to something other than a variable inside a loop"
                    }
                    loop_nest::Unencodable::ChooseInLoop => {
                        "a `choose` inside a loop (each iteration may choose differently)"
                    }
                },
                span: stmt.span,
            },
            NestError::OrderDependent { problem, at } => EncodeError::OrderDependentLoop {
                problem,
                span: s.span,
                at,
            },
        })?;
        let depth = self.bound.len();
        let result = self.emit(&nest, env, s);
        self.bound.truncate(depth);
        result
    }

    /// Binds the nest's loop variables (the outermost first, so that an inner loop's range
    /// reads the outer variables).
    fn bind_loops(&mut self, nest: &Nest<'_>, env: &Env) -> Result<Scope, EncodeError> {
        let mut env = env.clone();
        let mut vars = Vec::new();
        for v in &nest.vars {
            let name = self.script.fresh("x");
            let sort = self.elem_sort(&v.elem);
            let value = self.unbox(&v.elem, &name);
            self.bound.push(name.clone());
            let range = match v.range {
                Range::In(collection) => {
                    let ct = self.expr(collection, &env)?;
                    match &collection.ty {
                        Type::Set(_) => format!("(select {ct} {name})"),
                        Type::Mset(_) => format!("(> (select {ct} {name}) 0)"),
                        Type::Seq(_) => format!("(seq.contains {ct} (seq.unit {value}))"),
                        _ => {
                            return Err(EncodeError::Unsupported {
                                what: "a loop over this type",
                                span: v.span,
                            })
                        }
                    }
                }
                Range::Where(cond) => {
                    let mut inner = env.clone();
                    inner.bind(v.slot, value.clone());
                    self.expr(cond, &inner)?
                }
            };
            env.bind(v.slot, value);
            vars.push(Bound { name, sort, range });
        }
        Ok(Scope { vars, env })
    }

    /// One fresh constant and its axiom per variable the nest writes.
    fn emit(&mut self, nest: &Nest<'_>, mut env: Env, s: &Stmt) -> Result<Env, EncodeError> {
        let scope = self.bind_loops(nest, &env)?;
        let mut done: Vec<Root> = Vec::new();
        for w in &nest.writes {
            let place = Place {
                root: w.root.clone(),
                path: vec![],
            };
            let (root, ty, base) = self.root(&place, &env, w.stmt)?;
            if done.contains(&root) {
                continue;
            }
            let mine: Vec<&Write> = nest
                .writes
                .iter()
                .filter(|x| loop_nest::same_root(x.root, w.root, env.automaton))
                .collect();
            let old = self.current(&root, &env);
            let sort = self.sort(&ty);
            let new = self.script.fresh_const(&base, &sort);
            let axiom = match w.kind {
                WriteKind::Point(_) => self.point_axiom(nest, &scope, &mine, &ty, &old, &new, s)?,
                WriteKind::Insert(_) | WriteKind::Delete(_) => {
                    self.set_axiom(nest, &scope, &mine, &ty, &old, &new, s)?
                }
            };
            self.script.assert(&axiom);
            Self::set_current(&root, &mut env, new);
            done.push(root);
        }
        Ok(env)
    }

    /// The bound variables standing for the indices of the places `mine` write: a loop
    /// variable's own name where every write has that variable at that position (its range and
    /// the conditions then read it directly), else a fresh one; with their sorts, and for each
    /// position the loop it names, if any.
    #[allow(clippy::type_complexity)]
    fn index_vars(
        &mut self,
        nest: &Nest<'_>,
        scope: &Scope,
        mine: &[&Write],
        keys: &[Type],
    ) -> (Vec<String>, Vec<String>, Vec<Option<usize>>) {
        let (mut names, mut sorts, mut shared) = (Vec::new(), Vec::new(), Vec::new());
        for (j, key) in keys.iter().enumerate() {
            let first = loop_var_of(mine[0].path[j])
                .and_then(|l| nest.vars.iter().position(|v| v.slot == l));
            let common = first.filter(|k| {
                !shared.contains(&Some(*k))
                    && mine
                        .iter()
                        .all(|w| loop_var_of(w.path[j]) == Some(nest.vars[*k].slot))
            });
            match common {
                Some(k) => {
                    names.push(scope.vars[k].name.clone());
                    sorts.push(scope.vars[k].sort.clone());
                }
                None => {
                    let q = self.script.fresh("q");
                    self.bound.push(q.clone());
                    names.push(q);
                    sorts.push(self.elem_sort(key));
                }
            }
            shared.push(common);
        }
        (names, sorts, shared)
    }

    /// What write `w` requires of its loops and of the indices `names` it does not bind: the
    /// loops' ranges, the write's conditions, and `qⱼ = pⱼ`.
    fn write_condition(
        &mut self,
        scope: &Scope,
        w: &Write,
        names: &[String],
        shared: &[Option<usize>],
        keys: &[Type],
    ) -> Result<String, EncodeError> {
        let mut cond: Vec<String> = w
            .scope
            .iter()
            .map(|k| scope.vars[*k].range.clone())
            .collect();
        for (negated, c) in &w.guards {
            let t = self.expr(c, &scope.env)?;
            cond.push(if *negated { format!("(not {t})") } else { t });
        }
        for (j, i) in w.path.iter().enumerate() {
            if shared[j].is_none() {
                let t = self.expr(i, &scope.env)?;
                let t = self.boxed(&keys[j], t);
                cond.push(format!("(= {} {t})", names[j]));
            }
        }
        Ok(super::and(&cond))
    }

    /// `X′[q…] = if c₁ then v₁ elseif … else X[q…]` for every index, the writes `mine` being
    /// `X[p…] := vᵢ` (in different branches of one `if`).
    #[allow(clippy::too_many_arguments)]
    fn point_axiom(
        &mut self,
        nest: &Nest<'_>,
        scope: &Scope,
        mine: &[&Write],
        ty: &Type,
        old: &str,
        new: &str,
        s: &Stmt,
    ) -> Result<String, EncodeError> {
        let (types, keys) = steps(ty, mine[0].path.len(), s)?;
        let (names, sorts, shared) = self.index_vars(nest, scope, mine, &keys);
        let m = names.len();
        let container = types[m - 1].clone();
        let row = relation(&container).map(|(_, t)| t.clone());
        let y = match &row {
            Some(t) => {
                let y = self.script.fresh("y");
                self.bound.push(y.clone());
                Some((y, self.elem_sort(t)))
            }
            None => None,
        };
        let mut binders: Vec<String> = names
            .iter()
            .zip(&sorts)
            .map(|(n, s)| format!("({n} {s})"))
            .collect();
        if let Some((y, sort)) = &y {
            binders.push(format!("({y} {sort})"));
        }
        let at = |term: &str| -> String {
            let mut t = term.to_string();
            match &y {
                Some((y, _)) => {
                    for q in &names[..m - 1] {
                        t = format!("(select {t} {q})");
                    }
                    format!("(select {t} {} {y})", names[m - 1])
                }
                None => {
                    for q in &names {
                        t = format!("(select {t} {q})");
                    }
                    t
                }
            }
        };
        let mut body = at(old);
        for w in mine.iter().rev() {
            let c = self.write_condition(scope, w, &names, &shared, &keys)?;
            let value = w.kind.expr();
            let v = match (&y, &container) {
                (Some((y, _)), _) => self.member(value, y, &scope.env)?,
                (None, Type::Map(_, inner)) => {
                    self.sort(&container);
                    let v = self.expr(value, &scope.env)?;
                    format!("(embed_{} {v})", super::sorts::mangle(self.spec, inner))
                }
                (None, _) => self.expr(value, &scope.env)?,
            };
            body = format!("(ite {c} {v} {body})");
        }
        let lhs = at(new);
        Ok(format!(
            "(forall ({}) (! (= {lhs} {body}) :pattern ({lhs})))",
            binders.join(" ")
        ))
    }

    /// `y ∈ S′[q…] ⇔ y ∈ S[q…] ∨ (some iteration inserts y at q…)` (`∧ ¬` for deletions), for
    /// every index and element.
    #[allow(clippy::too_many_arguments)]
    fn set_axiom(
        &mut self,
        nest: &Nest<'_>,
        scope: &Scope,
        mine: &[&Write],
        ty: &Type,
        old: &str,
        new: &str,
        s: &Stmt,
    ) -> Result<String, EncodeError> {
        let m = mine[0].path.len();
        let (types, keys) = steps(ty, m, s)?;
        let in_row = m > 0 && relation(&types[m - 1]).is_some();
        let Type::Set(elem_ty) = &types[m] else {
            return Err(EncodeError::Unsupported {
                what: "a loop that inserts into or deletes from a non-set",
                span: s.span,
            });
        };
        let elem_ty = (**elem_ty).clone();
        let (names, sorts, shared) = self.index_vars(nest, scope, mine, &keys);
        // The element: a loop variable's own name when every write adds or removes exactly it.
        let elem_var = loop_var_of(mine[0].kind.expr())
            .and_then(|l| nest.vars.iter().position(|v| v.slot == l))
            .filter(|k| {
                !shared.contains(&Some(*k))
                    && mine
                        .iter()
                        .all(|w| loop_var_of(w.kind.expr()) == Some(nest.vars[*k].slot))
            });
        let (y, y_sort) = match elem_var {
            Some(k) => (scope.vars[k].name.clone(), scope.vars[k].sort.clone()),
            None => {
                let y = self.script.fresh("y");
                self.bound.push(y.clone());
                (y, self.elem_sort(&elem_ty))
            }
        };
        let mut hits = Vec::new();
        for w in mine {
            let mut c = vec![self.write_condition(scope, w, &names, &shared, &keys)?];
            if elem_var.is_none() {
                let t = self.expr(w.kind.expr(), &scope.env)?;
                let t = self.boxed(&elem_ty, t);
                c.push(format!("(= {y} {t})"));
            }
            let c = super::and(&c);
            // The write's loops that neither an index nor the element names: some iteration.
            let some: Vec<String> = w
                .scope
                .iter()
                .filter(|k| !shared.contains(&Some(**k)) && elem_var != Some(**k))
                .map(|k| format!("({} {})", scope.vars[*k].name, scope.vars[*k].sort))
                .collect();
            hits.push(if some.is_empty() {
                c
            } else {
                format!("(exists ({}) {c})", some.join(" "))
            });
        }
        let member = |term: &str| -> String {
            let mut t = term.to_string();
            for (j, q) in names.iter().enumerate() {
                if in_row && j == m - 1 {
                    return format!("(select {t} {q} {y})");
                }
                t = format!("(select {t} {q})");
            }
            format!("(select {t} {y})")
        };
        let any = super::or(&hits);
        let body = if matches!(mine[0].kind, WriteKind::Insert(_)) {
            format!("(or {} {any})", member(old))
        } else {
            format!("(and {} (not {any}))", member(old))
        };
        let mut binders: Vec<String> = names
            .iter()
            .zip(&sorts)
            .map(|(n, s)| format!("({n} {s})"))
            .collect();
        binders.push(format!("({y} {y_sort})"));
        let lhs = member(new);
        Ok(format!(
            "(forall ({}) (! (= {lhs} {body}) :pattern ({lhs})))",
            binders.join(" ")
        ))
    }
}

/// The types met selecting `depth` indices from a value of `ty` (`ty` first) and the index
/// types: only arrays may be passed through, and the last step may also be a map's entry.
fn steps(ty: &Type, depth: usize, s: &Stmt) -> Result<(Vec<Type>, Vec<Type>), EncodeError> {
    let mut types = vec![ty.clone()];
    let mut keys = Vec::new();
    let mut at = ty.clone();
    for j in 0..depth {
        at = match at {
            Type::Array(k, v) => {
                keys.push(*k);
                *v
            }
            Type::Map(k, v) if j + 1 == depth => {
                keys.push(*k);
                *v
            }
            _ => {
                return Err(EncodeError::Unsupported {
                    what: "a loop assigning into an entry of a map or sequence",
                    span: s.span,
                })
            }
        };
        types.push(at.clone());
    }
    Ok((types, keys))
}

/// A variable's name in messages: `x` for the automaton in scope, `A.x` for another one's.
fn loop_nest_name(spec: &ioa_lang::ir::Spec, env: &Env, r: &VarRef) -> String {
    let state = |a: ioa_lang::ir::AutomatonId, k: u32| {
        super::expr::state_vars(spec, a)
            .get(k as usize)
            .map(|v| v.name.clone())
            .unwrap_or_default()
    };
    match r {
        VarRef::State(k) => env
            .automaton
            .map(|a| loop_nest::display_name(&state(a, *k)).to_string())
            .unwrap_or_default(),
        VarRef::Qualified { automaton, slot } => format!(
            "{}.{}",
            spec.automata[automaton.0 as usize].name,
            state(*automaton, *slot)
        ),
        VarRef::Aux(k) => format!("auxiliary variable {k}"),
        _ => String::new(),
    }
}
