//! The class of an action instance in the system view, and the rules that decide it.
//!
//! The participants of an instance are the machine instances whose signatures accept its
//! arguments ([`Machine::participants`]); each belongs to a node or to the network. Then:
//!
//! | participants                              | class             |
//! |-------------------------------------------|-------------------|
//! | none                                      | none (never enabled) |
//! | network only                              | network action (loss, duplication, …) |
//! | one node only                             | local action (timer, client input, crash, internal step, output to the environment) |
//! | one node and the network, the node controls it (output or internal) | send |
//! | one node and the network, the network controls it | message handler (the node receives) |
//! | one node and the network, nobody controls it (an input from the environment both take) | local action |
//! | two or more nodes                         | rejected: one node's step would change another's state |
//!
//! [`Machine::participants`]: interpreter::machine::Machine::participants

use super::error::DirectShare;
use super::{SystemError, SystemView};
use crate::model::ActionInstance;
use interpreter::value::{Printer, Value};
use ioa_lang::ast::ActionKind;
use ioa_lang::ir::{AutomatonBody, Stmt, StmtKind, VarRef};
use ioa_lang::span::Span;

/// What an action instance is to the distributed system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionClass {
    /// A node's input from the network: the network controls the action and `node` receives
    /// it (LMC's and CrystalBall's message handlers, H_M).
    MessageHandler {
        /// The receiving node.
        node: usize,
    },
    /// A node's output taken by the network: `node` sends a message.
    Send {
        /// The sending node.
        node: usize,
    },
    /// An action only one node takes part in (internal node actions, H_A): a timer, a client
    /// input, a crash, an internal step, or an output to the environment.
    Local {
        /// The node.
        node: usize,
    },
    /// An action only network components take part in: loss, duplication, reordering.
    Network,
}

/// An [`ActionClass`] without its node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClassKind {
    /// See [`ActionClass::MessageHandler`].
    MessageHandler,
    /// See [`ActionClass::Send`].
    Send,
    /// See [`ActionClass::Local`].
    Local,
    /// See [`ActionClass::Network`].
    Network,
}

impl ClassKind {
    /// Every kind, in display order.
    pub const ALL: [ClassKind; 4] = [
        ClassKind::MessageHandler,
        ClassKind::Send,
        ClassKind::Local,
        ClassKind::Network,
    ];

    /// Its name in reports (`message handler`, `send`, `local`, `network`).
    pub fn name(self) -> &'static str {
        match self {
            ClassKind::MessageHandler => "message handler",
            ClassKind::Send => "send",
            ClassKind::Local => "local",
            ClassKind::Network => "network",
        }
    }
}

impl ActionClass {
    /// The kind, without the node.
    pub fn kind(self) -> ClassKind {
        match self {
            ActionClass::MessageHandler { .. } => ClassKind::MessageHandler,
            ActionClass::Send { .. } => ClassKind::Send,
            ActionClass::Local { .. } => ClassKind::Local,
            ActionClass::Network => ClassKind::Network,
        }
    }

    /// The node that takes part, unless it is a network action.
    pub fn node(self) -> Option<usize> {
        match self {
            ActionClass::MessageHandler { node }
            | ActionClass::Send { node }
            | ActionClass::Local { node } => Some(node),
            ActionClass::Network => None,
        }
    }
}

/// How many instances of an action fall in each class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassCounts {
    /// Message handlers.
    pub message_handler: usize,
    /// Sends.
    pub send: usize,
    /// Local actions.
    pub local: usize,
    /// Network actions.
    pub network: usize,
    /// Instances no component takes part in (never enabled).
    pub no_participant: usize,
}

impl ClassCounts {
    /// The count for one kind.
    pub fn of(&self, kind: ClassKind) -> usize {
        match kind {
            ClassKind::MessageHandler => self.message_handler,
            ClassKind::Send => self.send,
            ClassKind::Local => self.local,
            ClassKind::Network => self.network,
        }
    }

