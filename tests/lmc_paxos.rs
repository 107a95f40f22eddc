//! End-to-end tests of the LMC paper's Paxos (`examples/lmc_paxos/`): the cases of
//! `tests/data/lmc_paxos/cases.txt` run the `ioa` binary from the package root, check the exit
//! code and snapshot what it prints (standard output and standard error). The exhaustive
//! exploration of the one-proposal configuration takes about half a minute of CPU in a debug
//! build, so it is an ignored test that pins its state count.

mod common;

use common::{ioa, labelled, ROOT};

/// Every case of the data file: the exit code it names, and its output as snapshotted.
#[test]
fn lmc_paxos_cases() {
    let cases = std::fs::read_to_string(format!("{ROOT}/tests/data/lmc_paxos/cases.txt"))
        .expect("read the cases");
    let mut ran = 0;
    for line in cases.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        let [name, code, args] = cols[..] else {
            panic!("a case has three columns: {line}");
        };
        let expected: i32 = code.parse().expect("exit code");
        let args: Vec<&str> = args.split_whitespace().collect();
        let (code, out, err) = ioa(&args);
        let text = labelled(code, &out, &err);
        assert_eq!(code, expected, "{name}: {text}");
        insta::assert_snapshot!(name, text);
        ran += 1;
    }
    assert_eq!(ran, 3, "every case ran");
}

/// The whole one-proposal state space (LMC §5.1) is explored and verified: 9,179 states, at
/// most 28 steps from the start (of the 29 steps of `OneProposal`, the third PrepareResponse
/// delivery changes nothing: the proposer already has its majority, and the monotone network
/// keeps the message). Ignored in default runs: about 30 s of CPU in a debug build.
#[test]
#[ignore]
fn one_proposal_space_is_verified() {
    let (code, out, err) = ioa(&[
        "explore",
        "examples/lmc_paxos/lmc_paxos.ioa",
        "--automaton",
        "LmcPaxos",
        "--param",
        "proposers=1",
        "--quiet",
    ]);
    let text = labelled(code, &out, &err);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("verified: the invariant holds in all 9,179 reachable states (147,017 generated, depth 28, no deadlock)"),
        "{text}"
    );
}
