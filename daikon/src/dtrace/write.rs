//! Writing declarations (`.decls`) and samples (`.dtrace`) in Daikon's version 2 format.

use super::layout::{DaikonVar, Flattener, Rep, Step, VarKind};
use super::synthetic::{self, Intersection};
use interpreter::machine::Machine;
use interpreter::trace::Trace;
use interpreter::value::{Printer, Value};
use rustc_hash::FxHashMap;
use std::io::{self, Write};

/// One program point: its name, type and variables.
#[derive(Debug, Clone)]
pub struct ProgramPoint {
    /// The name, as declared.
    pub name: String,
    /// `object` (the state), `enter` (before an action) or `subexit` (after it).
    pub ppt_type: &'static str,
    /// The program point whose samples include this one's (`parent parent P 1`): the state's
    /// point, for an action's.
    pub parent: Option<String>,
    /// Its variables, in order.
    pub vars: Vec<DaikonVar>,
    /// Which of `vars` are the parent's variables (`parent P 1` on the variable).
    pub inherited: Vec<bool>,
}

/// Writes one machine's traces for Daikon, laid out as Daikon's own Java front end lays out an
/// object's methods, so that Daikon's default program-point hierarchy applies: program point
/// `A:::OBJECT` holds the state; each action `act` is a procedure with the points
/// `A.act(T1,T2):::ENTER` (its parameters, flagged `is_param`, and the state before the step)
/// and `A.act(T1,T2):::EXIT1` (the same parameters and the state after it), both children of
/// `A:::OBJECT` (`parent parent A:::OBJECT 1`, and `parent A:::OBJECT 1` on every state
/// variable). Each step is an `ENTER` record and an `EXIT1` record with one invocation nonce;
/// Daikon then reports the state's invariants at `A:::OBJECT`, the preconditions at `ENTER` and
/// pre/post relations (`orig(x)`) at the combined `A.act(…):::EXIT` it derives from `EXIT1`.
/// Every reached state is also an `A:::OBJECT` record, which Daikon reads only when run with
/// `--nohierarchy`.
pub struct DaikonWriter<'m, 's> {
    machine: &'m Machine<'s>,
    /// Index 0: the state; 1 + 2k: entry of action k; 2 + 2k: its exit.
    points: Vec<ProgramPoint>,
    /// Synthetic variables, after the state's slots among a record's roots.
    intersections: Vec<Intersection>,
    ids: FxHashMap<Value, u64>,
    nonce: u64,
}

impl<'m, 's> DaikonWriter<'m, 's> {
    /// Lays out the program points of `machine`.
    pub fn new(machine: &'m Machine<'s>) -> Self {
        let spec = machine.spec;
        let mut flat = Flattener::new(spec, machine.universe);
        let automaton = &spec.automata[machine.root.0 as usize].name;
        let object = format!("{automaton}:::OBJECT");
        let names = machine.slot_names();
        let types = machine.slot_types();
        let n_slots = names.len();
        let mut state_vars = Vec::new();
        for (slot, (n, t)) in names.iter().zip(&types).enumerate() {
            flat.flatten(n, t, slot, &[], &mut state_vars);
        }
        let intersections = synthetic::intersections(spec, machine.universe, &names, &types);
        for (k, i) in intersections.iter().enumerate() {
            let args = i.operands.iter().map(|o| o.name.clone()).collect();
            flat.flatten_function(
                &i.name,
                "intersection",
                args,
                &i.ty,
                n_slots + k,
                &mut state_vars,
            );
        }
        let n_roots = n_slots + intersections.len();
        let mut points = vec![ProgramPoint {
            name: object.clone(),
            ppt_type: "object",
            parent: None,
            inherited: vec![false; state_vars.len()],
            vars: state_vars.clone(),
        }];
        for action in &machine.actions {
            let mut vars = Vec::new();
            for (k, (n, t)) in action
                .param_names
                .iter()
                .zip(&action.param_types)
                .enumerate()
            {
                // A parameter named like a state variable gets a name of its own.
                let name = if names.contains(n) {
                    format!("{n}_param")
                } else {
                    n.clone()
                };
                flat.flatten(&name, t, n_roots + k, &["is_param"], &mut vars);
            }
            let mut inherited = vec![false; vars.len()];
            inherited.resize(vars.len() + state_vars.len(), true);
            vars.extend(state_vars.iter().cloned());
            let types: Vec<String> = action
                .param_types
                .iter()
                .map(|t| interpreter::universe::type_text(spec, t).replace(' ', ""))
                .collect();
            let procedure = format!("{automaton}.{}({})", action.name, types.join(","));
            for (suffix, ppt_type) in [("ENTER", "enter"), ("EXIT1", "subexit")] {
                points.push(ProgramPoint {
                    name: format!("{procedure}:::{suffix}"),
                    ppt_type,
                    parent: Some(object.clone()),
                    vars: vars.clone(),
                    inherited: inherited.clone(),
                });
            }
        }
        DaikonWriter {
            machine,
            points,
            intersections,
            ids: FxHashMap::default(),
            nonce: 0,
        }
    }

