//! An explorer session: the path so far (start state first), the steps undone by `back`, and
//! the JSON API over them. Every successor comes from the checker's [`MachineModel`] (every
//! enabled action instance, with every resolution of its `choose`s), and a saved path is
//! re-executed by the same model into the trace `ioa replay` reads.
//!
//! | request | answer |
//! |---|---|
//! | `GET /api/state` | the current state, the path, the enabled steps, invariant verdicts |
//! | `GET /api/trace` | the path as an ITF trace (`ioa replay` accepts it) |
//! | `POST /api/fire` `{"index": i}` or `{"action": "send", "args": [ITF…]}` | take a step |
//! | `POST /api/back`, `POST /api/forward` | move along the path |
//! | `POST /api/start` `{"index": i}` | start again from start state `i` |
//!
//! Errors are `{"error": "…"}` with status 400 (malformed request), 404 (no such route), 405
//! (wrong method) or 409 (no such step from this state).

use crate::view::{chart, svg};
use checker::explore::Model;
use checker::model::{MachineModel, MachineStep};
use interpreter::machine::{Machine, State};
use interpreter::trace::{from_itf, Trace};
use interpreter::value::{Printer, Value};
use serde_json::{json, Value as Json};

/// An HTTP answer: status, content type, body.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The HTTP status code.
    pub status: u16,
    /// `application/json` or `text/html; charset=utf-8`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
}

impl Reply {
    fn json(status: u16, body: &Json) -> Self {
        Reply {
            status,
            content_type: "application/json",
            body: body.to_string(),
        }
    }

    fn error(status: u16, message: impl Into<String>) -> Self {
        Reply::json(status, &json!({ "error": message.into() }))
    }
}

/// What a saved trace records besides the path (see `src/cli/itf.rs`).
pub type MetaFn<'a> = dyn Fn(&Machine, &[Vec<usize>]) -> Json + 'a;

/// One explorer: a model and a path through it.
pub struct Session<'m, 's> {
    model: MachineModel<'m, 's>,
    starts: Vec<(MachineStep, State)>,
    path: Vec<(MachineStep, State)>,
    undone: Vec<(MachineStep, State)>,
    meta: Box<MetaFn<'m>>,
    page: String,
}

/// A model error as text.
fn model_error(e: checker::model::MachineError) -> String {
    use ioa_lang::diagnostics::IntoDiagnostic;
    match e {
        checker::model::MachineError::Start(e)
        | checker::model::MachineError::Step { error: e, .. }
        | checker::model::MachineError::Invariant { error: e, .. } => e.to_diagnostic().message,
        checker::model::MachineError::Diverged { step } => {
            format!("step {step} of the path is not enabled")
        }
    }
}

impl<'m, 's> Session<'m, 's> {
    /// A session at the first start state of `machine`. `meta` builds a saved trace's `#meta`
    /// from the `choose` indices of its steps; `page` is the HTML served at `/`.
    pub fn new(
        machine: &'m Machine<'s>,
        meta: Box<MetaFn<'m>>,
        page: String,
    ) -> Result<Self, String> {
        let model = MachineModel::new(machine, None)
            .map_err(|e| model_error(checker::model::MachineError::Start(e)))?;
        let mut starts = Vec::new();
        model.initial_states(&mut starts).map_err(model_error)?;
        let first = starts
            .first()
            .cloned()
            .ok_or("the automaton has no start state")?;
        Ok(Session {
            model,
            starts,
            path: vec![first],
            undone: Vec::new(),
            meta,
            page,
        })
    }

    /// Follows the steps of `trace` from its start state, which must be one of the model's:
    /// each step must be an enabled instance leading to the recorded state (which also settles
    /// its `choose`s); an error says which step does not fit.
    pub fn follow(&mut self, trace: &Trace) -> Result<(), String> {
        let start = self
            .starts
            .iter()
            .find(|(_, s)| *s == trace.states[0])
            .cloned()
            .ok_or("the trace's first state is not a start state of the model")?;
        self.path = vec![start];
        self.undone.clear();
        for (k, step) in trace.steps.iter().enumerate() {
            let next = self
                .successors()?
                .into_iter()
                .find(|(m, s)| {
                    let inst = &self.model.instances()[m.instance as usize];
                    inst.action == step.action
                        && inst.args == step.args
                        && *s == trace.states[k + 1]
                })
                .ok_or_else(|| {
                    format!(
                        "step {} of the trace is not a step of the model here",
                        k + 1
                    )
                })?;
            self.path.push(next);
        }
        Ok(())
    }

