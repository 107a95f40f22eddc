//! Which send a delivery delivers: the arrows of a message-sequence chart.
//!
//! A trace records actions, not messages, so the pairing is worked out from the actions' classes
//! in the system view and their arguments (LMC's and CrystalBall's reading of a composite: a
//! node's output that the network takes is a *send*, the network's output that a node takes is
//! a *delivery*). The rule, kept simple on purpose:
//!
//! 1. a delivery at step `k` is paired with the latest send before `k` whose arguments all
//!    occur among the delivery's arguments (same type, same value; LCR's `send(0, 1, m)` and
//!    `receive(0, 1, m)`, Paxos's `sendPromise(j, b, last)` and `recvPromise(j, b, last)`);
//! 2. failing that, with the latest send whose arguments other than the sender's own index
//!    occur among the delivery's (Paxos's broadcast `prepare(i, b)` delivered as
//!    `recvPrepare(j, b)` to every `j`);
//! 3. failing that, the delivery still gets an arrow, from the network column (its send is not
//!    in the trace, or the network changed the message beyond recognition).
//!
//! So every delivery is exactly one arrow, and one send may be delivered many times
//! (broadcast, duplication). Losses and other network actions (`losePrepare`) carry no
//! arguments to match in the models here; they are marked on the network column, not paired.

/// What the pairing needs to know about one step.
#[derive(Debug, Clone, PartialEq)]
pub struct MsgStep<K> {
    /// Send, delivery, or neither.
    pub role: MsgRole,
    /// The node that sends or receives.
    pub lane: Option<usize>,
    /// The action's arguments, as comparable keys (type and value).
    pub args: Vec<K>,
    /// For a send, the sending node's own index values (a family member's `[i]`).
    pub own: Vec<K>,
}

/// The part a step plays in message passing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MsgRole {
    /// A node's output taken by the network.
    Send,
    /// The network's output taken by a node.
    Deliver,
    /// Anything else.
    Other,
}

/// One arrow: a delivered message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Arrow {
    /// The step that sent it (`None`: no send in the trace matches, drawn from the network).
    pub from_step: Option<usize>,
    /// The sending node.
    pub from_lane: Option<usize>,
    /// The step that delivered it.
    pub to_step: usize,
    /// The receiving node.
    pub to_lane: usize,
}

/// Whether every key of `part` occurs in `whole`, counting repetitions.
fn sub_multiset<K: PartialEq>(part: &[&K], whole: &[K]) -> bool {
    let mut used = vec![false; whole.len()];
    part.iter().all(
        |p| match (0..whole.len()).find(|&i| !used[i] && whole[i] == **p) {
            Some(i) => {
                used[i] = true;
                true
            }
            None => false,
        },
    )
}

/// `args` without one occurrence of each of `own`.
fn payload<'k, K: PartialEq>(args: &'k [K], own: &[K]) -> Vec<&'k K> {
    let mut left: Vec<&K> = own.iter().collect();
    args.iter()
        .filter(|a| match left.iter().position(|o| *o == *a) {
            Some(i) => {
                left.remove(i);
                false
            }
            None => true,
        })
        .collect()
}

/// The arrows of `steps` (indexed by position: `steps[k]` is the step that led to state `k`,
/// so position 0 is the start and plays no part), by the rule of this module.
pub fn pair<K: PartialEq>(steps: &[MsgStep<K>]) -> Vec<Arrow> {
    let mut sends: Vec<usize> = Vec::new();
    let mut arrows = Vec::new();
    for (k, s) in steps.iter().enumerate() {
        match (s.role, s.lane) {
            (MsgRole::Send, _) => sends.push(k),
            (MsgRole::Deliver, Some(to_lane)) => {
                let full = sends.iter().rev().find(|&&j| {
                    let all: Vec<&K> = steps[j].args.iter().collect();
                    sub_multiset(&all, &s.args)
                });
                let from = full.or_else(|| {
                    sends
                        .iter()
                        .rev()
                        .find(|&&j| sub_multiset(&payload(&steps[j].args, &steps[j].own), &s.args))
                });
                arrows.push(Arrow {
                    from_step: from.copied(),
                    from_lane: from.and_then(|&j| steps[j].lane),
                    to_step: k,
                    to_lane,
                });
            }
            _ => {}
        }
    }
    arrows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(
        role: MsgRole,
        lane: usize,
        args: &[&'static str],
        own: &[&'static str],
    ) -> MsgStep<&'static str> {
        MsgStep {
            role,
            lane: Some(lane),
            args: args.to_vec(),
            own: own.to_vec(),
        }
    }

    #[test]
    fn a_delivery_takes_the_latest_send_that_matches_all_its_arguments_first() {
        use MsgRole::*;
        let steps = vec![
            step(Other, 0, &[], &[]),
            // Promises from nodes 0 and 1, same ballot: the sender's index tells them apart.
            step(Send, 0, &["n0", "b0", "nil"], &["n0"]),
            step(Send, 1, &["n1", "b0", "nil"], &["n1"]),
            step(Deliver, 0, &["n0", "b0", "nil"], &[]),
            // A broadcast prepare from node 2, delivered to node 1: only its payload matches.
            step(Send, 2, &["n2", "b5"], &["n2"]),
            step(Deliver, 1, &["n1", "b5"], &[]),
            // Nothing was sent with ballot b9.
            step(Deliver, 2, &["n2", "b9"], &[]),
        ];
        let arrows = pair(&steps);
        assert_eq!(
            arrows,
            vec![
                Arrow {
                    from_step: Some(1),
                    from_lane: Some(0),
                    to_step: 3,
                    to_lane: 0
                },
                Arrow {
                    from_step: Some(4),
                    from_lane: Some(2),
                    to_step: 5,
                    to_lane: 1
                },
                Arrow {
                    from_step: None,
                    from_lane: None,
                    to_step: 6,
                    to_lane: 2
                },
            ]
        );
    }

    #[test]
    fn repeated_keys_count() {
        assert!(sub_multiset(&[&1, &1], &[1, 2, 1]));
        assert!(!sub_multiset(&[&1, &1], &[1, 2]));
        assert_eq!(payload(&[1, 2, 1], &[1]), vec![&2, &1]);
    }
}
