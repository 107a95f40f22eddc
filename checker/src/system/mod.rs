//! The system view: a composite automaton seen as a distributed system of *nodes* and a
//! *network*, as local model checking (LMC §3.1), consequence prediction (CrystalBall §2.1) and
//! liveness walks reason about it. It is computed once, from the IR and the interpreter's
//! [`Machine`] layout, and the explorers only read it.
//!
//! - Which top-level components are the network comes from the command line (`--network`), the
//!   composite's `network C, D` clause, or else is found from the model ([`network`]: the first
//!   component and every later one that shares no action with a node are the nodes).
//! - A *node* is a member of a top-level component that is not part of the network (`P[0]`),
//!   with the machine instances it consists of and its slice of the state vector: its *local
//!   state* is [`SystemView::local_state`].
//! - Every action instance (action and argument values, enumerated as the explorers enumerate
//!   them) gets an [`ActionClass`]: a message handler (a node's input from the network), a send
//!   (a node's output taken by the network), a local action (only one node takes part) or a
//!   network action (only the network takes part). [`classify`] holds the rules.
//! - Models where one node's action would change another node's state — an action shared
//!   directly by two nodes, bypassing the network — are rejected with a [`SystemError`]
//!   pointing at the write.

pub mod classify;
pub mod error;
pub mod network;

pub use classify::{ActionClass, ActionSummary, ClassCounts, ClassKind};
pub use error::SystemError;
pub use network::NetworkSource;

use crate::model::{action_instances, ActionInstance};
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::ir::AutomatonBody;
use ioa_lang::span::Span;
use std::ops::Range;

/// A member of a top-level component of the composite: one node, or one part of the network.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// Its name (`P[0]`, or `C` for a single component).
    pub name: String,
    /// The top-level component (index into the composite's components).
    pub component: u32,
    /// Its family index values (empty for a single component).
    pub indices: Vec<Value>,
    /// The machine instances it consists of (one, unless the component is itself a composite).
    pub instances: Vec<usize>,
    /// Its slots in the state vector (a member's instances are laid out one after another).
    pub slots: Range<usize>,
}

/// A composite automaton as nodes and a network, with a class for every action instance.
pub struct SystemView<'m, 's> {
    machine: &'m Machine<'s>,
    /// The nodes, in the order of the state vector.
    pub nodes: Vec<Member>,
    /// The members of the network components, in the order of the state vector.
    pub network: Vec<Member>,
    /// The top-level components that form the network.
    pub network_components: Vec<u32>,
    /// Where the network's components came from.
    pub network_source: NetworkSource,
    /// For each machine instance, the node it belongs to.
    node_of_instance: Vec<Option<usize>>,
    /// For each machine instance, the network member it belongs to.
    network_of_instance: Vec<Option<usize>>,
    /// Every action instance, in the explorers' order ([`action_instances`]).
    pub instances: Vec<ActionInstance>,
    /// The class of each of [`SystemView::instances`]; `None` when no component takes part.
    pub classes: Vec<Option<ActionClass>>,
    /// One summary per action of the machine.
    pub actions: Vec<ActionSummary>,
}

impl<'m, 's> SystemView<'m, 's> {
    /// The view of `machine`, whose root must be a composite. Enumerates every action instance
    /// over the machine's universe (so the universe must bound every action parameter) and
    /// classifies it; every action shared directly by two nodes is reported.
    pub fn new(machine: &'m Machine<'s>) -> Result<Self, Vec<SystemError>> {
        Self::with_network(machine, None)
    }

    /// The view with the network's components given (positions in the composite, from
    /// [`resolve_network`]), overriding the composite's `network` clause; `None`: the clause, or
    /// else the components found from the model ([`network::choose_network`]).
    pub fn with_network(
        machine: &'m Machine<'s>,
        given: Option<&[u32]>,
    ) -> Result<Self, Vec<SystemError>> {
        let root = &machine.spec.automata[machine.root.0 as usize];
        let AutomatonBody::Composite(composite) = &root.body else {
            // `automaton NAME`, the head of the declaration, as printed canonically.
            let head = ("automaton ".len() + root.name.len()) as u32;
            let span = Span {
                end: (root.span.start + head).min(root.span.end),
                ..root.span
            };
            return Err(vec![SystemError::NotComposite {
                automaton: root.name.clone(),
                span,
            }]);
        };
        let instances = action_instances(machine).map_err(|e| vec![SystemError::Run(e)])?;
        let (network_components, network_source) =
            network::choose_network(machine, composite, given, &instances)
                .map_err(|e| vec![SystemError::Run(e)])?;
        let (nodes, network) = members(machine, &network_components);
        if nodes.is_empty() {
            return Err(vec![SystemError::NoNodes {
                automaton: root.name.clone(),
                span: composite.network.as_ref().map_or(root.span, |n| n.span),
                network: network_components
                    .iter()
                    .map(|&c| composite.components[c as usize].name.clone())
                    .collect(),
                source: network_source,
                empty: (0..composite.components.len() as u32)
                    .filter(|c| !network_components.contains(c))
                    .map(|c| composite.components[c as usize].name.clone())
                    .collect(),
            }]);
        }
        let mut node_of_instance = vec![None; machine.instances.len()];
        for (k, node) in nodes.iter().enumerate() {
            for &i in &node.instances {
                node_of_instance[i] = Some(k);
            }
        }
        let mut network_of_instance = vec![None; machine.instances.len()];
        for (k, part) in network.iter().enumerate() {
            for &i in &part.instances {
                network_of_instance[i] = Some(k);
            }
        }
        let mut view = SystemView {
            machine,
            nodes,
            network,
            network_components,
            network_source,
            node_of_instance,
            network_of_instance,
            classes: Vec::with_capacity(instances.len()),
            instances: Vec::new(),
            actions: Vec::new(),
        };
        view.classify_all(instances)?;
        Ok(view)
    }