    /// The program points.
    pub fn points(&self) -> &[ProgramPoint] {
        &self.points
    }

    /// The records that start both files: version and comparability kind.
    pub fn write_header(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "decl-version 2.0")?;
        writeln!(out, "input-language IOA")?;
        writeln!(out, "var-comparability implicit")?;
        writeln!(out)
    }

    /// The `.decls` file: the header and every program point's declaration.
    pub fn write_decls(&self, out: &mut dyn Write) -> io::Result<()> {
        self.write_header(out)?;
        for p in &self.points {
            writeln!(out, "ppt {}", escape(&p.name))?;
            writeln!(out, "ppt-type {}", p.ppt_type)?;
            if let Some(parent) = &p.parent {
                writeln!(out, "parent parent {} 1", escape(parent))?;
            }
            for (v, inherited) in p.vars.iter().zip(&p.inherited) {
                writeln!(out, "variable {}", escape(&v.name))?;
                match &v.kind {
                    VarKind::Variable => writeln!(out, "  var-kind variable")?,
                    VarKind::Field(f) => writeln!(out, "  var-kind field {}", escape(f))?,
                    VarKind::Array => writeln!(out, "  var-kind array")?,
                    VarKind::Function(f, _) => writeln!(out, "  var-kind function {}", escape(f))?,
                }
                if let Some(e) = &v.enclosing {
                    writeln!(out, "  enclosing-var {}", escape(e))?;
                }
                if v.array {
                    writeln!(out, "  array 1")?;
                }
                writeln!(out, "  dec-type {}", escape(&v.dec_type))?;
                let rep = v.rep.name();
                writeln!(out, "  rep-type {rep}{}", if v.array { "[]" } else { "" })?;
                if !v.flags.is_empty() {
                    writeln!(out, "  flags {}", v.flags.join(" "))?;
                }
                writeln!(out, "  comparability {}", v.comparability)?;
                if let VarKind::Function(_, args) = &v.kind {
                    let args: Vec<String> = args.iter().map(|a| escape(a)).collect();
                    writeln!(out, "  function-args {}", args.join(" "))?;
                }
                if let (true, Some(parent)) = (inherited, &p.parent) {
                    writeln!(out, "  parent {} 1", escape(parent))?;
                }
            }
            writeln!(out)?;
        }
        Ok(())
    }

    /// The samples of one run: a state record per state, and per step an entry record (the
    /// parameters and the state before) and an exit record (the parameters and the state
    /// after) sharing one invocation nonce.
    pub fn write_trace(&mut self, trace: &Trace, out: &mut dyn Write) -> io::Result<()> {
        for (k, state) in trace.states.iter().enumerate() {
            if k > 0 {
                let step = &trace.steps[k - 1];
                self.nonce += 1;
                let nonce = Some(self.nonce);
                let mut roots = self.roots(&trace.states[k - 1]);
                roots.extend(step.args.iter().cloned());
                self.write_record(1 + 2 * step.action, nonce, &roots, out)?;
                let mut roots = self.roots(state);
                roots.extend(step.args.iter().cloned());
                self.write_record(2 + 2 * step.action, nonce, &roots, out)?;
            }
            let roots = self.roots(state);
            self.write_record(0, None, &roots, out)?;
        }
        Ok(())
    }

    /// A state's values and the synthetic variables' values in it.
    fn roots(&self, state: &[Value]) -> Vec<Value> {
        let mut roots = state.to_vec();
        roots.extend(self.intersections.iter().map(|i| i.value(state)));
        roots
    }

    fn write_record(
        &mut self,
        point: usize,
        nonce: Option<u64>,
        roots: &[Value],
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let printer = Printer::new(self.machine.spec);
        let p = &self.points[point];
        writeln!(out, "{}", escape(&p.name))?;
        if let Some(n) = nonce {
            writeln!(out, "this_invocation_nonce\n{n}")?;
        }
        for v in &p.vars {
            writeln!(out, "{}", escape(&v.name))?;
            match read(&roots[v.root], &v.path) {
                Some(Read::One(x)) => {
                    let text = scalar(&mut self.ids, &printer, v.rep, &x);
                    writeln!(out, "{text}\n1")?;
                }
                Some(Read::Many(xs)) => {
                    let items: Vec<String> = xs
                        .iter()
                        .map(|x| scalar(&mut self.ids, &printer, v.rep, x))
                        .collect();
                    writeln!(out, "[{}]\n1", items.join(" "))?;
                }
                None => writeln!(out, "nonsensical\n2")?,
            }
        }
        writeln!(out)
    }
}