    fn add(&mut self, class: Option<ActionClass>) {
        match class.map(ActionClass::kind) {
            Some(ClassKind::MessageHandler) => self.message_handler += 1,
            Some(ClassKind::Send) => self.send += 1,
            Some(ClassKind::Local) => self.local += 1,
            Some(ClassKind::Network) => self.network += 1,
            None => self.no_participant += 1,
        }
    }
}

/// One action of the machine, summarised over its instances.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionSummary {
    /// Its position in the machine's actions.
    pub action: usize,
    /// Its name.
    pub name: String,
    /// Instances per class.
    pub counts: ClassCounts,
    /// The nodes that take part in some instance, in order.
    pub nodes: Vec<usize>,
}

impl ActionSummary {
    /// Whether a node shares this action with the network (some instance is a send or a
    /// message handler).
    pub fn is_message(&self) -> bool {
        self.counts.send + self.counts.message_handler > 0
    }

    /// The kinds that some instance has, in display order.
    pub fn kinds(&self) -> Vec<ClassKind> {
        ClassKind::ALL
            .into_iter()
            .filter(|&k| self.counts.of(k) > 0)
            .collect()
    }
}

impl SystemView<'_, '_> {
    /// The class of action instance `(action, args)` (action: a position in the machine's
    /// actions); `None` when no component takes part in it. An instance two nodes take part in
    /// is an error.
    pub fn classify(
        &self,
        action: usize,
        args: &[Value],
    ) -> Result<Option<ActionClass>, SystemError> {
        let participants = self
            .machine
            .participants(action, args)
            .map_err(SystemError::Run)?;
        if participants.is_empty() {
            return Ok(None);
        }
        let mut nodes: Vec<(usize, usize, ActionKind)> = Vec::new();
        let mut network_controls = false;
        let mut network_takes_part = false;
        for &(inst, kind) in &participants {
            match self.node_of_instance(inst) {
                Some(node) => nodes.push((node, inst, kind)),
                None => {
                    network_takes_part = true;
                    network_controls |= kind != ActionKind::Input;
                }
            }
        }
        let Some(&(node, _, _)) = nodes.first() else {
            return Ok(Some(ActionClass::Network));
        };
        if nodes.iter().any(|&(other, _, _)| other != node) {
            let network_controller = participants
                .iter()
                .find(|&&(inst, kind)| {
                    self.network_of_instance(inst).is_some() && kind != ActionKind::Input
                })
                .and_then(|&(inst, _)| self.network_of_instance(inst))
                .map(|m| self.network[m].name.clone());
            return Err(self.shared_by_nodes(action, args, &nodes, network_controller));
        }
        let node_controls = nodes.iter().any(|&(_, _, kind)| kind != ActionKind::Input);
        Ok(Some(if !network_takes_part {
            ActionClass::Local { node }
        } else if node_controls {
            ActionClass::Send { node }
        } else if network_controls {
            ActionClass::MessageHandler { node }
        } else {
            ActionClass::Local { node }
        }))
    }

