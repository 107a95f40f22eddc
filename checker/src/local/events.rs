//! The events of local model checking: the system view's class of every action instance, with
//! what LMC also needs to know of the network's part — which network instance delivers a
//! message, and which network instances take a send.
//!
//! Network-only instances (loss, duplication) are not explored locally: the monotone network
//! keeps every message deliverable and the search tries every subset of deliveries, which
//! covers both.

use crate::model::ActionInstance;
use crate::system::{ActionClass, SystemView};
use interpreter::error::EvalResult;

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
    /// Only network instances take part, or nobody does.
    Other,
}

/// The class of every action instance, by position in the view's (and the model's) list.
pub fn classify(view: &SystemView, instances: &[ActionInstance]) -> EvalResult<Vec<EventClass>> {
    debug_assert_eq!(view.instances.len(), instances.len());
    let mut out = Vec::with_capacity(instances.len());
    for k in 0..instances.len() {
        let network_parts = || view.network_participants(k);
        let class = match view.classes[k] {
            Some(ActionClass::Local { node }) => EventClass::Local { node },
            Some(ActionClass::Send { node }) => EventClass::Send {
                node,
                takers: network_parts()?.into_iter().map(|(i, _)| i).collect(),
            },
            Some(ActionClass::MessageHandler { node }) => {
                match network_parts()?.into_iter().find(|(_, controls)| *controls) {
                    Some((controller, _)) => EventClass::Handler { node, controller },
                    None => EventClass::Local { node },
                }
            }
            Some(ActionClass::Network) | None => EventClass::Other,
        };
        out.push(class);
    }
    Ok(out)
}
