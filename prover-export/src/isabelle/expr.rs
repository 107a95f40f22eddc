//! IOA expressions as HOL terms.
//!
//! Every compound term is printed in parentheses, so no HOL precedence needs to be known. State
//! variables become record field selections on a state term that the caller chooses (the
//! pre-state `σ`, an intermediate state of an effect, or a specification state `τ`), so the
//! same printer serves preconditions, effects, invariants, relations and proof blocks.

use super::error::{Construct, ExportError};
use super::names::{generated_local, AutomatonNames, TypeNames};
use super::types::hol_type;
use ioa_lang::ast::Quantifier;
use ioa_lang::ir::{AutomatonId, BinOp, Builtin, Expr, ExprKind, Type, UnOp, VarRef};
use std::collections::HashSet;

/// Where the names in an expression point.
#[derive(Clone)]
pub struct Env<'a> {
    /// The model's type names.
    pub names: &'a TypeNames<'a>,
    /// Record fields of the automaton in scope, by state slot.
    pub state_fields: Vec<String>,
    /// The state term that unqualified state variables are read from.
    pub state: String,
    /// For `A.x`: the automaton, its record fields and its state term.
    pub qualified: Vec<(AutomatonId, Vec<String>, String)>,
    /// Constants for the automaton's parameters, by slot.
    pub params: Vec<String>,
    /// Names of locals the IR kept names for, by slot.
    pub locals: Vec<Option<String>>,
    /// Locals of `choose`s that an enclosing existential binds; such a `choose` prints as its
    /// variable.
    pub hoisted: HashSet<u32>,
}

impl<'a> Env<'a> {
    /// The name of local `slot` of type `ty`.
    pub fn local(&self, slot: u32, ty: &Type) -> String {
        match self.locals.get(slot as usize) {
            Some(Some(name)) => name.clone(),
            _ => generated_local(self.names.spec(), ty, slot),
        }
    }

    /// The same environment reading unqualified state from `state`.
    pub fn at_state(&self, state: &str) -> Env<'a> {
        let mut env = self.clone();
        env.state = state.to_string();
        env
    }
}

fn unsupported(construct: Construct, e: &Expr) -> ExportError {
    ExportError::Unsupported {
        construct,
        span: e.span,
    }
}

