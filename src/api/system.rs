//! A composite as a distributed system, as data: its nodes with their slots in the state
//! vector, the network, the message actions and the class of every action's instances — the
//! system view (`checker::system`) that the local, consequence and liveness searches read.
//! `ioa system` prints a [`SystemReport`] as text or JSON.

use super::model::{self, Model};
use checker::system::{ClassKind, Member, SystemView};
use interpreter::machine::Machine;
use interpreter::universe::type_text;
use interpreter::value::Printer;
use ioa_lang::ast::ActionKind;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::ir::AutomatonBody;
use serde::Serialize;

/// The system view of `machine`, with the network given by component names (empty: the
/// composite's own `network` clause, or the components found to be the network).
pub fn system_view<'m, 's>(
    machine: &'m Machine<'s>,
    network: &[String],
) -> Result<SystemView<'m, 's>, Vec<Diagnostic>> {
    let given = if network.is_empty() {
        None
    } else {
        Some(
            checker::system::resolve_network(machine, network)
                .map_err(|e| vec![e.to_diagnostic()])?,
        )
    };
    SystemView::with_network(machine, given.as_deref())
        .map_err(|errors| errors.iter().map(|e| e.to_diagnostic()).collect())
}

/// The automaton when none is named: the only one, or else the only composite that is not a
/// component of another composite.
pub fn only_composite(m: &Model) -> Result<ioa_lang::ir::AutomatonId, String> {
    if m.spec.automata.len() == 1 {
        return model::pick_automaton(&m.spec, None, None);
    }
    let used: Vec<ioa_lang::ir::AutomatonId> = m
        .spec
        .automata
        .iter()
        .filter_map(|a| match &a.body {
            AutomatonBody::Composite(c) => Some(c.components.iter().map(|c| c.automaton)),
            AutomatonBody::Primitive(_) => None,
        })
        .flatten()
        .collect();
    let outermost: Vec<usize> = m
        .spec
        .automata
        .iter()
        .enumerate()
        .filter(|(k, a)| {
            matches!(a.body, AutomatonBody::Composite(_))
                && !used.contains(&ioa_lang::ir::AutomatonId(*k as u32))
        })
        .map(|(k, _)| k)
        .collect();
    match outermost[..] {
        [k] => Ok(ioa_lang::ir::AutomatonId(k as u32)),
        _ => model::pick_automaton(&m.spec, None, None),
    }
}

/// What `ioa system` prints, as data (the JSON form; the text form is made from it).
#[derive(Serialize)]
pub struct SystemReport {
    /// The composite.
    automaton: String,
    /// Its parameters, `name = value`.
    params: Vec<String>,
    /// The network's components, and whether a `network` clause named them.
    network_components: Vec<String>,
    network_source: String,
    nodes: Vec<MemberReport>,
    network: Vec<MemberReport>,
    /// Names of the actions a node shares with the network.
    message_actions: Vec<String>,
    actions: Vec<ActionReport>,
    /// With `--instances`: every action instance some component takes part in.
    #[serde(skip_serializing_if = "Option::is_none")]
    instances: Option<Vec<InstanceReport>>,
}

#[derive(Serialize)]
struct InstanceReport {
    /// The instance, printed (`send(0, 1, 2)`).
    action: String,
    /// Its class.
    class: &'static str,
    /// The node that takes part (none for a network action).
    #[serde(skip_serializing_if = "Option::is_none")]
    node: Option<String>,
}

#[derive(Serialize)]
struct MemberReport {
    name: String,
    /// The machine instances it consists of.
    instances: Vec<String>,
    /// First slot and one past the last.
    slots: [usize; 2],
    variables: Vec<VariableReport>,
}

#[derive(Serialize)]
struct VariableReport {
    slot: usize,
    name: String,
    #[serde(rename = "type")]
    ty: String,
}

#[derive(Serialize)]
struct ActionReport {
    name: String,
    /// Input, output or internal at the root.
    kind: &'static str,
    /// The classes its instances have (`message handler`, `send`, `local`, `network`).
    classes: Vec<&'static str>,
    message_handler: usize,
    send: usize,
    local: usize,
    network: usize,
    no_participant: usize,
    /// The nodes that take part in some instance.
    nodes: Vec<String>,
}

