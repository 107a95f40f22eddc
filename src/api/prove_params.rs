//! `--param NAME=VALUE` for `ioa prove` and `ioa export smt`: the value is read at the type of
//! every automaton parameter called `NAME` (and of every parameter a simulation's header calls
//! `NAME`), as `ioa run` reads it, and written into the spec as that parameter's fixed value
//! (`VarDecl::init` of the parameter), which every obligation then assumes (`n = 3`).

use interpreter::value::{Printer, Value};
use ioa_lang::ir::{AutomatonId, BinOp, Builtin, Expr, ExprKind, Spec, Type, TypeDefKind};
use ioa_lang::span::Span;
use std::collections::BTreeMap;

/// Fixes the parameters `given` names in `spec`. Returns the assumptions as text
/// (`Ticker.n = 2`), in the order given, or why the values cannot be assumed: a name nothing
/// declares, a value of the wrong type, two values for one parameter, or two values for
/// parameters a simulation's header makes one (both would make every obligation vacuous).
pub fn fix_params(spec: &mut Spec, given: &[String]) -> Result<Vec<String>, String> {
    let mut fixed: BTreeMap<(AutomatonId, u32), Value> = BTreeMap::new();
    let mut lines = Vec::new();
    for g in given {
        let Some((name, text)) = g.split_once('=') else {
            return Err(format!("`--param {g}`: write `--param NAME=VALUE`"));
        };
        let (name, text) = (name.trim(), text.trim());
        let parsed = ioa_lang::parse::parse_expr(ioa_lang::span::FileId(u32::MAX), text)
            .map_err(|_| format!("--param {name}: `{text}` is not a value"))?;
        let mut targets: Vec<(AutomatonId, u32)> = Vec::new();
        for (a, aut) in spec.automata.iter().enumerate() {
            if let Some(k) = aut.params.iter().position(|p| p.name == name) {
                targets.push((AutomatonId(a as u32), k as u32));
            }
        }
        for sim in &spec.simulations {
            for p in sim.params.iter().filter(|p| p.name == name) {
                for bind in &p.binds {
                    if !targets.contains(bind) {
                        targets.push(*bind);
                    }
                }
            }
        }
        if targets.is_empty() {
            return Err(format!(
                "--param {name}: no automaton has a parameter `{name}`, and no simulation's header names one"
            ));
        }
        for (a, k) in targets {
            let p = &spec.automata[a.0 as usize].params[k as usize];
            let label = format!("{}.{}", spec.automata[a.0 as usize].name, p.name);
            let value = interpreter::universe::const_value(spec, &parsed, &p.ty)
                .map_err(|(_, m)| format!("--param {name} (for {label}): {m}"))?;
            if let Some(previous) = fixed.get(&(a, k)) {
                if *previous != value {
                    let printer = Printer::new(spec);
                    return Err(format!(
                        "--param {name}: {label} is given two values, {} and {}",
                        printer.show(previous),
                        printer.show(&value)
                    ));
                }
                continue;
            }
            let expr = value_expr(spec, &value, &p.ty)
                .map_err(|what| format!("--param {name} (for {label}): {what}"))?;
            lines.push(format!("{label} = {}", Printer::new(spec).show(&value)));
            fixed.insert((a, k), value);
            spec.automata[a.0 as usize].params[k as usize].init = Some(expr);
        }
    }
    for sim in &spec.simulations {
        for p in &sim.params {
            let values: Vec<(&(AutomatonId, u32), &Value)> = p
                .binds
                .iter()
                .filter_map(|b| fixed.get(b).map(|v| (b, v)))
                .collect();
            if let Some(((a1, k1), v1)) = values.first() {
                if let Some(((a2, k2), v2)) = values.iter().find(|(_, v)| *v != *v1) {
                    let name = |a: &AutomatonId, k: &u32| {
                        let aut = &spec.automata[a.0 as usize];
                        format!("{}.{}", aut.name, aut.params[*k as usize].name)
                    };
                    let printer = Printer::new(spec);
                    return Err(format!(
                        "--param: {} = {} but {} = {}, which the header of simulation `{}` makes one value `{}`",
                        name(a1, k1),
                        printer.show(v1),
                        name(a2, k2),
                        printer.show(v2),
                        sim.name,
                        p.name
                    ));
                }
            }
        }
    }
    Ok(lines)
}

/// The IR expression for `value` of type `ty` (what the prover encodes as the parameter's
/// value), or the kind of value it cannot write.
fn value_expr(spec: &Spec, value: &Value, ty: &Type) -> Result<Expr, String> {
    let mk = |kind| Expr {
        kind,
        ty: ty.clone(),
        span: Span::default(),
    };
    Ok(match (value, ty) {
        (Value::Bool(b), _) => mk(ExprKind::Bool(*b)),
        (Value::Int(i), _) => mk(ExprKind::Int(*i)),
        (Value::Char(c), _) => mk(ExprKind::Int(*c as i64)),
        (Value::Real(q), _) if *q.denom() == 1 => mk(ExprKind::Int(*q.numer())),
        (Value::Real(q), _) => {
            let int = |i| Box::new(mk(ExprKind::Int(i)));
            mk(ExprKind::Binary(BinOp::Div, int(*q.numer()), int(*q.denom())))
        }
        (Value::Str(s), _) => mk(ExprKind::Str(s.to_string())),
        (Value::Enum(_, k), _) => mk(ExprKind::EnumConst(*k)),
        (Value::Nil, _) => mk(ExprKind::Nil),
        (Value::Embed(inner), Type::Null(t)) => {
            mk(ExprKind::Call(Builtin::Embed, vec![value_expr(spec, inner, t)?]))
        }
        (Value::Tuple(fields), Type::Named(id)) => match &spec.types[id.0 as usize].kind {
            TypeDefKind::Tuple(decls) => mk(ExprKind::Tuple(
                fields
                    .iter()
                    .zip(decls)
                    .map(|(v, (_, t))| value_expr(spec, v, t))
                    .collect::<Result<_, _>>()?,
            )),
            _ => return Err("a tuple of a type that is not a tuple".into()),
        },
        (Value::Union(_, tag, payload), Type::Named(id)) => match &spec.types[id.0 as usize].kind
        {
            TypeDefKind::Union(tags) => {
                let t = &tags[*tag as usize].1;
                mk(ExprKind::UnionNew(*tag, Box::new(value_expr(spec, payload, t)?)))
            }
            _ => return Err("a union value of a type that is not a union".into()),
        },
        (Value::Set(items), Type::Set(t)) => mk(ExprKind::Collection(
            items
                .iter()
                .map(|v| value_expr(spec, v, t))
                .collect::<Result<_, _>>()?,
        )),
        (Value::Seq(items), Type::Seq(t)) => mk(ExprKind::Collection(
            items
                .iter()
                .map(|v| value_expr(spec, v, t))
                .collect::<Result<_, _>>()?,
        )),
        _ => {
            return Err(
                "the provers take values of basic types, tuples, unions, sets and sequences here; state other values as an invariant"
                    .into(),
            )
        }
    })
}