/// The HOL term for `e`.
pub fn term(env: &Env, e: &Expr) -> Result<String, ExportError> {
    let names = env.names;
    Ok(match &e.kind {
        ExprKind::Var(v) => var(env, v, e)?,
        ExprKind::Int(n) => {
            if *n < 0 {
                format!("(- {})", n.unsigned_abs())
            } else {
                n.to_string()
            }
        }
        ExprKind::Bool(b) => if *b { "True" } else { "False" }.into(),
        ExprKind::Str(s) => format!("''{}''", s.replace('\'', "")),
        ExprKind::Nil => "None".into(),
        ExprKind::EnumConst(k) => match &e.ty {
            Type::Named(id) => names.constructor(id.0, *k),
            _ => return Err(unsupported(Construct::ChooseOutsideEffect, e)),
        },
        ExprKind::Tuple(items) => {
            let Type::Named(id) = &e.ty else {
                return Err(unsupported(Construct::ChooseOutsideEffect, e));
            };
            let fields = items
                .iter()
                .enumerate()
                .map(|(k, item)| {
                    Ok(format!(
                        "{} = {}",
                        names.field(id.0, k as u32),
                        term(env, item)?
                    ))
                })
                .collect::<Result<Vec<_>, ExportError>>()?;
            format!("\\<lparr>{}\\<rparr>", fields.join(", "))
        }
        ExprKind::Collection(items) => {
            let items = items
                .iter()
                .map(|i| term(env, i))
                .collect::<Result<Vec<_>, _>>()?;
            match &e.ty {
                Type::Mset(_) => {
                    if items.is_empty() {
                        "{#}".into()
                    } else {
                        format!("{{#{}#}}", items.join(", "))
                    }
                }
                Type::Seq(_) => format!("[{}]", items.join(", ")),
                _ => format!("{{{}}}", items.join(", ")),
            }
        }
        ExprKind::Unary(UnOp::Not, a) => format!("(\\<not> {})", term(env, a)?),
        ExprKind::Unary(UnOp::Neg, a) => format!("(- {})", term(env, a)?),
        ExprKind::Binary(op, a, b) => binary(env, *op, a, b)?,
        ExprKind::Field(a, k) => match &a.ty {
            Type::Named(id) => format!("({} {})", names.field(id.0, *k), term(env, a)?),
            _ => return Err(unsupported(Construct::ChooseOutsideEffect, e)),
        },
        ExprKind::NullVal(a) => format!("(the {})", term(env, a)?),
        ExprKind::UnionPayload(a, k) => match &a.ty {
            Type::Named(id) => format!("({} {})", names.selector(id.0, *k), term(env, a)?),
            _ => return Err(unsupported(Construct::ChooseOutsideEffect, e)),
        },
        ExprKind::UnionNew(k, a) => match &e.ty {
            Type::Named(id) => format!("({} {})", names.constructor(id.0, *k), term(env, a)?),
            _ => return Err(unsupported(Construct::ChooseOutsideEffect, e)),
        },
        ExprKind::Is(a, k) => match &a.ty {
            Type::Named(id) => format!("({} {})", names.discriminator(id.0, *k), term(env, a)?),
            _ => return Err(unsupported(Construct::ChooseOutsideEffect, e)),
        },
        ExprKind::Index(a, i) => {
            let (a_t, i_t) = (term(env, a)?, term(env, i)?);
            match &a.ty {
                Type::Map(..) => format!("(the ({a_t} {i_t}))"),
                Type::Seq(_) => format!("({a_t} ! nat {i_t})"),
                _ => format!("({a_t} {i_t})"),
            }
        }
        ExprKind::Call(f, args) => call(env, *f, args, e)?,
        ExprKind::Quant(q, vars, body) => {
            let binder = match q {
                Quantifier::ForAll => "\\<forall>",
                Quantifier::Exists => "\\<exists>",
            };
            let bound: Vec<String> = vars
                .iter()
                .map(|(slot, ty)| format!("({}::{})", env.local(*slot, ty), type_in_term(env, ty)))
                .collect();
            format!("({binder}{}. {})", bound.join(" "), term(env, body)?)
        }
        ExprKind::SetComp { var, elem, cond } => format!(
            "(Collect (\\<lambda>({}::{}). {}))",
            env.local(*var, elem),
            type_in_term(env, elem),
            term(env, cond)?
        ),
        ExprKind::Cond(c, a, b) => format!(
            "(if {} then {} else {})",
            term(env, c)?,
            term(env, a)?,
            term(env, b)?
        ),
        ExprKind::Choose { var, .. } => {
            if env.hoisted.contains(var) {
                env.local(*var, &e.ty)
            } else {
                return Err(unsupported(Construct::ChooseOutsideEffect, e));
            }
        }
    })
}

/// A type written inside a term (after `::`).
pub fn type_in_term(env: &Env, ty: &Type) -> String {
    hol_type(env.names, ty)
}

fn var(env: &Env, v: &VarRef, e: &Expr) -> Result<String, ExportError> {
    Ok(match v {
        VarRef::State(slot) => format!("({} {})", env.state_fields[*slot as usize], env.state),
        VarRef::Param(slot) => env.params[*slot as usize].clone(),
        VarRef::Local(slot) => env.local(*slot, &e.ty),
        VarRef::Aux(_) => return Err(unsupported(Construct::AuxiliaryVariable, e)),
        VarRef::Component { .. } => return Err(unsupported(Construct::ComponentVariable, e)),
        // `A.n`: the constant that `A`'s theory declares for its parameter (every theory that
        // reads `A` imports `A`'s theory).
        VarRef::QualifiedParam { automaton, param } => {
            let aut = &env.names.spec().automata[automaton.0 as usize];
            match aut.params.get(*param as usize) {
                Some(p) => AutomatonNames::new(&aut.name).param(&p.name),
                None => return Err(unsupported(Construct::QualifiedParameter, e)),
            }
        }
        VarRef::Qualified { automaton, slot } => {
            match env.qualified.iter().find(|(id, _, _)| id == automaton) {
                Some((_, fields, state)) => format!("({} {state})", fields[*slot as usize]),
                None => return Err(unsupported(Construct::ComponentVariable, e)),
            }
        }
    })
}

