//! Candidate invariants read off the program text.
//!
//! The invariants a proof needs usually say that what an action checked before writing a state
//! variable stays true of what it wrote. The paper's Inv4 "closely resembles the precondition
//! for assignVal" (§8), and Inv6 is internalDecide's precondition stated for every ballot in
//! `succeeded`; Daikon's grammar has neither. So for every write `x := …` in a transition, under
//! the guards it happens under (the transition's `where` and `pre` conjuncts, enclosing `if`
//! conditions and loop conditions), each guard conjunct that mentions the action's parameters or
//! loop variables becomes a candidate:
//!
//! - an insertion `x := x ∪ {e}` or `x := insert(e, x)`, or an append `x := x ⊢ e`:
//!   `∀ vars (e ∈ x ⇒ G)`;
//! - an insertion of a set parameter `x := x ∪ B`: `∀ vars (G[B := x])`;
//! - a write of a value `x[k] := embed(v)` to a `Null` array: `∀ vars (x[k] ≠ nil ⇒ G[v := x[k].val])`;
//! - any other write `x := e`: `∀ vars (x = e ⇒ G)`.
//!
//! Plus one structural template that no run-based grammar proposes: any two members of a
//! `Set[Set[T]]` variable intersect (what makes quorums work). Candidates are IOA source text;
//! most are false, and later stages (runs, exploration, the Houdini fixpoint) discard those.

use ioa_lang::ast::{
    ActionArg, AutomatonBody, AutomatonDecl, BinOp, Expr, ExprKind, Item, Param, Primitive,
    SigParam, SourceFile, Stmt, StmtKind, TypeExpr,
};
use ioa_lang::pretty::{print_expr, print_type};
use ioa_lang::span::Span;

/// A candidate invariant in IOA syntax, with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The predicate, as IOA source.
    pub text: String,
    /// Where it came from, for reports (`write to val in assignVal, pre conjunct 4`).
    pub origin: String,
}

/// Candidates for primitive automaton `automaton` of the parsed `files`, deduplicated, in the
/// order the writes appear.
pub fn from_program(files: &[SourceFile], automaton: &str) -> Vec<Candidate> {
    let Some((decl, body)) = files
        .iter()
        .flat_map(|f| &f.items)
        .find_map(|item| match item {
            Item::Automaton(
                a @ AutomatonDecl {
                    body: AutomatonBody::Primitive(p),
                    ..
                },
            ) if a.name.name == automaton => Some((a, p)),
            _ => None,
        })
    else {
        return Vec::new();
    };
    let mut out = Templates {
        automaton: body,
        found: Vec::new(),
    };
    let _ = decl;
    for t in &body.transitions {
        let mut binders: Vec<Param> = Vec::new();
        let formal = signature_types(body, &t.name.name);
        for (k, arg) in t.args.iter().enumerate() {
            if let ActionArg::Bind { name, ty } = arg {
                let ty = ty.clone().or_else(|| formal.get(k).cloned().flatten());
                if let Some(ty) = ty {
                    binders.push(Param {
                        name: name.clone(),
                        ty,
                    });
                }
            }
        }
        let mut guards: Vec<(Expr, String)> = Vec::new();
        for (clause, what) in [(&t.where_clause, "where"), (&t.pre, "pre")] {
            if let Some(e) = clause {
                for (k, c) in conjuncts(e).into_iter().enumerate() {
                    guards.push((c.clone(), format!("{what} conjunct {}", k + 1)));
                }
            }
        }
        let site = Site {
            action: &t.name.name,
            binders,
            guards,
        };
        out.stmts(&t.eff, &site);
    }
    for s in &body.states {
        if is_set_of_sets(&s.ty) {
            let elem = &s.ty.args[0];
            let x = &s.name.name;
            let t = print_type(elem);
            out.push(
                format!("∀ q1: {t} (q1 ∈ {x} ⇒ ∀ q2: {t} (q2 ∈ {x} ⇒ q1 ∩ q2 ≠ {{}}))"),
                format!("any two members of {x} intersect"),
            );
        }
    }
    out.found
}