    /// The machine the view describes.
    pub fn machine(&self) -> &'m Machine<'s> {
        self.machine
    }

    /// The node a machine instance belongs to, if it belongs to a node.
    pub fn node_of_instance(&self, instance: usize) -> Option<usize> {
        self.node_of_instance[instance]
    }

    /// The network member a machine instance belongs to, if it belongs to the network.
    pub fn network_of_instance(&self, instance: usize) -> Option<usize> {
        self.network_of_instance[instance]
    }

    /// Node `node`'s local state in the global state `state`: the values of its slots.
    pub fn local_state<'a>(&self, node: usize, state: &'a [Value]) -> &'a [Value] {
        &state[self.nodes[node].slots.clone()]
    }

    /// The network's state in the global state `state`: the values of every network member's
    /// slots, in the order of [`SystemView::network`].
    pub fn network_state(&self, state: &[Value]) -> Vec<Value> {
        self.network
            .iter()
            .flat_map(|m| state[m.slots.clone()].iter().cloned())
            .collect()
    }

    /// The network's machine instances that take part in action instance `k` (of
    /// [`SystemView::instances`]), each with whether it controls the action: for a message
    /// handler, the instance that delivers; for a send, the instances that take the message.
    pub fn network_participants(
        &self,
        k: usize,
    ) -> interpreter::error::EvalResult<Vec<(usize, bool)>> {
        let inst = &self.instances[k];
        Ok(self
            .machine
            .participants(inst.action, &inst.args)?
            .into_iter()
            .filter(|(i, _)| self.network_of_instance[*i].is_some())
            .map(|(i, kind)| (i, kind != ioa_lang::ast::ActionKind::Input))
            .collect())
    }

    /// The actions a node shares with the network (some instance is a send or a message
    /// handler), in action order.
    pub fn message_actions(&self) -> Vec<usize> {
        self.actions
            .iter()
            .filter(|a| a.is_message())
            .map(|a| a.action)
            .collect()
    }
}

/// The positions of the components named (`--network C,D`) in `machine`'s root composite; an
/// unknown name is E0704.
pub fn resolve_network(machine: &Machine, names: &[String]) -> Result<Vec<u32>, SystemError> {
    let root = &machine.spec.automata[machine.root.0 as usize];
    let AutomatonBody::Composite(composite) = &root.body else {
        return Err(SystemError::NotComposite {
            automaton: root.name.clone(),
            span: root.span,
        });
    };
    let mut out = Vec::new();
    for name in names {
        match composite.components.iter().position(|c| &c.name == name) {
            Some(k) => out.push(k as u32),
            None => {
                return Err(SystemError::UnknownComponent {
                    automaton: root.name.clone(),
                    name: name.clone(),
                    components: composite
                        .components
                        .iter()
                        .map(|c| c.name.clone())
                        .collect(),
                    span: root.span,
                })
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The members of the top-level components, split into nodes and network members.
fn members(machine: &Machine, network_components: &[u32]) -> (Vec<Member>, Vec<Member>) {
    let mut all: Vec<Member> = Vec::new();
    for (k, inst) in machine.instances.iter().enumerate() {
        let Some((component, indices)) = &inst.member else {
            continue;
        };
        let range = inst.offset..inst.offset + inst.len;
        match all.last_mut() {
            // Instances of one member are consecutive: `Machine` expands a member whole.
            Some(m) if m.component == *component && m.indices == *indices => {
                m.instances.push(k);
                m.slots.end = range.end;
            }
            _ => {
                all.push(Member {
                    name: member_name(machine, *component, indices),
                    component: *component,
                    indices: indices.clone(),
                    instances: vec![k],
                    slots: range,
                });
            }
        }
    }
    all.into_iter()
        .partition(|m| !network_components.contains(&m.component))
}

/// `P[0]` for member `[0]` of family `P`, `C` for a single component `C`.
fn member_name(machine: &Machine, component: u32, indices: &[Value]) -> String {
    let AutomatonBody::Composite(c) = &machine.spec.automata[machine.root.0 as usize].body else {
        return String::new();
    };
    let name = &c.components[component as usize].name;
    if indices.is_empty() {
        return name.clone();
    }
    let printer = interpreter::value::Printer::new(machine.spec);
    let shown: Vec<String> = indices.iter().map(|v| printer.show(v)).collect();
    format!("{name}[{}]", shown.join(", "))
}
