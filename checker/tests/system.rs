//! The system view (`checker::system`) on real models:
//!
//! - LCR (`examples/lcr/lcr.ioa`) for n = 3 and 4: the processes are the nodes, the channels the
//!   network (its `network C` clause); `send` and `receive` are the message actions, `leader` a
//!   local action; single instances are classified with the node that sends or receives, and a
//!   node's local state is its slice of a global state.
//! - `checker/tests/data/system/lossy_ping.ioa`: a lossy network (its `lose` is a network
//!   action), no `network` clause (the default: the first component is the nodes), a client
//!   input, a crash that the network also takes, and a timer.
//! - `checker/tests/data/system/nested_nodes.ioa`: nodes that are composites (several machine
//!   instances, one slice of the state), a network declared before them.
//! - `checker/tests/data/system/err/*.ioa`: models the view rejects (two nodes sharing an action
//!   directly, no nodes, a primitive automaton); each file's first line names the expected code,
//!   and the rendered diagnostics are snapshots.
//!
//! Every view is also described in a snapshot (`describe`), so a change to any class shows.

mod common;

use checker::model::action_instances;
use checker::system::{ActionClass, ClassKind, SystemView};
use common::{workspace, Loaded};
use interpreter::eval::NoChoice;
use interpreter::machine::Machine;
use interpreter::universe::{type_text, Universe};
use interpreter::value::{Printer, Value};
use ioa_lang::diagnostics::{render, IntoDiagnostic};
use ioa_lang::loader::{normalise, FileSystem};
use ioa_lang::span::FileId;
use std::path::{Path, PathBuf};

/// Reads files relative to the workspace root and keeps relative names, so that rendered
/// diagnostics show stable paths.
struct Relative;

impl FileSystem for Relative {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(workspace(&path.to_string_lossy())).map_err(|e| e.to_string())
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        normalise(path)
    }
}

/// `file` checked, with the universe file beside it (if any).
fn load(file: &str) -> Loaded {
    // MODEL.universe beside the model, or else the folder's default.universe (as `ioa` reads).
    let path = workspace(file);
    let universe = std::fs::read_to_string(path.with_extension("universe"))
        .or_else(|_| std::fs::read_to_string(path.with_file_name("default.universe")))
        .unwrap_or_default();
    common::load(file, &universe)
}

/// The action's position in the machine.
fn action(machine: &Machine, name: &str) -> usize {
    machine
        .actions
        .iter()
        .position(|a| a.name == name)
        .unwrap_or_else(|| panic!("action {name}"))
}

fn ints(values: &[i64]) -> Vec<Value> {
    values.iter().map(|&v| Value::Int(v)).collect()
}

/// The view as text: nodes and network members with their slots and variables, the message
/// actions, and for each action its instances per class and the nodes that take part.
fn describe(view: &SystemView) -> String {
    let machine = view.machine();
    let names = machine.slot_names();
    let types = machine.slot_types();
    let mut out = String::new();
    out.push_str(&format!(
        "network declared: {}\n",
        match view.network_source {
            checker::system::NetworkSource::Declared => "yes",
            checker::system::NetworkSource::Given => "given",
            checker::system::NetworkSource::Found => "no (found)",
        }
    ));
    for (title, members) in [("node", &view.nodes), ("network", &view.network)] {
        for m in members.iter() {
            let vars: Vec<String> = m
                .slots
                .clone()
                .map(|s| format!("{}: {}", names[s], type_text(machine.spec, &types[s])))
                .collect();
            out.push_str(&format!(
                "{title} {} slots {:?} instances {:?}: {}\n",
                m.name,
                m.slots,
                m.instances,
                vars.join(", ")
            ));
        }
    }
    let messages: Vec<&str> = view
        .message_actions()
        .into_iter()
        .map(|a| machine.actions[a].name.as_str())
        .collect();
    out.push_str(&format!("message actions: {}\n", messages.join(", ")));
    for a in &view.actions {
        let kinds: Vec<String> = ClassKind::ALL
            .into_iter()
            .filter(|&k| a.counts.of(k) > 0)
            .map(|k| format!("{} {}", k.name(), a.counts.of(k)))
            .collect();
        let nodes: Vec<&str> = a
            .nodes
            .iter()
            .map(|&n| view.nodes[n].name.as_str())
            .collect();
        out.push_str(&format!(
            "action {}: {}; no participant {}; nodes [{}]\n",
            a.name,
            kinds.join(", "),
            a.counts.no_participant,
            nodes.join(", ")
        ));
    }
    out
}