/// The formal parameter types of action `name`, by position (`None` for `const` positions).
fn signature_types(p: &Primitive, name: &str) -> Vec<Option<TypeExpr>> {
    p.signature
        .iter()
        .find(|e| e.name.name == name)
        .map(|e| {
            e.params
                .iter()
                .map(|sp| match sp {
                    SigParam::Formal(p) => Some(p.ty.clone()),
                    SigParam::Const(_) => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

fn is_set_of_sets(t: &TypeExpr) -> bool {
    t.name.name == "Set" && t.args.len() == 1 && t.args[0].name.name == "Set"
}

/// Where a write happens: the action, the variables bound there, and the guards.
#[derive(Clone)]
struct Site<'a> {
    action: &'a str,
    binders: Vec<Param>,
    guards: Vec<(Expr, String)>,
}

struct Templates<'a> {
    automaton: &'a Primitive,
    found: Vec<Candidate>,
}

impl Templates<'_> {
    fn push(&mut self, text: String, origin: String) {
        if !self.found.iter().any(|c| c.text == text) {
            self.found.push(Candidate { text, origin });
        }
    }

    fn is_state(&self, name: &str) -> bool {
        self.automaton.states.iter().any(|s| s.name.name == name)
    }

    fn stmts(&mut self, stmts: &[Stmt], site: &Site) {
        for s in stmts {
            self.stmt(s, site);
        }
    }

    fn stmt(&mut self, s: &Stmt, site: &Site) {
        match &s.kind {
            StmtKind::Assign { lhs, rhs, .. } => self.write(lhs, rhs, site),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (c, body) in branches {
                    let mut inner = site.clone();
                    for (k, g) in conjuncts(c).into_iter().enumerate() {
                        inner
                            .guards
                            .push((g.clone(), format!("if condition, conjunct {}", k + 1)));
                    }
                    self.stmts(body, &inner);
                }
                if let Some(body) = otherwise {
                    self.stmts(body, site);
                }
            }
            StmtKind::ForIn {
                var,
                collection,
                body,
            } => {
                let mut inner = site.clone();
                inner.binders.push(var.clone());
                inner.guards.push((
                    binary(BinOp::In, name_expr(var), collection.clone()),
                    "loop range".into(),
                ));
                self.stmts(body, &inner);
            }
            StmtKind::ForWhere { var, cond, body } => {
                let mut inner = site.clone();
                inner.binders.push(var.clone());
                for (k, g) in conjuncts(cond).into_iter().enumerate() {
                    inner
                        .guards
                        .push((g.clone(), format!("loop condition, conjunct {}", k + 1)));
                }
                self.stmts(body, &inner);
            }
            StmtKind::While { body, .. } => self.stmts(body, site),
            StmtKind::Fire { .. } | StmtKind::Ignore | StmtKind::Yield(_) | StmtKind::Det(_) => {}
        }
    }

    /// The candidates for one write `lhs := rhs`.
    fn write(&mut self, lhs: &Expr, rhs: &Expr, site: &Site) {
        let Some(var) = root_name(lhs) else { return };
        if !self.is_state(var) {
            return;
        }
        let origin = |g: &str| format!("write to {var} in {}, {g}", site.action);
        let lhs_text = print_expr(lhs);
        // What the write says about the written place, as a fact to assume, or a substitution.
        enum Shape {
            Fact(Expr),
            Subst(String, Expr),
        }
        let mut shapes = Vec::new();
        let inserted = inserted_part(lhs, rhs, &lhs_text);
        match inserted {
            Some(Inserted::Elements(elems)) => {
                for e in elems {
                    shapes.push(Shape::Fact(binary(BinOp::In, e.clone(), lhs.clone())));
                }
            }
            Some(Inserted::Set(set)) => match &set.kind {
                ExprKind::Name(id) if site.binders.iter().any(|b| b.name.name == id.name) => {
                    shapes.push(Shape::Subst(id.name.clone(), lhs.clone()))
                }
                _ => {}
            },
            None => match &rhs.kind {
                ExprKind::Call(f, args) if f.name == "embed" && args.len() == 1 => {
                    if let ExprKind::Name(id) = &args[0].kind {
                        if site.binders.iter().any(|b| b.name.name == id.name) {
                            let val = Expr {
                                kind: ExprKind::Field(
                                    Box::new(lhs.clone()),
                                    ident("val", lhs.span),
                                ),
                                span: lhs.span,
                            };
                            shapes.push(Shape::Subst(id.name.clone(), val));
                        }
                    }
                    // Also the plain equation, in case the guard needs the embedded form.
                    shapes.push(Shape::Fact(binary(BinOp::Eq, lhs.clone(), rhs.clone())));
                }
                _ => shapes.push(Shape::Fact(binary(BinOp::Eq, lhs.clone(), rhs.clone()))),
            },
        }
        for shape in &shapes {
            for (g, what) in &site.guards {
                // Only guards that relate the write to the action's values say something
                // about the written place; a guard on the pre-state alone does not.
                if !site.binders.iter().any(|b| mentions(g, &b.name.name)) {
                    continue;
                }
                let (fact, guard) = match shape {
                    Shape::Fact(fact) => (Some(fact.clone()), g.clone()),
                    Shape::Subst(name, with) => {
                        if !mentions(g, name) {
                            continue;
                        }
                        let nonnil = matches!(&with.kind, ExprKind::Field(..))
                            .then(|| binary(BinOp::Neq, lhs.clone(), nil(lhs.span)));
                        (nonnil, substitute(g, name, with))
                    }
                };
                // A guard that reads `e.val` was checked where `e ≠ nil` held; without that
                // conjunct the candidate says nothing when `e` is nil (and is rarely inductive).
                let guard = defined_by(g, &site.guards)
                    .into_iter()
                    .rev()
                    .fold(guard, |acc, d| binary(BinOp::And, d, acc));
                // Variables the fact pins down are universal; a variable only the guard
                // mentions was some action instance's choice, so it is existential (and the
                // candidate is dropped when that would range over sets of values).
                let in_fact = |p: &&Param| fact.as_ref().is_some_and(|f| mentions(f, &p.name.name));
                let universal: Vec<&Param> = site
                    .binders
                    .iter()
                    .filter(|b| in_fact(b) || (fact.is_none() && mentions(&guard, &b.name.name)))
                    .collect();
                let existential: Vec<&Param> = site
                    .binders
                    .iter()
                    .filter(|b| !universal.contains(b) && mentions(&guard, &b.name.name))
                    .collect();
                if existential.iter().any(|p| is_collection(&p.ty)) {
                    continue;
                }
                let guard = if existential.is_empty() {
                    guard
                } else {
                    Expr {
                        kind: ExprKind::Quant(
                            ioa_lang::ast::Quantifier::Exists,
                            existential.iter().map(|p| (*p).clone()).collect(),
                            Box::new(guard),
                        ),
                        span: g.span,
                    }
                };
                let body = match fact {
                    Some(f) => binary(BinOp::Implies, f, guard),
                    None => guard,
                };
                let text = quantify(&universal, &body);
                self.push(text, origin(what));
            }
        }
    }
}

/// The guards `e ≠ nil` of a site whose `e.val` guard `g` reads, in the site's order.
fn defined_by(g: &Expr, guards: &[(Expr, String)]) -> Vec<Expr> {
    guards
        .iter()
        .filter_map(|(h, _)| match &h.kind {
            ExprKind::Binary(BinOp::Neq, e, n) if matches!(n.kind, ExprKind::Nil) => {
                reads_val_of(g, e).then(|| h.clone())
            }
            _ => None,
        })
        .collect()
}

/// Whether `g` reads `e.val` where `e` means what it means outside `g` (none of its free
/// variables bound there).
fn reads_val_of(g: &Expr, e: &Expr) -> bool {
    let text = print_expr(e);
    let mut free: Vec<&str> = Vec::new();
    visit_bound(e, &mut Vec::new(), &mut |x, bound| {
        if let ExprKind::Name(id) = &x.kind {
            if !bound.contains(&id.name.as_str()) {
                free.push(id.name.as_str());
            }
        }
    });
    let mut found = false;
    visit_bound(g, &mut Vec::new(), &mut |x, bound| {
        if let ExprKind::Field(a, field) = &x.kind {
            found |= field.name == "val"
                && !free.iter().any(|n| bound.contains(n))
                && print_expr(a) == text;
        }
    });
    found
}

/// Types whose carriers are sets of values (too large to quantify over existentially).
fn is_collection(t: &TypeExpr) -> bool {
    matches!(
        t.name.name.as_str(),
        "Set" | "Mset" | "Seq" | "Array" | "Map"
    )
}

/// What a write adds to a set-valued place.
enum Inserted<'a> {
    /// `x ∪ {e, …}` or `insert(e, x)`.
    Elements(Vec<&'a Expr>),
    /// `x ∪ S` for another set expression `S`.
    Set(&'a Expr),
}

/// Recognises `lhs := lhs ∪ E`, `lhs := E ∪ lhs`, `lhs := insert(e, lhs)` and a sequence's
/// `lhs := lhs ⊢ e`.
fn inserted_part<'a>(lhs: &Expr, rhs: &'a Expr, lhs_text: &str) -> Option<Inserted<'a>> {
    let same = |e: &Expr| print_expr(e) == lhs_text;
    let _ = lhs;
    match &rhs.kind {
        ExprKind::Binary(BinOp::Union, a, b) => {
            let other = if same(a) {
                b
            } else if same(b) {
                a
            } else {
                return None;
            };
            match &other.kind {
                ExprKind::SetLit(elems) => Some(Inserted::Elements(elems.iter().collect())),
                _ => Some(Inserted::Set(other)),
            }
        }
        ExprKind::Call(f, args) if f.name == "insert" && args.len() == 2 && same(&args[1]) => {
            Some(Inserted::Elements(vec![&args[0]]))
        }
        ExprKind::Binary(BinOp::Append, a, e) if same(a) => Some(Inserted::Elements(vec![e])),
        _ => None,
    }
}

