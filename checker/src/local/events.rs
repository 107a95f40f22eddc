//! The events of local model checking: every action instance of a composite, classed by which
//! node (if any) it belongs to and how it uses the network.
//!
//! An instance in which exactly one node takes part is that node's event: a *local* event when
//! no network component takes part (a timer, a client input, a crash, an output to the
//! environment), a *send* when the node controls it and the network takes it as input, a
//! *handler* (message delivery) when a network component controls it and the node takes it as
//! input. Instances in which only the network takes part (loss, duplication) are not explored
//! locally: the monotone network of LMC keeps every message deliverable and the search tries
//! every subset of deliveries, which covers both. Instances shared by two nodes directly are
//! outside LMC's model (a node's event must touch its own state only) and are refused.

use super::nodes::Nodes;
use crate::model::ActionInstance;
use interpreter::error::EvalResult;
use interpreter::machine::Machine;

/// What one action instance is, for local model checking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventClass {
    /// Only node `node` takes part.
    Local {
        /// The node.
        node: usize,
    },
    /// Node `node` controls it; the network instances take it as input (a message is sent).
    Send {
        /// The sending node.
        node: usize,
        /// The network instances that take it.
        takers: Vec<usize>,
    },
    /// Network instance `controller` controls it; node `node` takes it as input.
    Handler {
        /// The receiving node.
        node: usize,
        /// The network instance that delivers.
        controller: usize,
    },
    /// Only network instances take part.
    Network,
    /// No instance takes part with these arguments (never enabled).
    Nobody,
    /// Several nodes take part.
    Shared {
        /// The nodes.
        nodes: Vec<usize>,
    },
}

/// The class of every action instance, by position in the model's instance list.
pub fn classify(
    machine: &Machine,
    nodes: &Nodes,
    instances: &[ActionInstance],
) -> EvalResult<Vec<EventClass>> {
    let mut out = Vec::with_capacity(instances.len());
    for inst in instances {
        let parts = machine.participants(inst.action, &inst.args)?;
        let mut node_ids: Vec<usize> = parts
            .iter()
            .filter_map(|(i, _)| nodes.node_of_instance[*i])
            .collect();
        node_ids.dedup();
        let network: Vec<(usize, bool)> = parts
            .iter()
            .copied()
            .filter(|(i, _)| nodes.node_of_instance[*i].is_none())
            .collect();
        let class = match node_ids.as_slice() {
            [] if parts.is_empty() => EventClass::Nobody,
            [] => EventClass::Network,
            [node] => {
                let node_controls = parts
                    .iter()
                    .any(|(i, c)| *c && nodes.node_of_instance[*i] == Some(*node));
                match network.iter().find(|(_, c)| *c) {
                    Some(&(controller, _)) if !node_controls => EventClass::Handler {
                        node: *node,
                        controller,
                    },
                    _ if network.is_empty() => EventClass::Local { node: *node },
                    _ => EventClass::Send {
                        node: *node,
                        takers: network.iter().map(|(i, _)| *i).collect(),
                    },
                }
            }
            many => EventClass::Shared {
                nodes: many.to_vec(),
            },
        };
        out.push(class);
    }
    Ok(out)
}