    /// Classifies every instance and summarises every action; reports the first instance of
    /// each action that two nodes share.
    pub(super) fn classify_all(
        &mut self,
        instances: Vec<ActionInstance>,
    ) -> Result<(), Vec<SystemError>> {
        let mut summaries: Vec<ActionSummary> = self
            .machine
            .actions
            .iter()
            .enumerate()
            .map(|(action, a)| ActionSummary {
                action,
                name: a.name.clone(),
                counts: ClassCounts::default(),
                nodes: Vec::new(),
            })
            .collect();
        let mut errors: Vec<SystemError> = Vec::new();
        let mut failed = vec![false; summaries.len()];
        let mut classes = Vec::with_capacity(instances.len());
        for instance in &instances {
            if failed[instance.action] {
                classes.push(None);
                continue;
            }
            match self.classify(instance.action, &instance.args) {
                Ok(class) => {
                    let summary = &mut summaries[instance.action];
                    summary.counts.add(class);
                    if let Some(node) = class.and_then(ActionClass::node) {
                        if let Err(at) = summary.nodes.binary_search(&node) {
                            summary.nodes.insert(at, node);
                        }
                    }
                    classes.push(class);
                }
                Err(e) => {
                    failed[instance.action] = true;
                    errors.push(e);
                    classes.push(None);
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        self.instances = instances;
        self.classes = classes;
        self.actions = summaries;
        Ok(())
    }

    /// The error for an instance several nodes take part in: it points at the effect through
    /// which the action writes a node's state other than the node that controls it.
    fn shared_by_nodes(
        &self,
        action: usize,
        args: &[Value],
        nodes: &[(usize, usize, ActionKind)],
        network_controller: Option<String>,
    ) -> SystemError {
        let machine = self.machine;
        let controller = nodes
            .iter()
            .find(|&&(_, _, kind)| kind != ActionKind::Input)
            .copied();
        let source = controller.unwrap_or(nodes[0]);
        // The node whose state is changed by another node's action: an input node other than
        // the controller (or, with no controller, the second node).
        let target = nodes
            .iter()
            .find(|&&(node, _, kind)| node != source.0 && kind == ActionKind::Input)
            .or_else(|| nodes.iter().find(|&&(node, _, _)| node != source.0))
            .copied()
            .unwrap_or(source);
        let mut names: Vec<String> = Vec::new();
        for &(node, _, _) in nodes {
            let name = &self.nodes[node].name;
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        let (write, signature) = self.write_of(action, target.1);
        let printer = Printer::new(machine.spec);
        let shown: Vec<String> = args.iter().map(|v| printer.show(v)).collect();
        let instance = if shown.is_empty() {
            machine.actions[action].name.clone()
        } else {
            format!("{}({})", machine.actions[action].name, shown.join(", "))
        };
        SystemError::SharedByNodes(Box::new(DirectShare {
            action: machine.actions[action].name.clone(),
            instance,
            nodes: names,
            controller: controller.map(|c| self.nodes[c.0].name.clone()),
            network_controller,
            controller_span: controller.map(|c| self.write_of(action, c.1).1),
            target: self.nodes[target.0].name.clone(),
            write,
            signature,
        }))
    }

    /// For machine instance `inst` taking part in `action`: the first statement of its
    /// transitions for the action that assigns a state variable (if any), and its signature
    /// entry for the action.
    fn write_of(&self, action: usize, inst: usize) -> (Option<Span>, Span) {
        let machine = self.machine;
        let aid = machine.actions[action]
            .members
            .iter()
            .find(|&&(i, _)| i == inst)
            .map(|&(_, aid)| aid);
        let automaton = &machine.spec.automata[machine.instances[inst].automaton.0 as usize];
        let Some(aid) = aid else {
            return (None, automaton.span);
        };
        let signature = automaton.actions[aid.0 as usize].span;
        let AutomatonBody::Primitive(p) = &automaton.body else {
            return (None, signature);
        };
        let write = p
            .transitions
            .iter()
            .filter(|t| t.action == aid)
            .find_map(|t| first_state_write(&t.eff));
        (write, signature)
    }
}

/// The span of the first statement in `stmts` (searching nested blocks) that assigns a state
/// variable.
fn first_state_write(stmts: &[Stmt]) -> Option<Span> {
    stmts.iter().find_map(|s| match &s.kind {
        StmtKind::Assign { target, .. } if matches!(target.root, VarRef::State(_)) => Some(s.span),
        StmtKind::Assign { .. } => None,
        StmtKind::If {
            branches,
            otherwise,
        } => branches
            .iter()
            .find_map(|(_, b)| first_state_write(b))
            .or_else(|| first_state_write(otherwise)),
        StmtKind::ForIn { body, .. }
        | StmtKind::ForWhere { body, .. }
        | StmtKind::While { body, .. } => first_state_write(body),
        StmtKind::Fire { .. } | StmtKind::Ignore | StmtKind::Yield(_) | StmtKind::Ensure(_) => None,
    })
}