/// The state variable a place writes: `x`, `x[i]`, `x.f`.
fn root_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(id) => Some(&id.name),
        ExprKind::Index(base, _) | ExprKind::Field(base, _) => root_name(base),
        _ => None,
    }
}

/// The top-level conjuncts of `e`.
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Binary(BinOp::And, a, b) => {
            let mut v = conjuncts(a);
            v.extend(conjuncts(b));
            v
        }
        _ => vec![e],
    }
}

/// `∀ x: T, y: U (body)`, or `body` when nothing is bound.
fn quantify(vars: &[&Param], body: &Expr) -> String {
    let body = print_expr(body);
    if vars.is_empty() {
        return body;
    }
    let binders: Vec<String> = vars
        .iter()
        .map(|p| format!("{}: {}", p.name.name, print_type(&p.ty)))
        .collect();
    format!("∀ {} ({body})", binders.join(", "))
}

/// Whether `name` occurs free in `e`.
pub(crate) fn mentions(e: &Expr, name: &str) -> bool {
    let mut found = false;
    visit_bound(e, &mut Vec::new(), &mut |x, bound| {
        found |= matches!(&x.kind, ExprKind::Name(id) if id.name == name && !bound.contains(&name));
    });
    found
}

/// Calls `f` on `e` and every subexpression, with the variables bound around it (by
/// quantifiers, set comprehensions and `choose`).
fn visit_bound<'e>(e: &'e Expr, bound: &mut Vec<&'e str>, f: &mut dyn FnMut(&'e Expr, &[&'e str])) {
    f(e, bound);
    match &e.kind {
        ExprKind::Name(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Char(_)
        | ExprKind::Real(..)
        | ExprKind::Nil => {}
        ExprKind::Tuple(xs) | ExprKind::SetLit(xs) | ExprKind::Call(_, xs) => {
            for x in xs {
                visit_bound(x, bound, f);
            }
        }
        ExprKind::Unary(_, a) | ExprKind::Field(a, _) | ExprKind::Is(a, _) => {
            visit_bound(a, bound, f)
        }
        ExprKind::Binary(_, a, b) => {
            visit_bound(a, bound, f);
            visit_bound(b, bound, f);
        }
        ExprKind::Index(a, xs) => {
            visit_bound(a, bound, f);
            for x in xs {
                visit_bound(x, bound, f);
            }
        }
        ExprKind::Quant(_, params, body) => {
            let depth = bound.len();
            bound.extend(params.iter().map(|p| p.name.name.as_str()));
            visit_bound(body, bound, f);
            bound.truncate(depth);
        }
        ExprKind::SetComp { var, cond } => {
            bound.push(var.name.name.as_str());
            visit_bound(cond, bound, f);
            bound.pop();
        }
        ExprKind::Cond(a, b, c) => {
            visit_bound(a, bound, f);
            visit_bound(b, bound, f);
            visit_bound(c, bound, f);
        }
        ExprKind::Choose { var, cond, .. } => {
            if let Some(c) = cond {
                bound.push(var.name.name.as_str());
                visit_bound(c, bound, f);
                bound.pop();
            }
        }
    }
}

/// `e` with every free `name` replaced by `with`.
pub(crate) fn substitute(e: &Expr, name: &str, with: &Expr) -> Expr {
    let sub = |x: &Expr| substitute(x, name, with);
    let kind = match &e.kind {
        ExprKind::Name(id) if id.name == name => return with.clone(),
        ExprKind::Tuple(xs) => ExprKind::Tuple(xs.iter().map(sub).collect()),
        ExprKind::SetLit(xs) => ExprKind::SetLit(xs.iter().map(sub).collect()),
        ExprKind::Call(fun, xs) => ExprKind::Call(fun.clone(), xs.iter().map(sub).collect()),
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(sub(a))),
        ExprKind::Field(a, fld) => ExprKind::Field(Box::new(sub(a)), fld.clone()),
        ExprKind::Is(a, tag) => ExprKind::Is(Box::new(sub(a)), tag.clone()),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, Box::new(sub(a)), Box::new(sub(b))),
        ExprKind::Index(a, xs) => ExprKind::Index(Box::new(sub(a)), xs.iter().map(sub).collect()),
        ExprKind::Quant(q, params, body) if !params.iter().any(|p| p.name.name == name) => {
            ExprKind::Quant(*q, params.clone(), Box::new(sub(body)))
        }
        ExprKind::SetComp { var, cond } if var.name.name != name => ExprKind::SetComp {
            var: var.clone(),
            cond: Box::new(sub(cond)),
        },
        ExprKind::Cond(a, b, c) => {
            ExprKind::Cond(Box::new(sub(a)), Box::new(sub(b)), Box::new(sub(c)))
        }
        other => other.clone(),
    };
    Expr { kind, span: e.span }
}

