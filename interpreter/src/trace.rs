//! Traces: the states and actions of one run, printed in the paper's log format and as JSON in
//! the Informal Trace Format (ITF) that Quint and Apalache read, and read back for replay.

use crate::machine::{Machine, State};
use crate::value::{Printer, Value};
use imbl::{OrdMap, OrdSet};
use ioa_lang::ast::ActionKind;
use ioa_lang::ir::{Spec, Type, TypeDefKind};
use serde_json::{json, Value as Json};
use std::sync::Arc;

/// One step of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStep {
    /// The action's position in the machine.
    pub action: usize,
    /// Its kind at the root.
    pub kind: ActionKind,
    /// Its arguments.
    pub args: Vec<Value>,
}

/// A run: start state, steps, and the states after each.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// `states[0]` is the start state; `states[k]` follows `steps[k - 1]`.
    pub states: Vec<State>,
    /// The actions taken.
    pub steps: Vec<TraceStep>,
}

impl Trace {
    /// A trace at a start state.
    pub fn start(state: State) -> Self {
        Trace {
            states: vec![state],
            steps: Vec::new(),
        }
    }

    /// The paper's line for step `k` (1-based): `1: internal makeBallot([0]) in automaton Global1`.
    pub fn log_line(&self, machine: &Machine, k: usize) -> String {
        let step = &self.steps[k - 1];
        let printer = Printer::new(machine.spec);
        let args: Vec<String> = step.args.iter().map(|a| printer.show(a)).collect();
        format!(
            "{k}: {} {}({}) in automaton {}",
            step.kind.keyword(),
            machine.actions[step.action].name,
            args.join(", "),
            machine.spec.automata[machine.root.0 as usize].name
        )
    }

    /// One state (with the action that led to it) as an ITF state object.
    fn itf_state(
        &self,
        machine: &Machine,
        printer: &Printer,
        names: &[String],
        types: &[Type],
        i: usize,
    ) -> Json {
        let mut obj = serde_json::Map::new();
        let mut m = serde_json::Map::new();
        m.insert("index".into(), json!(i));
        if i > 0 {
            let step = &self.steps[i - 1];
            let action = &machine.actions[step.action];
            let args: Vec<Json> = step
                .args
                .iter()
                .zip(&action.param_types)
                .map(|(v, t)| printer.itf(v, t))
                .collect();
            m.insert(
                "action".into(),
                json!({ "name": action.name, "kind": step.kind.keyword(), "args": args }),
            );
        }
        obj.insert("#meta".into(), Json::Object(m));
        for ((n, v), t) in names.iter().zip(&self.states[i]).zip(types) {
            obj.insert(n.clone(), printer.itf(v, t));
        }
        Json::Object(obj)
    }

    /// The whole trace as ITF JSON (in memory; for long traces use [`Trace::write_itf`]).
    pub fn to_itf(&self, machine: &Machine, meta: Json) -> Json {
        let printer = Printer::new(machine.spec);
        let names = machine.slot_names();
        let types = machine.slot_types();
        let states: Vec<Json> = (0..self.states.len())
            .map(|i| self.itf_state(machine, &printer, &names, &types, i))
            .collect();
        json!({ "#meta": meta, "vars": names, "states": states })
    }

    /// Writes the trace as ITF JSON, one state per line, without building it in memory.
    pub fn write_itf(
        &self,
        machine: &Machine,
        meta: &Json,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let printer = Printer::new(machine.spec);
        let names = machine.slot_names();
        let types = machine.slot_types();
        write!(out, "{{\"#meta\":")?;
        serde_json::to_writer(&mut *out, meta)?;
        write!(out, ",\n\"vars\":")?;
        serde_json::to_writer(&mut *out, &names)?;
        write!(out, ",\n\"states\":[\n")?;
        for i in 0..self.states.len() {
            if i > 0 {
                writeln!(out, ",")?;
            }
            serde_json::to_writer(
                &mut *out,
                &self.itf_state(machine, &printer, &names, &types, i),
            )?;
        }
        writeln!(out, "\n]}}")
    }
}

