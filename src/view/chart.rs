//! The picture of a run as data: lifelines, one entry per step (its log line, its lifeline, its
//! part in message passing, crash and loss marks, the variables it changed), the message arrows
//! and the step to highlight. Built once from the interpreter's trace; the SVG and the HTML page
//! only draw it.

use super::messages::{self, Arrow, MsgRole, MsgStep};
use checker::system::{ActionClass, SystemView};
use interpreter::machine::Machine;
use interpreter::trace::Trace;
use interpreter::value::{Printer, Value};
use ioa_lang::ir::Type;
use serde::Serialize;

/// Where the lifelines come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaneSource {
    /// The nodes of a composite's system view (`P[0]`, `N[[1]]`).
    Nodes,
    /// The values of the type of most actions' first parameter (a primitive automaton).
    FirstArgument(String),
    /// No lifelines: the page shows steps and states only.
    None,
}

/// One step of the run (position 0 is the start state).
#[derive(Debug, Clone, Serialize)]
pub struct ChartStep {
    /// The paper's log line without its number and automaton (`internal send(0, 1, 0)`); the
    /// start state's is `start`.
    pub line: String,
    /// The action's name (empty for the start).
    pub action: String,
    /// The lifeline the step happens on.
    pub lane: Option<usize>,
    /// `send`, `deliver`, `local`, `network`, `step` (no lifelines) or `start`.
    pub role: &'static str,
    /// `crash` (an action named `fail…`/`crash…`) or `loss` (a network action named
    /// `lose…`/`loss…`/`drop…`).
    pub mark: Option<&'static str>,
    /// The state variables the step changed, with their new values.
    pub changes: Vec<(usize, String)>,
}

/// The step to draw attention to.
#[derive(Debug, Clone, Serialize)]
pub struct Highlight {
    /// The step (its state is the first bad one).
    pub step: usize,
    /// Why (`invariant ChosenAgreement is violated`).
    pub reason: String,
}

/// A run as a message-sequence chart with its states.
#[derive(Debug, Clone, Serialize)]
pub struct Chart {
    /// What the page is about (automaton, model file, how the run came about).
    pub title: String,
    /// Lifeline names.
    pub lanes: Vec<String>,
    /// Where they come from.
    pub lane_source: LaneSource,
    /// Whether a network column is drawn (composites with a network).
    pub network: bool,
    /// State variable names.
    pub vars: Vec<String>,
    /// The lifeline each variable belongs to (a node's slots).
    pub var_lane: Vec<Option<usize>>,
    /// The start state, printed in IOA syntax.
    pub start: Vec<String>,
    /// The steps, the start first.
    pub steps: Vec<ChartStep>,
    /// One arrow per delivered message.
    pub arrows: Vec<Arrow>,
    /// The violating step, if the run has one.
    pub highlight: Option<Highlight>,
    /// The critical step a liveness explorer names (`#meta.critical`), if any: the step after
    /// which the bad outcome can no longer be avoided.
    pub critical: Option<Highlight>,
}

fn is_crash(name: &str) -> bool {
    let n = name.to_lowercase();
    n.starts_with("fail") || n.starts_with("crash")
}

fn is_loss(name: &str) -> bool {
    let n = name.to_lowercase();
    n.starts_with("lose") || n.starts_with("loss") || n.starts_with("drop")
}

/// The lifelines of a primitive automaton: the type of most actions' first parameter, when it
/// is a declared type with a finite carrier, and each step's position in it.
fn first_argument_lanes(machine: &Machine) -> Option<(String, Vec<Value>, Type)> {
    let firsts: Vec<&Type> = machine
        .actions
        .iter()
        .filter_map(|a| a.param_types.first())
        .collect();
    let candidate = firsts.iter().find(|t| matches!(t, Type::Named(_)))?;
    let share = firsts.iter().filter(|t| **t == *candidate).count();
    if share * 2 < machine.actions.len() {
        return None;
    }
    let values = machine.carrier(candidate, Default::default()).ok()?;
    if values.is_empty() || values.len() > 64 {
        return None;
    }
    let Type::Named(id) = candidate else {
        return None;
    };
    Some((
        machine.spec.types[id.0 as usize].name.clone(),
        values.to_vec(),
        (*candidate).clone(),
    ))
}