fn ident(name: &str, span: Span) -> ioa_lang::ast::Ident {
    ioa_lang::ast::Ident {
        name: name.to_string(),
        span,
    }
}

fn name_expr(p: &Param) -> Expr {
    Expr {
        kind: ExprKind::Name(p.name.clone()),
        span: p.name.span,
    }
}

fn nil(span: Span) -> Expr {
    Expr {
        kind: ExprKind::Nil,
        span,
    }
}

fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    let span = a.span;
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ioa_lang::span::FileId;

    fn expr(text: &str) -> Expr {
        ioa_lang::parse::parse_expr(FileId(0), text).expect("parses")
    }

    #[test]
    fn a_val_read_is_matched_by_structure_not_by_text() {
        let y = expr("y");
        assert!(reads_val_of(&expr("y.val = 1"), &y));
        assert!(reads_val_of(&expr("a ∧ (y.val > 0 ∨ b)"), &y));
        // `xy.val` contains the text `y.val`, but reads another variable.
        assert!(!reads_val_of(&expr("xy.val = 1"), &y));
        // Under a quantifier binding `y`, `y.val` is another `y`.
        assert!(!reads_val_of(&expr("∃ y: Int (y.val = 1)"), &y));
        // A longer place matches as a whole.
        let place = expr("m[k]");
        assert!(reads_val_of(&expr("m[k].val = 2"), &place));
        assert!(!reads_val_of(&expr("∀ k: Int (m[k].val = 2)"), &place));
        assert!(!reads_val_of(&expr("m[j].val = 2"), &place));
    }
}
