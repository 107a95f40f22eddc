//! Why a composite cannot be seen as nodes and a network: [`SystemError`] (codes E07xx) and its
//! diagnostics, kept apart from the view that finds them so that the data and its rendering are
//! in one place.

use interpreter::error::RunError;
use ioa_lang::diagnostics::{Diagnostic, IntoDiagnostic};
use ioa_lang::span::Span;

/// Why the system view of a machine cannot be built (codes E07xx, or the interpreter's).
#[derive(Debug, Clone)]
pub enum SystemError {
    /// E0701: the automaton is primitive, so it has no nodes or network.
    NotComposite {
        /// The automaton.
        automaton: String,
        /// Its declaration.
        span: Span,
    },
    /// E0702: every member of the composite belongs to the network (or the node families have
    /// no members for these parameters).
    NoNodes {
        /// The composite.
        automaton: String,
        /// Its `network` clause, or its declaration.
        span: Span,
        /// The network's components.
        network: Vec<String>,
        /// Where the network's components came from.
        source: super::NetworkSource,
        /// The components outside the network (all without members for these parameters).
        empty: Vec<String>,
    },
    /// E0703: an action shared directly by two nodes: one node's step would change another
    /// node's state without going through the network.
    SharedByNodes(Box<DirectShare>),
    /// E0704: a component named with `--network` is not a component of the composite.
    UnknownComponent {
        /// The composite.
        automaton: String,
        /// The name given.
        name: String,
        /// Its components' names.
        components: Vec<String>,
        /// The composite's declaration.
        span: Span,
    },
    /// Enumerating or classifying action instances failed (a parameter without a universe, an
    /// evaluation error): the interpreter's error.
    Run(RunError),
}

/// An action instance two nodes take part in (E0703).
#[derive(Debug, Clone)]
pub struct DirectShare {
    /// The action's name.
    pub action: String,
    /// The first instance found, printed (`ping(0, 1)`).
    pub instance: String,
    /// The nodes that take part in it.
    pub nodes: Vec<String>,
    /// The node that controls it, if a node does.
    pub controller: Option<String>,
    /// The controller's signature entry for the action.
    pub controller_span: Option<Span>,
    /// The network member that controls it, when no node does (a delivery to several nodes at
    /// once).
    pub network_controller: Option<String>,
    /// The node whose state the action changes although another node performs it.
    pub target: String,
    /// The target's first assignment to its state in its transition for the action.
    pub write: Option<Span>,
    /// The target's signature entry for the action (pointed at when it writes nothing).
    pub signature: Span,
}

impl IntoDiagnostic for SystemError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            SystemError::NotComposite { automaton, span } => Diagnostic::error(
                "E0701",
                format!(
                    "`{automaton}` is a primitive automaton, not a system of nodes and a network"
                ),
                *span,
            )
            .with_label_message("declared here")
            .with_hint(
                "name a composite with --automaton; its components are the nodes and the network",
            ),
            SystemError::NoNodes {
                automaton,
                span,
                network,
                source,
                empty,
            } => {
                let declared = &(*source != super::NetworkSource::Found);
                let label = match (source, empty.is_empty()) {
                    (super::NetworkSource::Declared, true) => "every component is named here",
                    (super::NetworkSource::Declared, false) => "the network is named here",
                    (super::NetworkSource::Given, _) => "--network names the network",
                    (super::NetworkSource::Found, _) => {
                        "the first component is a node unless --network says otherwise"
                    }
                };
                let mut d = Diagnostic::error(
                    "E0702",
                    format!("the system `{automaton}` has no nodes"),
                    *span,
                )
                .with_label_message(label)
                .with_note(format!(
                    "the network is {}",
                    if network.is_empty() {
                        "empty".to_string()
                    } else {
                        network.join(", ")
                    }
                ));
                if !empty.is_empty() {
                    d = d.with_note(format!(
                        "{} {} no members with these parameters",
                        empty.join(", "),
                        if empty.len() == 1 { "has" } else { "have" }
                    ));
                }
                if *declared && empty.is_empty() {
                    d.with_hint("leave the nodes' components out of `network`")
                } else if *declared {
                    d.with_hint(format!(
                        "give parameters (--param) for which {} {} members",
                        empty.join(", "),
                        if empty.len() == 1 { "has" } else { "have" }
                    ))
                } else {
                    d.with_hint(
                        "give parameters (--param) for which the first component has members, or say which components are the network with a `network` clause",
                    )
                }
            }
            SystemError::SharedByNodes(share) => {
                let DirectShare {
                    action,
                    instance,
                    nodes,
                    controller,
                    controller_span,
                    network_controller,
                    target,
                    write,
                    signature,
                } = share.as_ref();
                let performer = controller
                    .as_deref()
                    .or(network_controller.as_deref())
                    .unwrap_or("the environment");
                let (span, label) = match write {
                    Some(w) => (
                        *w,
                        format!(
                            "this writes {target}'s state when {performer} performs `{instance}`"
                        ),
                    ),
                    None => (
                        *signature,
                        format!("{target} takes `{instance}` (performed by {performer}) here"),
                    ),
                };
                let mut d = Diagnostic::error(
                    "E0703",
                    format!(
                        "action `{action}` is shared directly by nodes {}",
                        and_list(nodes)
                    ),
                    span,
                )
                .with_label_message(label);
                if let (Some(c), Some(s)) = (controller, controller_span) {
                    d = d.with_secondary(*s, format!("{c} controls `{action}`"));
                }
                if let Some(n) = network_controller {
                    return d
                        .with_note(format!(
                            "{n} delivers `{instance}` to several nodes in one step; a node's step may change only its own state, and a delivery reaches one node"
                        ))
                        .with_hint(format!(
                            "give `{action}` the receiver as a parameter (`{action}(i, …)` taken by node i only), so that each node receives its own copy"
                        ));
                }
                d.with_note(
                    "a node's step may change only its own state; nodes talk through the network",
                )
                .with_hint(format!(
                    "connect the nodes through a network component (the sender's output is the network's input, the network's output the receiver's input), or list the component that relays `{action}` in `network`"
                ))
            }
            SystemError::UnknownComponent {
                automaton,
                name,
                components,
                span,
            } => Diagnostic::error(
                "E0704",
                format!("`{name}` is not a component of `{automaton}`"),
                *span,
            )
            .with_label_message("the composite is declared here")
            .with_note(format!("its components are {}", and_list(components)))
            .with_hint("name the network's components with --network C,D (comma-separated)"),
            SystemError::Run(e) => e.to_diagnostic(),
        }
    }
}

/// `A and B`, `A, B and C`.
fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