/// Reads an ITF value back at a known type.
pub fn from_itf(spec: &Spec, j: &Json, ty: &Type) -> Result<Value, String> {
    let bad = || format!("`{j}` is not a value of the expected type");
    Ok(match ty {
        Type::Bool => Value::Bool(j.as_bool().ok_or_else(bad)?),
        Type::Int | Type::Nat => match j {
            Json::Number(n) => Value::Int(n.as_i64().ok_or_else(bad)?),
            Json::Object(o) => Value::Int(
                o.get("#bigint")
                    .and_then(|b| b.as_str())
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(bad)?,
            ),
            _ => return Err(bad()),
        },
        Type::String => Value::Str(j.as_str().ok_or_else(bad)?.into()),
        Type::Char => {
            let s = j.as_str().ok_or_else(bad)?;
            let mut cs = s.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => Value::Char(c),
                _ => return Err(bad()),
            }
        }
        Type::Named(id) => match &spec.types[id.0 as usize].kind {
            TypeDefKind::Enumeration(names) => {
                let s = j.as_str().ok_or_else(bad)?;
                Value::Enum(
                    *id,
                    names.iter().position(|n| n == s).ok_or_else(bad)? as u32,
                )
            }
            TypeDefKind::Tuple(fields) => {
                let o = j.as_object().ok_or_else(bad)?;
                let mut vals = Vec::new();
                for (n, t) in fields {
                    vals.push(from_itf(spec, o.get(n).ok_or_else(bad)?, t)?);
                }
                Value::Tuple(vals.into())
            }
            TypeDefKind::Union(tags) => {
                let o = j.as_object().ok_or_else(bad)?;
                let tag = o.get("tag").and_then(|t| t.as_str()).ok_or_else(bad)?;
                let k = tags.iter().position(|(n, _)| n == tag).ok_or_else(bad)?;
                Value::Union(
                    *id,
                    k as u32,
                    Arc::new(from_itf(spec, o.get("value").ok_or_else(bad)?, &tags[k].1)?),
                )
            }
        },
        Type::Null(inner) => {
            let o = j.as_object().ok_or_else(bad)?;
            match o.get("tag").and_then(|t| t.as_str()) {
                Some("nil") => Value::Nil,
                Some("embed") => Value::Embed(Arc::new(from_itf(
                    spec,
                    o.get("value").ok_or_else(bad)?,
                    inner,
                )?)),
                _ => return Err(bad()),
            }
        }
        Type::Set(e) => {
            let items = j.get("#set").and_then(|s| s.as_array()).ok_or_else(bad)?;
            let vals: Result<OrdSet<Value>, String> =
                items.iter().map(|x| from_itf(spec, x, e)).collect();
            Value::Set(vals?)
        }
        Type::Seq(e) => {
            let items = j.as_array().ok_or_else(bad)?;
            let vals: Result<imbl::Vector<Value>, String> =
                items.iter().map(|x| from_itf(spec, x, e)).collect();
            Value::seq(vals?)
        }
        Type::Mset(e) => {
            let items = j.get("#map").and_then(|s| s.as_array()).ok_or_else(bad)?;
            let mut m = OrdMap::new();
            for pair in items {
                let k = from_itf(spec, pair.get(0).ok_or_else(bad)?, e)?;
                let n = pair.get(1).and_then(|n| n.as_u64()).ok_or_else(bad)?;
                m.insert(k, n);
            }
            Value::Mset(m)
        }
        Type::Array(kt, vt) | Type::Map(kt, vt) => {
            let items = j.get("#map").and_then(|s| s.as_array()).ok_or_else(bad)?;
            let mut m = OrdMap::new();
            for pair in items {
                let k = from_itf(spec, pair.get(0).ok_or_else(bad)?, kt)?;
                let v = from_itf(spec, pair.get(1).ok_or_else(bad)?, vt)?;
                m.insert(k, v);
            }
            if matches!(ty, Type::Array(..)) {
                let default = from_itf(spec, j.get("default").ok_or_else(bad)?, vt)?;
                let mut arr = Value::constant_array(default);
                for (k, v) in m {
                    if let Value::Array(a) = &arr {
                        arr = Value::array_set(a, k, v);
                    }
                }
                arr
            } else {
                Value::Map(m)
            }
        }
        Type::Real => {
            let text = match j {
                Json::String(s) => s.clone(),
                Json::Number(n) => n.to_string(),
                _ => return Err(bad()),
            };
            let e =
                ioa_lang::parse::parse_expr(ioa_lang::span::FileId(0), &text).map_err(|_| bad())?;
            crate::universe::const_value(spec, &e, ty).map_err(|_| bad())?
        }
        Type::Infer(_) => return Err(bad()),
    })
}