impl SystemReport {
    /// The report of a system view; `list_instances` lists every action instance with its
    /// class.
    pub fn of(view: &SystemView, list_instances: bool) -> SystemReport {
        let machine = view.machine();
        let spec = machine.spec;
        let root = &spec.automata[machine.root.0 as usize];
        let printer = Printer::new(spec);
        let slot_names = machine.slot_names();
        let slot_types = machine.slot_types();
        let member = |m: &Member| MemberReport {
            name: m.name.clone(),
            instances: m
                .instances
                .iter()
                .map(|&i| machine.instances[i].name.clone())
                .collect(),
            slots: [m.slots.start, m.slots.end],
            variables: m
                .slots
                .clone()
                .map(|slot| {
                    let full = &slot_names[slot];
                    let prefix = format!("{}.", m.name);
                    VariableReport {
                        slot,
                        name: full.strip_prefix(&prefix).unwrap_or(full).to_string(),
                        ty: type_text(spec, &slot_types[slot]),
                    }
                })
                .collect(),
        };
        let components = match &root.body {
            AutomatonBody::Composite(c) => &c.components[..],
            AutomatonBody::Primitive(_) => &[],
        };
        let instances = list_instances.then(|| {
            view.instances
                .iter()
                .zip(&view.classes)
                .filter_map(|(instance, class)| {
                    let class = (*class)?;
                    let args: Vec<String> = instance.args.iter().map(|v| printer.show(v)).collect();
                    let name = &machine.actions[instance.action].name;
                    Some(InstanceReport {
                        action: if args.is_empty() {
                            name.clone()
                        } else {
                            format!("{name}({})", args.join(", "))
                        },
                        class: class.kind().name(),
                        node: class.node().map(|n| view.nodes[n].name.clone()),
                    })
                })
                .collect()
        });
        SystemReport {
            instances,
            automaton: root.name.clone(),
            params: root
                .params
                .iter()
                .zip(&machine.root_params)
                .map(|(p, v)| format!("{} = {}", p.name, printer.show(v)))
                .collect(),
            network_components: view
                .network_components
                .iter()
                .map(|&c| components[c as usize].name.clone())
                .collect(),
            network_source: view.network_source.describe().to_string(),
            nodes: view.nodes.iter().map(member).collect(),
            network: view.network.iter().map(member).collect(),
            message_actions: view
                .message_actions()
                .into_iter()
                .map(|a| machine.actions[a].name.clone())
                .collect(),
            actions: view
                .actions
                .iter()
                .map(|a| ActionReport {
                    name: a.name.clone(),
                    kind: match machine.actions[a.action].kind {
                        ActionKind::Input => "input",
                        ActionKind::Output => "output",
                        ActionKind::Internal => "internal",
                    },
                    classes: a.kinds().into_iter().map(ClassKind::name).collect(),
                    message_handler: a.counts.message_handler,
                    send: a.counts.send,
                    local: a.counts.local,
                    network: a.counts.network,
                    no_participant: a.counts.no_participant,
                    nodes: a
                        .nodes
                        .iter()
                        .map(|&n| view.nodes[n].name.clone())
                        .collect(),
                })
                .collect(),
        }
    }

    /// The text form.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let params = if self.params.is_empty() {
            String::new()
        } else {
            format!("({})", self.params.join(", "))
        };
        let network = if self.network_components.is_empty() {
            "no network".to_string()
        } else {
            format!(
                "network {} ({})",
                self.network_components.join(", "),
                self.network_source
            )
        };
        let nodes = match self.nodes.len() {
            1 => "1 node".to_string(),
            n => format!("{n} nodes"),
        };
        out.push_str(&format!(
            "system {}{params}: {nodes}, {network}\n",
            self.automaton
        ));
        let members = |out: &mut String, title: &str, members: &[MemberReport]| {
            out.push_str(&format!("\n{title}:\n"));
            let width = members.iter().map(|m| m.name.len()).max().unwrap_or(0);
            for m in members {
                let [start, end] = m.slots;
                let slots = match end - start {
                    0 => "no slots".to_string(),
                    1 => format!("slot {start}"),
                    _ => format!("slots {start}-{}", end - 1),
                };
                let vars: Vec<String> = m
                    .variables
                    .iter()
                    .map(|v| format!("{}: {}", v.name, v.ty))
                    .collect();
                out.push_str(&format!(
                    "  {:width$}  {slots:<10}  {}\n",
                    m.name,
                    vars.join(", ")
                ));
            }
        };
        members(&mut out, "nodes", &self.nodes);
        if !self.network.is_empty() {
            members(&mut out, "network", &self.network);
        }
        out.push_str(&format!(
            "\nmessage actions: {}\n",
            if self.message_actions.is_empty() {
                "none".to_string()
            } else {
                self.message_actions.join(", ")
            }
        ));
        out.push_str("\nactions (instances over the universe, by class):\n");
        let width = self.actions.iter().map(|a| a.name.len()).max().unwrap_or(0);
        for a in &self.actions {
            let mut classes: Vec<String> = Vec::new();
            for (name, n) in [
                ("message handler", a.message_handler),
                ("send", a.send),
                ("local", a.local),
                ("network", a.network),
            ] {
                if n > 0 {
                    classes.push(format!("{name} {n}"));
                }
            }
            if classes.is_empty() {
                classes.push("no instance takes part".into());
            }
            let nodes = if a.nodes.is_empty() {
                String::new()
            } else {
                format!("; nodes {}", a.nodes.join(", "))
            };
            let idle = if a.no_participant > 0 {
                format!("; {} with no participant", a.no_participant)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "  {:width$}  {:8}  {}{nodes}{idle}\n",
                a.name,
                a.kind,
                classes.join(", ")
            ));
        }
        if let Some(instances) = &self.instances {
            out.push_str("\ninstances some component takes part in:\n");
            let width = instances.iter().map(|i| i.action.len()).max().unwrap_or(0);
            for i in instances {
                let node = i.node.as_deref().unwrap_or("");
                let line = format!("  {:width$}  {:15}  {node}", i.action, i.class);
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        out.truncate(out.trim_end().len());
        out
    }
}