/// LCR with n processes: nodes, network, message and local actions, single instances.
fn check_lcr(n: i64) -> String {
    let loaded = load("examples/lcr/lcr.ioa");
    let machine = loaded.machine("LCR", ints(&[n]));
    let view = SystemView::new(&machine).unwrap_or_else(|e| panic!("LCR view: {e:?}"));
    let n_usize = n as usize;
    assert_eq!(view.nodes.len(), n_usize, "one node per process");
    assert_eq!(view.network.len(), n_usize, "one channel per process");
    assert_eq!(
        view.network_source,
        checker::system::NetworkSource::Declared
    );
    let node_names: Vec<String> = (0..n).map(|i| format!("P[{i}]")).collect();
    assert_eq!(
        view.nodes
            .iter()
            .map(|m| m.name.clone())
            .collect::<Vec<_>>(),
        node_names
    );
    let messages: Vec<&str> = view
        .message_actions()
        .into_iter()
        .map(|a| machine.actions[a].name.as_str())
        .collect();
    assert_eq!(messages, ["receive", "send"]);

    let (send, receive, leader) = (
        action(&machine, "send"),
        action(&machine, "receive"),
        action(&machine, "leader"),
    );
    assert_eq!(view.actions[leader].kinds(), [ClassKind::Local]);
    assert_eq!(view.actions[send].kinds(), [ClassKind::Send]);
    assert_eq!(view.actions[receive].kinds(), [ClassKind::MessageHandler]);
    // The universe is Int = 0..7: each process sends and receives 8 UIDs.
    assert_eq!(view.actions[send].counts.send, 8 * n_usize);
    assert_eq!(view.actions[receive].counts.message_handler, 8 * n_usize);
    assert_eq!(view.actions[leader].counts.local, n_usize);
    for a in [send, receive, leader] {
        assert_eq!(view.actions[a].nodes, (0..n_usize).collect::<Vec<_>>());
    }

    // Single instances: who sends, who receives.
    let last = n - 1;
    assert_eq!(
        view.classify(send, &ints(&[0, 1, 5])).expect("classify"),
        Some(ActionClass::Send { node: 0 })
    );
    assert_eq!(
        view.classify(receive, &ints(&[last, 0, 3]))
            .expect("classify"),
        Some(ActionClass::MessageHandler { node: 0 }),
        "C[n-1] delivers to P[0]"
    );
    assert_eq!(
        view.classify(receive, &ints(&[0, 1, 3])).expect("classify"),
        Some(ActionClass::MessageHandler { node: 1 })
    );
    assert_eq!(
        view.classify(leader, &ints(&[last])).expect("classify"),
        Some(ActionClass::Local {
            node: last as usize
        })
    );
    assert_eq!(
        view.classify(send, &ints(&[0, 2, 0])).expect("classify"),
        None,
        "no process sends to a non-neighbour"
    );

    // The per-instance classes follow the explorers' enumeration.
    let instances = action_instances(&machine).expect("instances");
    assert_eq!(view.instances, instances);
    for (instance, class) in instances.iter().zip(&view.classes) {
        assert_eq!(
            view.classify(instance.action, &instance.args)
                .expect("classify"),
            *class
        );
    }

    // A node's local state is its slice of the global state.
    let start = machine.initial_state(&mut NoChoice).expect("start");
    let printer = Printer::new(machine.spec);
    let local: Vec<String> = view
        .local_state(1, &start)
        .iter()
        .map(|v| printer.show(v))
        .collect();
    assert_eq!(local, ["1", "{1}", "unknown"]);
    assert_eq!(view.network_state(&start).len(), n_usize);
    let covered: usize = view.nodes.iter().map(|m| m.slots.len()).sum::<usize>()
        + view.network.iter().map(|m| m.slots.len()).sum::<usize>();
    assert_eq!(
        covered, machine.n_slots,
        "nodes and network cover the state"
    );
    describe(&view)
}

#[test]
fn lcr_three_processes() {
    insta::assert_snapshot!(check_lcr(3));
}

#[test]
fn lcr_four_processes() {
    insta::assert_snapshot!(check_lcr(4));
}

