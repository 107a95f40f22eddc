//! The nodes and the network as local model checking uses them, read from the
//! [`SystemView`] (which decides which components are the network): each node's slice of the
//! state vector, and masks over the machine's instances for stepping one node or the network
//! alone.

use crate::system::SystemView;
use interpreter::machine::State;
use interpreter::value::Value;
use std::ops::Range;

/// One node.
#[derive(Debug, Clone)]
pub struct Node {
    /// Its name (`P[0]`).
    pub name: String,
    /// The top-level component it is a member of (position in the composite).
    pub component: u32,
    /// Its family indices (empty for a single component).
    pub indices: Vec<Value>,
    /// Its slots in the state vector.
    pub slots: Range<usize>,
}

/// The nodes of a composite and the rest (the network).
#[derive(Debug, Clone)]
pub struct Nodes {
    /// The nodes, in the order of the state vector.
    pub nodes: Vec<Node>,
    /// For each primitive instance, the node it belongs to (`None`: the network).
    pub node_of_instance: Vec<Option<usize>>,
    /// The network members' names.
    pub network: Vec<String>,
}

impl Nodes {
    /// The nodes of a system view.
    pub fn of(view: &SystemView) -> Nodes {
        let n_instances = view.machine().instances.len();
        Nodes {
            nodes: view
                .nodes
                .iter()
                .map(|m| Node {
                    name: m.name.clone(),
                    component: m.component,
                    indices: m.indices.clone(),
                    slots: m.slots.clone(),
                })
                .collect(),
            node_of_instance: (0..n_instances).map(|i| view.node_of_instance(i)).collect(),
            network: view.network.iter().map(|m| m.name.clone()).collect(),
        }
    }

    /// The top-level components whose members are nodes, in order.
    pub fn node_components(&self) -> Vec<u32> {
        let mut out: Vec<u32> = self.nodes.iter().map(|n| n.component).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The nodes that are members of top-level component `component`.
    pub fn members_of(&self, component: u32) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&k| self.nodes[k].component == component)
            .collect()
    }

    /// Node `n`'s local state in a global state.
    pub fn local(&self, n: usize, state: &[Value]) -> Vec<Value> {
        state[self.nodes[n].slots.clone()].to_vec()
    }

    /// Writes node `n`'s local state into a global state.
    pub fn put(&self, n: usize, local: &[Value], state: &mut State) {
        state[self.nodes[n].slots.clone()].clone_from_slice(local);
    }

    /// A mask over the machine's instances: those of node `n`.
    pub fn mask_of_node(&self, n: usize) -> Vec<bool> {
        self.node_of_instance
            .iter()
            .map(|x| *x == Some(n))
            .collect()
    }

    /// A mask over the machine's instances: the network's.
    pub fn mask_of_network(&self) -> Vec<bool> {
        self.node_of_instance.iter().map(|x| x.is_none()).collect()
    }
}
