//! Which parts of a composite's state vector are nodes and which are the network.
//!
//! By default the members of the composite's first component family are the nodes and every
//! other component is the network (LCR: processes `P[i]` and channels `C[i]`; Paxos: `Node[i]`
//! and its network). A node's *local state* is its slice of the state vector.

use interpreter::machine::{Machine, State};
use interpreter::value::Value;
use std::ops::Range;

/// One node: a member of the node family.
#[derive(Debug, Clone)]
pub struct Node {
    /// Its name (`P[0]`).
    pub name: String,
    /// Its family indices.
    pub indices: Vec<Value>,
    /// Its primitive instances.
    pub instances: Range<usize>,
    /// Its slots in the state vector.
    pub slots: Range<usize>,
}

/// The nodes of a composite and the rest (the network).
#[derive(Debug, Clone)]
pub struct Nodes {
    /// The nodes, in index order.
    pub nodes: Vec<Node>,
    /// For each primitive instance, the node it belongs to (`None`: the network).
    pub node_of_instance: Vec<Option<usize>>,
    /// The network's component names.
    pub network: Vec<String>,
}

/// Why a machine cannot be seen as nodes and a network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodesError {
    /// The automaton is primitive.
    NotComposite,
    /// No component is an indexed family.
    NoFamily,
}

impl Nodes {
    /// The default partition: the first component family's members are the nodes.
    pub fn of(machine: &Machine) -> Result<Nodes, NodesError> {
        if machine.members.is_empty() {
            return Err(NodesError::NotComposite);
        }
        let family = machine
            .members
            .iter()
            .find(|m| !m.indices.is_empty())
            .map(|m| m.component)
            .ok_or(NodesError::NoFamily)?;
        let mut nodes = Vec::new();
        let mut node_of_instance = vec![None; machine.instances.len()];
        let mut network = Vec::new();
        for m in &machine.members {
            if m.component == family {
                for i in m.instances.clone() {
                    node_of_instance[i] = Some(nodes.len());
                }
                let first = &machine.instances[m.instances.start];
                let last = &machine.instances[m.instances.end - 1];
                nodes.push(Node {
                    name: m.name.clone(),
                    indices: m.indices.clone(),
                    instances: m.instances.clone(),
                    slots: first.offset..last.offset + last.len,
                });
            } else {
                network.push(m.name.clone());
            }
        }
        Ok(Nodes {
            nodes,
            node_of_instance,
            network,
        })
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