/// Builds the chart of `trace`. `meta` is the ITF `#meta` (for the title and a recorded
/// failure); a composite gets node lifelines and arrows from its system view when it has one.
pub fn build(machine: &Machine, trace: &Trace, meta: &serde_json::Value) -> Chart {
    let printer = Printer::new(machine.spec);
    let vars = machine.slot_names();
    let automaton = &machine.spec.automata[machine.root.0 as usize].name;
    let view = SystemView::new(machine).ok();
    let mut lanes = Vec::new();
    let mut var_lane = vec![None; vars.len()];
    let lane_source;
    let mut lane_of_step: Vec<Option<usize>> = vec![None; trace.states.len()];
    let mut class_of_step: Vec<Option<ActionClass>> = vec![None; trace.states.len()];
    match &view {
        Some(v) => {
            lane_source = LaneSource::Nodes;
            for (k, node) in v.nodes.iter().enumerate() {
                lanes.push(node.name.clone());
                for s in node.slots.clone() {
                    var_lane[s] = Some(k);
                }
            }
            for (k, step) in trace.steps.iter().enumerate() {
                let class = v.classify(step.action, &step.args).ok().flatten();
                lane_of_step[k + 1] = class.and_then(|c| c.node());
                class_of_step[k + 1] = class;
            }
        }
        None => match first_argument_lanes(machine) {
            Some((name, values, ty)) => {
                lanes = values
                    .iter()
                    .map(|v| format!("{name} {}", printer.show(v)))
                    .collect();
                lane_source = LaneSource::FirstArgument(name);
                for (k, step) in trace.steps.iter().enumerate() {
                    let a = &machine.actions[step.action];
                    if a.param_types.first() == Some(&ty) {
                        lane_of_step[k + 1] =
                            values.iter().position(|v| Some(v) == step.args.first());
                    }
                }
            }
            None => lane_source = LaneSource::None,
        },
    }
    let mut steps = vec![ChartStep {
        line: "start".into(),
        action: String::new(),
        lane: None,
        role: "start",
        mark: None,
        changes: Vec::new(),
    }];
    let mut msg_steps: Vec<MsgStep<(Type, Value)>> = vec![MsgStep {
        role: MsgRole::Other,
        lane: None,
        args: Vec::new(),
        own: Vec::new(),
    }];
    for (k, step) in trace.steps.iter().enumerate() {
        let a = &machine.actions[step.action];
        let class = class_of_step[k + 1];
        let role = match (class, &view) {
            (Some(ActionClass::Send { .. }), _) => "send",
            (Some(ActionClass::MessageHandler { .. }), _) => "deliver",
            (Some(ActionClass::Local { .. }), _) => "local",
            (Some(ActionClass::Network), _) => "network",
            (None, Some(_)) => "network",
            (None, None) => "step",
        };
        let mark = if is_crash(&a.name) && role != "network" {
            Some("crash")
        } else if is_loss(&a.name) && role == "network" {
            Some("loss")
        } else {
            None
        };
        let (before, after) = (&trace.states[k], &trace.states[k + 1]);
        let changes = (0..vars.len())
            .filter(|&s| before[s] != after[s])
            .map(|s| (s, printer.show(&after[s])))
            .collect();
        let line = trace.log_line(machine, k + 1);
        // `k: ` and ` in automaton A` say nothing the page does not show.
        let line = line
            .split_once(": ")
            .map_or(line.clone(), |(_, l)| l.to_string());
        let line = line
            .strip_suffix(&format!(" in automaton {automaton}"))
            .map_or(line.clone(), str::to_string);
        steps.push(ChartStep {
            line,
            action: a.name.clone(),
            lane: lane_of_step[k + 1],
            role,
            mark,
            changes,
        });
        let keys: Vec<(Type, Value)> = a
            .param_types
            .iter()
            .cloned()
            .zip(step.args.iter().cloned())
            .collect();
        let own = match (class, &view) {
            (Some(ActionClass::Send { node }), Some(v)) => {
                let idx = &v.nodes[node].indices;
                keys.iter()
                    .filter(|(_, val)| idx.contains(val))
                    .take(idx.len())
                    .cloned()
                    .collect()
            }
            _ => Vec::new(),
        };
        msg_steps.push(MsgStep {
            role: match role {
                "send" => MsgRole::Send,
                "deliver" => MsgRole::Deliver,
                _ => MsgRole::Other,
            },
            lane: lane_of_step[k + 1],
            args: keys,
            own,
        });
    }
    let arrows = if view.is_some() {
        messages::pair(&msg_steps)
    } else {
        Vec::new()
    };
    let critical = recorded(meta, "critical", trace.steps.len());
    let highlight = recorded(meta, "failure", trace.steps.len()).or_else(|| {
        trace.states.iter().enumerate().find_map(|(k, s)| {
            let failing = match machine.failing_invariant(s) {
                Ok(Some(i)) => Some(format!(
                    "invariant {} is violated",
                    machine.spec.invariants[i].name
                )),
                Err((i, _)) => Some(format!(
                    "invariant {} cannot be evaluated",
                    machine.spec.invariants[i].name
                )),
                Ok(None) => None,
            };
            failing.map(|reason| Highlight { step: k, reason })
        })
    });
    let source = meta["source"]
        .as_str()
        .map(|s| {
            std::path::Path::new(s)
                .file_name()
                .map_or(s.to_string(), |f| f.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    let how = how_it_came(meta);
    let title = format!(
        "{automaton} ({source}{}{how}): {} step(s)",
        if how.is_empty() { "" } else { ", " },
        trace.steps.len()
    );
    Chart {
        title,
        lanes,
        lane_source,
        network: view.is_some(),
        vars,
        var_lane,
        start: trace.states[0].iter().map(|v| printer.show(v)).collect(),
        steps,
        arrows,
        highlight,
        critical,
    }
}

/// `#meta.KEY = {"step": k, "message": …}`: `failure` is written by `ioa pair` when the run
/// fails; `critical` is for liveness explorers (the step after which the run is doomed).
fn recorded(meta: &serde_json::Value, key: &str, n_steps: usize) -> Option<Highlight> {
    let f = meta.get(key)?;
    let step = f["step"].as_u64()? as usize;
    (step <= n_steps).then(|| Highlight {
        step,
        reason: f["message"]
            .as_str()
            .unwrap_or("the run fails here")
            .to_string(),
    })
}

/// `schedule Ring`, `pair PaxosBugToGlobal1`, `explore`, or nothing.
fn how_it_came(meta: &serde_json::Value) -> String {
    if let Some(s) = meta["schedule"].as_str() {
        format!("schedule {s}")
    } else if let Some(p) = meta.get("pair") {
        format!("pair {}", p["simulation"].as_str().unwrap_or(""))
    } else if meta.get("explore").is_some() {
        "explore".into()
    } else if let Some(d) = meta["description"].as_str() {
        d.to_string()
    } else {
        String::new()
    }
}
