//! Which top-level components of a composite form the network.
//!
//! Three sources, in order of precedence: the user's choice on the command line
//! (`--network C,D`), the composite's `network C, D` clause, and otherwise a choice read off the
//! model. The found choice puts the first declared component among the nodes and then, in
//! declaration order, every component that shares no action with a node chosen so far; the
//! components left are the network. So nodes never share an action directly, and a composite
//! written as "a coordinator, a family of participants, a network" gets the coordinator and the
//! participants as its nodes (the earlier rule, "every component but the first is network",
//! made the participants part of the network, and local model checking then could not check an
//! invariant about them).

use crate::model::ActionInstance;
use interpreter::error::EvalResult;
use interpreter::machine::Machine;
use ioa_lang::ir::Composite;

/// Where the network's components came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkSource {
    /// The composite's `network` clause.
    Declared,
    /// The command line (`--network`).
    Given,
    /// Read off the model: the components that share an action with a node (see the module
    /// documentation).
    Found,
}

impl NetworkSource {
    /// How reports name it.
    pub fn describe(self) -> &'static str {
        match self {
            NetworkSource::Declared => "declared",
            NetworkSource::Given => "given with --network",
            NetworkSource::Found => {
                "found from the model: the components the nodes share actions with"
            }
        }
    }
}

/// The network's components (positions in the composite) and where they came from.
pub fn choose_network(
    machine: &Machine,
    composite: &Composite,
    given: Option<&[u32]>,
    instances: &[ActionInstance],
) -> EvalResult<(Vec<u32>, NetworkSource)> {
    if let Some(given) = given {
        return Ok((given.to_vec(), NetworkSource::Given));
    }
    if let Some(n) = &composite.network {
        return Ok((n.components.clone(), NetworkSource::Declared));
    }
    let n = composite.components.len();
    let shares = sharing(machine, n, instances)?;
    let mut nodes: Vec<u32> = Vec::new();
    for c in 0..n as u32 {
        if nodes.is_empty() || nodes.iter().all(|&d| !shares[c as usize][d as usize]) {
            nodes.push(c);
        }
    }
    let network = (0..n as u32).filter(|c| !nodes.contains(c)).collect();
    Ok((network, NetworkSource::Found))
}

/// For every pair of top-level components, whether some action instance has participants in
/// both (a component shares with itself when two members of its family take part in one
/// instance).
fn sharing(
    machine: &Machine,
    n: usize,
    instances: &[ActionInstance],
) -> EvalResult<Vec<Vec<bool>>> {
    let mut shares = vec![vec![false; n]; n];
    let member_of = |inst: usize| {
        machine.instances[inst]
            .member
            .as_ref()
            .map(|(c, idx)| (*c as usize, idx.clone()))
    };
    for instance in instances {
        let parts: Vec<_> = machine
            .participants(instance.action, &instance.args)?
            .into_iter()
            .filter_map(|(inst, _)| member_of(inst))
            .collect();
        for (a, (ca, ia)) in parts.iter().enumerate() {
            for (cb, ib) in &parts[a + 1..] {
                if ca != cb || ia != ib {
                    shares[*ca][*cb] = true;
                    shares[*cb][*ca] = true;
                }
            }
        }
    }
    Ok(shares)
}