#[test]
fn lossy_network() {
    let loaded = load("checker/tests/data/system/lossy_ping.ioa");
    let machine = loaded.machine("LossyPing", ints(&[2]));
    let view = SystemView::new(&machine).unwrap_or_else(|e| panic!("view: {e:?}"));
    assert_eq!(
        view.network_source,
        checker::system::NetworkSource::Found,
        "no clause: found"
    );
    assert_eq!(view.nodes.len(), 2);
    assert_eq!(view.network.len(), 1);
    let kinds = |name: &str| view.actions[action(&machine, name)].kinds();
    assert_eq!(kinds("lose"), [ClassKind::Network]);
    assert_eq!(kinds("send"), [ClassKind::Send]);
    assert_eq!(kinds("deliver"), [ClassKind::MessageHandler]);
    assert_eq!(kinds("request"), [ClassKind::Local]);
    assert_eq!(kinds("tick"), [ClassKind::Local]);
    assert_eq!(
        kinds("crash"),
        [ClassKind::Local],
        "nobody controls a crash"
    );
    let lose = action(&machine, "lose");
    assert_eq!(
        view.classify(lose, &ints(&[1, 0, 1])).expect("classify"),
        Some(ActionClass::Network)
    );
    let deliver = action(&machine, "deliver");
    assert_eq!(
        view.classify(deliver, &ints(&[1, 0, 1])).expect("classify"),
        Some(ActionClass::MessageHandler { node: 0 })
    );
    insta::assert_snapshot!(describe(&view));
}

/// The first line of an err file: `% expect: CODE …`.
fn expected_code(text: &str) -> &str {
    text.lines()
        .next()
        .and_then(|l| l.strip_prefix("% expect: "))
        .and_then(|l| l.split_whitespace().next())
        .expect("first line `% expect: CODE …`")
}

#[test]
fn rejected_models() {
    insta::glob!("data/system/err/*.ioa", |path: &Path| {
        let relative = path
            .strip_prefix(workspace(""))
            .or_else(|_| path.strip_prefix(workspace("").canonicalize().expect("root")))
            .expect("inside the workspace");
        let result = ioa_lang::check_files(&[relative.to_path_buf()], &Relative);
        let spec = result
            .spec
            .unwrap_or_else(|| panic!("{path:?} checks: {:?}", result.diagnostics));
        let universe = Universe::parse(&spec, FileId(9999), "Int = 0..1").expect("universe parses");
        let root = spec.automata.len() - 1;
        let machine = Machine::new(
            &spec,
            &universe,
            ioa_lang::ir::AutomatonId(root as u32),
            vec![],
        )
        .expect("machine");
        let errors = match SystemView::new(&machine) {
            Ok(_) => panic!("{path:?}: the view accepted the model"),
            Err(e) => e,
        };
        let diagnostics: Vec<_> = errors.iter().map(|e| e.to_diagnostic()).collect();
        let text = std::fs::read_to_string(path).expect("readable");
        assert_eq!(diagnostics[0].code, expected_code(&text), "{path:?}");
        insta::assert_snapshot!(render(&diagnostics, &result.sources, false));
    });
}

/// Nodes that are composites (a worker and its timer), with the network declared first.
#[test]
fn composite_nodes_and_a_network_declared_first() {
    let loaded = common::load("checker/tests/data/system/nested_nodes.ioa", "Int = 0..1");
    let machine = loaded.machine("Hosts", vec![]);
    let view = SystemView::new(&machine).unwrap_or_else(|e| panic!("view: {e:?}"));
    assert_eq!(
        view.network_source,
        checker::system::NetworkSource::Declared
    );
    assert_eq!(view.network.len(), 1);
    assert_eq!(view.network[0].slots, 0..3, "the network comes first");
    assert_eq!(view.nodes.len(), 2);
    assert_eq!(view.nodes[0].name, "H[0]");
    assert_eq!(view.nodes[0].instances.len(), 2, "a worker and a timer");
    assert_eq!(view.nodes[1].slots, 6..9);
    let tick = action(&machine, "tick");
    assert_eq!(
        machine
            .participants(tick, &ints(&[1]))
            .expect("participants")
            .len(),
        2,
        "the timer and the worker of H[1]"
    );
    assert_eq!(
        view.classify(tick, &ints(&[1])).expect("classify"),
        Some(ActionClass::Local { node: 1 })
    );
    let start = machine.initial_state(&mut NoChoice).expect("start");
    let printer = Printer::new(machine.spec);
    let local: Vec<String> = view
        .local_state(1, &start)
        .iter()
        .map(|v| printer.show(v))
        .collect();
    assert_eq!(local, ["0", "0", "false"]);
    insta::assert_snapshot!(describe(&view));
}