fn binary(env: &Env, op: BinOp, a: &Expr, b: &Expr) -> Result<String, ExportError> {
    let (x, y) = (term(env, a)?, term(env, b)?);
    let mset = matches!(b.ty, Type::Mset(_)) || matches!(a.ty, Type::Mset(_));
    let seq = matches!(b.ty, Type::Seq(_));
    Ok(match op {
        BinOp::Iff => format!("({x} \\<longleftrightarrow> {y})"),
        BinOp::Implies => format!("({x} \\<longrightarrow> {y})"),
        BinOp::Or => format!("({x} \\<or> {y})"),
        BinOp::And => format!("({x} \\<and> {y})"),
        BinOp::Eq => format!("({x} = {y})"),
        BinOp::Neq => format!("({x} \\<noteq> {y})"),
        BinOp::Lt => format!("({x} < {y})"),
        BinOp::Le => format!("({x} \\<le> {y})"),
        BinOp::Gt => format!("({x} > {y})"),
        BinOp::Ge => format!("({x} \\<ge> {y})"),
        BinOp::Add => format!("({x} + {y})"),
        BinOp::Sub => format!("({x} - {y})"),
        BinOp::Mul => format!("({x} * {y})"),
        BinOp::Div => format!("({x} div {y})"),
        BinOp::Mod => format!("({x} mod {y})"),
        BinOp::In if seq => format!("({x} \\<in> set {y})"),
        BinOp::In if mset => format!("({x} \\<in># {y})"),
        BinOp::In => format!("({x} \\<in> {y})"),
        BinOp::NotIn if seq => format!("({x} \\<notin> set {y})"),
        BinOp::NotIn if mset => format!("(\\<not> ({x} \\<in># {y}))"),
        BinOp::NotIn => format!("({x} \\<notin> {y})"),
        BinOp::SubsetEq if mset => format!("({x} \\<subseteq># {y})"),
        BinOp::SubsetEq => format!("({x} \\<subseteq> {y})"),
        BinOp::Subset if mset => format!("({x} \\<subset># {y})"),
        BinOp::Subset => format!("({x} \\<subset> {y})"),
        BinOp::Union if mset => format!("({x} + {y})"),
        BinOp::Union => format!("({x} \\<union> {y})"),
        BinOp::Intersect if mset => format!("({x} \\<inter># {y})"),
        BinOp::Intersect => format!("({x} \\<inter> {y})"),
        BinOp::Difference => format!("({x} - {y})"),
        BinOp::Append => format!("({x} @ [{y}])"),
        BinOp::Concat => format!("({x} @ {y})"),
        BinOp::Prepend => format!("({x} # {y})"),
    })
}