    fn current(&self) -> &State {
        &self.path.last().expect("a path has a start").1
    }

    fn successors(&self) -> Result<Vec<(MachineStep, State)>, String> {
        let mut out = Vec::new();
        self.model
            .successors(self.current(), &mut out)
            .map_err(model_error)?;
        Ok(out)
    }

    /// The path as a trace with its `choose` indices.
    fn trace(&self) -> Result<(Trace, Vec<Vec<usize>>), String> {
        let steps: Vec<MachineStep> = self.path.iter().map(|(m, _)| m.clone()).collect();
        self.model.trace(&steps).map_err(model_error)
    }

    fn line(&self, m: &MachineStep, printer: &Printer, many: bool) -> (String, String) {
        let machine = self.model.machine();
        let inst = &self.model.instances()[m.instance as usize];
        let a = &machine.actions[inst.action];
        let kind = machine
            .kind_of(inst.action, &inst.args)
            .map(|k| k.keyword())
            .unwrap_or("action");
        let args: Vec<String> = inst.args.iter().map(|v| printer.show(v)).collect();
        let mut line = format!("{kind} {}({})", a.name, args.join(", "));
        if many && !m.choices.is_empty() {
            let c: Vec<String> = m.choices.iter().map(|c| c.to_string()).collect();
            line.push_str(&format!(" [choose {}]", c.join(",")));
        }
        (a.name.clone(), line)
    }

    /// The `GET /api/state` document.
    pub fn state_json(&self) -> Result<Json, String> {
        let machine = self.model.machine();
        let printer = Printer::new(machine.spec);
        let names = machine.slot_names();
        let state = self.current();
        let before = self.path.len().checked_sub(2).map(|k| &self.path[k].1);
        let vars: Vec<Json> = names
            .iter()
            .zip(state.iter())
            .enumerate()
            .map(|(i, (n, v))| {
                json!({
                    "name": n,
                    "value": printer.show(v),
                    "changed": before.is_some_and(|b| b[i] != *v),
                })
            })
            .collect();
        let succ = self.successors()?;
        let enabled: Vec<Json> = succ
            .iter()
            .enumerate()
            .map(|(i, (m, _))| {
                let many = succ
                    .iter()
                    .filter(|(o, _)| o.instance == m.instance)
                    .count()
                    > 1;
                let (action, line) = self.line(m, &printer, many);
                json!({ "index": i, "action": action, "line": line })
            })
            .collect();
        let invariants: Vec<Json> = machine
            .spec
            .invariants
            .iter()
            .filter(|inv| inv.automaton == machine.root)
            .map(|inv| {
                let mut locals = vec![Value::Bool(false); inv.n_locals as usize + 1];
                match machine.root_truth(&inv.body, state, &mut locals) {
                    Ok(h) => json!({ "name": inv.name, "holds": h }),
                    Err(e) => {
                        use ioa_lang::diagnostics::IntoDiagnostic;
                        json!({ "name": inv.name, "holds": null, "error": e.to_diagnostic().message })
                    }
                }
            })
            .collect();
        let (trace, _) = self.trace()?;
        let path: Vec<String> = (1..=trace.steps.len())
            .map(|k| trace.log_line(machine, k))
            .collect();
        let c = chart::build(machine, &trace, &json!({}));
        Ok(json!({
            "automaton": machine.spec.automata[machine.root.0 as usize].name,
            "step": self.path.len() - 1,
            "starts": self.starts.len(),
            "path": path,
            "vars": vars,
            "enabled": enabled,
            "invariants": invariants,
            "can_back": self.path.len() > 1,
            "can_forward": !self.undone.is_empty(),
            "chart": svg::render(&c),
        }))
    }