/// A variable's value(s) in one sample.
enum Read {
    One(Value),
    Many(Vec<Value>),
}

/// Follows a path; `None` when it passes through `nil` (the value is nonsensical).
fn read(root: &Value, path: &[Step]) -> Option<Read> {
    let mut cur = root.clone();
    for (k, step) in path.iter().enumerate() {
        cur = match (step, &cur) {
            (Step::Field(i), Value::Tuple(fs)) => fs.get(*i)?.clone(),
            (Step::Tag, Value::Union(..)) => cur.clone(),
            (Step::Val, Value::Embed(x)) => (**x).clone(),
            (Step::Val, _) => return None,
            (Step::Index(key), Value::Array(a)) => Value::array_get(a, key),
            (Step::Elements, _) => {
                let items: Vec<Value> = match &cur {
                    Value::Set(s) => s.iter().cloned().collect(),
                    Value::Seq(s) => s.iter().cloned().collect(),
                    Value::Mset(m) => m
                        .iter()
                        .flat_map(|(x, n)| std::iter::repeat_n(x.clone(), *n as usize))
                        .collect(),
                    _ => return None,
                };
                let rest = &path[k + 1..];
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match read(&item, rest)? {
                        Read::One(x) => out.push(x),
                        Read::Many(_) => return None,
                    }
                }
                return Some(Read::Many(out));
            }
            _ => return None,
        };
    }
    Some(Read::One(cur))
}

/// One value in Daikon's syntax for its rep-type.
fn scalar(ids: &mut FxHashMap<Value, u64>, printer: &Printer, rep: Rep, v: &Value) -> String {
    match (rep, v) {
        (Rep::Int, Value::Int(i)) => i.to_string(),
        (Rep::Bool, Value::Bool(b)) => if *b { "1" } else { "0" }.to_string(),
        (Rep::Str, Value::Union(..)) => {
            // The tag of a union: its printed form up to the payload.
            let text = printer.show(v);
            quote(text.split('(').next().unwrap_or(""))
        }
        (Rep::Str, Value::Str(s)) => quote(s),
        (Rep::Str, other) => quote(&printer.show(other)),
        (Rep::Hash, Value::Nil) => "null".to_string(),
        (Rep::Hash, other) => {
            let next = ids.len() as u64 + 1;
            ids.entry(other.clone()).or_insert(next).to_string()
        }
        (_, other) => quote(&printer.show(other)),
    }
}

/// A string literal: quotes and backslashes escaped, line breaks as `\n` and `\r`.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A name in a declaration or record: blanks as `\_`, backslashes doubled.
pub fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace(' ', "\\_")
}