fn call(env: &Env, f: Builtin, args: &[Expr], e: &Expr) -> Result<String, ExportError> {
    let a = args
        .iter()
        .map(|x| term(env, x))
        .collect::<Result<Vec<_>, _>>()?;
    let arg = |k: usize| a.get(k).cloned().unwrap_or_else(|| "undefined".into());
    let coll_ty = args.get(1).map(|x| &x.ty).or(args.first().map(|x| &x.ty));
    Ok(match f {
        Builtin::Insert => match coll_ty {
            Some(Type::Mset(_)) => format!("(add_mset {} {})", arg(0), arg(1)),
            Some(Type::Seq(_)) => format!("({} @ [{}])", arg(1), arg(0)),
            _ => format!("(insert {} {})", arg(0), arg(1)),
        },
        Builtin::Delete => match coll_ty {
            Some(Type::Mset(_)) => format!("({} - {{#{}#}})", arg(1), arg(0)),
            Some(Type::Seq(_)) => format!("(removeAll {} {})", arg(0), arg(1)),
            _ => format!("({} - {{{}}})", arg(1), arg(0)),
        },
        Builtin::Size => match args.first().map(|x| &x.ty) {
            Some(Type::Mset(_)) => format!("(int (size {}))", arg(0)),
            Some(Type::Seq(_)) => format!("(int (length {}))", arg(0)),
            Some(Type::Map(..)) => format!("(int (card (dom {})))", arg(0)),
            _ => format!("(int (card {}))", arg(0)),
        },
        Builtin::Constant => match &e.ty {
            Type::Map(..) => format!("(\\<lambda>_. Some {})", arg(0)),
            _ => format!("(\\<lambda>_. {})", arg(0)),
        },
        Builtin::Embed => format!("(Some {})", arg(0)),
        Builtin::Head => format!("(hd {})", arg(0)),
        Builtin::Tail => format!("(tl {})", arg(0)),
        Builtin::Min => format!("(min {} {})", arg(0), arg(1)),
        Builtin::Max => format!("(max {} {})", arg(0), arg(1)),
        Builtin::SetMin => format!("(Min {})", arg(0)),
        Builtin::SetMax => format!("(Max {})", arg(0)),
        Builtin::Abs => format!("(abs {})", arg(0)),
        Builtin::Defined => format!("({} \\<in> dom {})", arg(1), arg(0)),
        Builtin::Empty => "Map.empty".to_string(),
        Builtin::Last => format!("(last {})", arg(0)),
        Builtin::Init => format!("(butlast {})", arg(0)),
        Builtin::Count => format!("(int (count {} {}))", arg(1), arg(0)),
        Builtin::Update => format!("({}({} \\<mapsto> {}))", arg(0), arg(1), arg(2)),
    })
}

/// The direct subexpressions of `e` (including a `choose`'s condition).
pub fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Tuple(items) | ExprKind::Collection(items) | ExprKind::Call(_, items) => {
            items.iter().collect()
        }
        ExprKind::Unary(_, a)
        | ExprKind::Field(a, _)
        | ExprKind::NullVal(a)
        | ExprKind::UnionPayload(a, _)
        | ExprKind::UnionNew(_, a)
        | ExprKind::Is(a, _)
        | ExprKind::Quant(_, _, a)
        | ExprKind::SetComp { cond: a, .. } => vec![a],
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => vec![a, b],
        ExprKind::Cond(c, a, b) => vec![c, a, b],
        ExprKind::Choose { cond, .. } => cond.iter().map(|c| &**c).collect(),
        _ => vec![],
    }
}

/// Calls `f` on `e` and every subexpression.
pub fn walk(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    for c in children(e) {
        walk(c, f);
    }
}

/// The state slots `e` reads (unqualified), with repetitions.
pub fn state_reads(e: &Expr) -> Vec<u32> {
    let mut out = Vec::new();
    walk(e, &mut |x| {
        if let ExprKind::Var(VarRef::State(s)) = &x.kind {
            out.push(*s);
        }
    });
    out
}

/// A `choose` found in an expression: its local slot, its type and its condition.
pub struct Choice<'e> {
    /// The chosen local.
    pub var: u32,
    /// Its type.
    pub ty: &'e Type,
    /// The condition, if any.
    pub cond: Option<&'e Expr>,
    /// The `choose` expression.
    pub expr: &'e Expr,
}

/// The `choose`s in `e` that are not hoisted yet, outermost first.
pub fn chooses<'e>(e: &'e Expr, hoisted: &HashSet<u32>, out: &mut Vec<Choice<'e>>) {
    if let ExprKind::Choose { var, cond, .. } = &e.kind {
        if !hoisted.contains(var) {
            out.push(Choice {
                var: *var,
                ty: &e.ty,
                cond: cond.as_deref(),
                expr: e,
            });
        }
    }
    for c in children(e) {
        chooses(c, hoisted, out);
    }
}