    fn fire(&mut self, body: &Json) -> Reply {
        let succ = match self.successors() {
            Ok(s) => s,
            Err(e) => return Reply::error(409, e),
        };
        let chosen = if let Some(i) = body.get("index") {
            let Some(i) = i.as_u64() else {
                return Reply::error(400, "`index` must be a non-negative integer");
            };
            match succ.get(i as usize) {
                Some(s) => s.clone(),
                None => {
                    return Reply::error(
                        409,
                        format!("there are {} enabled step(s) here; no step {i}", succ.len()),
                    )
                }
            }
        } else if let Some(name) = body.get("action").and_then(|a| a.as_str()) {
            let machine = self.model.machine();
            let Some(action) = machine.actions.iter().position(|a| a.name == name) else {
                return Reply::error(400, format!("the model has no action `{name}`"));
            };
            let types = &machine.actions[action].param_types;
            let given = body
                .get("args")
                .and_then(|a| a.as_array())
                .cloned()
                .unwrap_or_default();
            if given.len() != types.len() {
                return Reply::error(
                    400,
                    format!(
                        "`{name}` takes {} argument(s), {} given",
                        types.len(),
                        given.len()
                    ),
                );
            }
            let args: Result<Vec<Value>, String> = given
                .iter()
                .zip(types)
                .map(|(j, t)| from_itf(machine.spec, j, t))
                .collect();
            let args = match args {
                Ok(a) => a,
                Err(e) => return Reply::error(400, format!("`{name}`: {e}")),
            };
            match succ.iter().find(|(m, _)| {
                let inst = &self.model.instances()[m.instance as usize];
                inst.action == action && inst.args == args
            }) {
                Some(s) => s.clone(),
                None => {
                    return Reply::error(
                        409,
                        format!("`{name}` with these arguments is not enabled here"),
                    )
                }
            }
        } else {
            return Reply::error(
                400,
                "give `index` (a position in `enabled`) or `action` and `args`",
            );
        };
        self.path.push(chosen);
        self.undone.clear();
        self.state_reply()
    }

    fn state_reply(&self) -> Reply {
        match self.state_json() {
            Ok(j) => Reply::json(200, &j),
            Err(e) => Reply::error(409, e),
        }
    }

    /// Answers one request. `body` is the request body as sent.
    pub fn handle(&mut self, method: &str, url: &str, body: &[u8]) -> Reply {
        let path = url.split(['?', '#']).next().unwrap_or("");
        let post = |m: &str| m.eq_ignore_ascii_case("POST");
        let get = |m: &str| m.eq_ignore_ascii_case("GET");
        let json_body = || -> Result<Json, Reply> {
            if body.iter().all(|b| b.is_ascii_whitespace()) {
                return Ok(json!({}));
            }
            serde_json::from_slice(body)
                .map_err(|e| Reply::error(400, format!("the request body is not JSON: {e}")))
        };
        match path {
            "/" | "/index.html" if get(method) => Reply {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: self.page.clone(),
            },
            "/api/state" if get(method) => self.state_reply(),
            "/api/trace" if get(method) => match self.trace() {
                Ok((trace, choices)) => {
                    let machine = self.model.machine();
                    let meta = (self.meta)(machine, &choices);
                    Reply::json(200, &trace.to_itf(machine, meta))
                }
                Err(e) => Reply::error(409, e),
            },
            "/api/fire" if post(method) => match json_body() {
                Ok(b) if b.is_object() => self.fire(&b),
                Ok(_) => Reply::error(400, "the request body must be a JSON object"),
                Err(r) => r,
            },
            "/api/back" if post(method) => {
                if self.path.len() > 1 {
                    let last = self.path.pop().expect("longer than 1");
                    self.undone.push(last);
                }
                self.state_reply()
            }
            "/api/forward" if post(method) => {
                if let Some(next) = self.undone.pop() {
                    self.path.push(next);
                }
                self.state_reply()
            }
            "/api/start" if post(method) => match json_body() {
                Ok(b) => {
                    let i = b.get("index").map_or(Some(0), |i| i.as_u64());
                    match i.and_then(|i| self.starts.get(i as usize)) {
                        Some(s) => {
                            self.path = vec![s.clone()];
                            self.undone.clear();
                            self.state_reply()
                        }
                        None => Reply::error(
                            400,
                            format!(
                                "`index` must be below the number of start states, {}",
                                self.starts.len()
                            ),
                        ),
                    }
                }
                Err(r) => r,
            },
            "/" | "/index.html" | "/api/state" | "/api/trace" | "/api/fire" | "/api/back"
            | "/api/forward" | "/api/start" => {
                Reply::error(405, format!("{method} is not allowed on {path}"))
            }
            _ => Reply::error(404, format!("no such page: {path}")),
        }
    }
}
