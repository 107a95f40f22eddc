//! End-to-end tests of `ioa system`: each `tests/data/system/*.args` file lists the arguments
//! of one run (one per line); the binary runs in the package root, as a user would, and its exit
//! code, standard output and standard error are an insta snapshot.
//!
//! The cases: LCR's view as text and JSON (3 nodes, the channels as the network, send and
//! receive as messages, leader local), LCR with n = 4 over a smaller universe, the lossy ping
//! system (a network action, the default network; with `--instances`, every instance with its
//! class and node), and the rejections: two nodes sharing an
//! action (E0703, pointing at the write), a `network` clause naming no component (E0420), a
//! primitive automaton (E0701), a missing parameter and a universe that bounds no parameter.

mod common;

use common::{ioa, labelled};

/// Runs `ioa system ARGS… --color never` and describes what it did.
fn system(args: &[String]) -> (i32, String) {
    let mut all = vec!["system"];
    all.extend(args.iter().map(String::as_str));
    let (code, stdout, stderr) = ioa(&all);
    (code, labelled(code, &stdout, &stderr))
}

#[test]
fn system_cases() {
    insta::glob!("data/system/*.args", |path: &std::path::Path| {
        let text = std::fs::read_to_string(path).expect("readable");
        let args: Vec<String> = text.lines().map(str::to_string).collect();
        let (code, both) = system(&args);
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        // Accepted models exit 0; rejected ones 1; a wrong command line 2.
        let expected = match name {
            "missing_parameter" => 2,
            n if n.ends_with("rejected") || n.starts_with("network_not") || n == "no_universe" => 1,
            _ => 0,
        };
        assert_eq!(code, expected, "{name}:\n{both}");
        insta::assert_snapshot!(both);
    });
}

/// The JSON form names the same nodes, network and classes as the text.
#[test]
fn lcr_json_pins_the_view() {
    let args: Vec<String> = ["examples/lcr/lcr.ioa", "--param", "n=3", "--format", "json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut all = vec!["system"];
    all.extend(args.iter().map(String::as_str));
    let (code, stdout, _) = ioa(&all);
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let names = |key: &str| -> Vec<String> {
        json[key]
            .as_array()
            .expect("array")
            .iter()
            .map(|m| m["name"].as_str().expect("name").to_string())
            .collect()
    };
    assert_eq!(names("nodes"), ["P[0]", "P[1]", "P[2]"]);
    assert_eq!(names("network"), ["C[0]", "C[1]", "C[2]"]);
    assert_eq!(
        json["message_actions"],
        serde_json::json!(["receive", "send"])
    );
    let leader = json["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .find(|a| a["name"] == "leader")
        .expect("leader");
    assert_eq!(leader["classes"], serde_json::json!(["local"]));
    assert_eq!(leader["local"], 3);
}
