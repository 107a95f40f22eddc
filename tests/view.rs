//! End-to-end tests of `ioa view`: traces written by `ioa run` and `ioa pair` on the examples
//! become a chart (SVG snapshot for LCR's `Ring` schedule) and a page whose embedded data has
//! one lifeline per node and one arrow per delivered message (the Paxos planted bug); bad input
//! is a clear error. The page in a real browser is `tests/browser.rs`.

mod common;

use common::{actions, ioa, scratch, ROOT};

/// The JSON the page embeds for its script.
fn page_data(html: &str) -> serde_json::Value {
    let start = html.find("id=\"ioa-data\">").expect("data element") + "id=\"ioa-data\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end].replace("<\\/", "</")).unwrap()
}

#[test]
fn lcr_ring_chart() {
    let trace = scratch("view-tests", "lcr_ring.itf.json");
    let svg = scratch("view-tests", "lcr_ring.svg");
    let t = trace.to_str().unwrap();
    let (code, _, _) = ioa(&[
        "run",
        "examples/lcr/lcr.ioa",
        "--schedule",
        "Ring",
        "--param",
        "n=3",
        "--trace",
        t,
    ]);
    assert_eq!(code, 0);
    let (code, _, err) = ioa(&["view", t, "--svg", svg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // 3 processes; the 5 receives of the schedule are the 5 arrows.
    assert!(
        err.contains("11 step(s), 3 lifeline(s), 5 message arrow(s)"),
        "{err}"
    );
    insta::assert_snapshot!("lcr_ring_svg", std::fs::read_to_string(&svg).unwrap());
}

#[test]
fn paxos_planted_bug_page_has_a_lifeline_per_node_and_an_arrow_per_delivery() {
    let trace = scratch("view-tests", "paxos_bug.itf.json");
    let page = scratch("view-tests", "paxos_bug.html");
    let t = trace.to_str().unwrap();
    let (code, _, _) = ioa(&[
        "run",
        "examples/paxos/paxos_planted_bug.ioa",
        "--schedule",
        "LastPromiseWins",
        "--trace",
        t,
    ]);
    assert_eq!(code, 1, "the schedule breaks ChosenAgreement");
    let (code, _, err) = ioa(&["view", t, "-o", page.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    let data = page_data(&html);
    let lanes: Vec<&str> = data["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(lanes, ["N[[0]]", "N[[1]]", "N[[2]]"]);
    let delivered = actions(&trace)
        .iter()
        .filter(|a| a.starts_with("recv"))
        .count();
    assert_eq!(delivered, 15);
    assert_eq!(data["arrows"].as_array().unwrap().len(), delivered);
    assert_eq!(html.matches("<line class=\"msg").count(), delivered);
    // Every arrow found its send: in this schedule no message is lost before delivery.
    assert!(data["arrows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|a| !a["from_step"].is_null()));
    assert_eq!(data["highlight"]["step"], 33);
    assert_eq!(
        data["highlight"]["reason"],
        "invariant ChosenAgreement is violated"
    );
    // Self-contained: nothing to fetch.
    for attr in ["src=", "href=\"http", "@import", "url(http"] {
        assert!(!html.contains(attr), "the page refers to `{attr}`");
    }
}

#[test]
fn bad_traces_are_clear_errors() {
    let (code, _, err) = ioa(&["view", "tests/data/view/not_json.json"]);
    assert_eq!(code, 1);
    assert!(err.contains("is not JSON"), "{err}");
    let (code, _, err) = ioa(&["view", "tests/data/view/missing.json"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read"), "{err}");
    // A trace of LCR read against the Paxos model.
    let trace = scratch("view-tests", "lcr_for_other_model.itf.json");
    let t = trace.to_str().unwrap();
    ioa(&[
        "run",
        "examples/lcr/lcr.ioa",
        "--schedule",
        "Ring",
        "--param",
        "n=3",
        "--trace",
        t,
    ]);
    let (code, _, err) = ioa(&["view", t, "--model", "examples/paxos/paxos.ioa"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("error:"), "{err}");
}

#[test]
fn failures_point_to_pictures() {
    // `ioa run` and `ioa pair` name the command that shows the trace they wrote.
    let trace = scratch("view-tests", "hint_run.itf.json");
    let t = trace.to_str().unwrap();
    let args = [
        "examples/paxos/paxos_planted_bug.ioa",
        "--schedule",
        "LastPromiseWins",
        "--trace",
        t,
    ];
    // (`ioa` prints the package root as `$ROOT`.)
    let hint = format!("view it: ioa view {}\n", t.replace(ROOT, "$ROOT"));
    let (code, _, err) = ioa(&[&["run"][..], &args].concat());
    assert_eq!(code, 1);
    assert!(err.ends_with(&hint), "{err}");
    let (code, _, err) = ioa(&[&["pair"][..], &args].concat());
    assert_eq!(code, 1);
    assert!(err.ends_with(&hint), "{err}");
    // The pair trace records its failing step, which the page highlights.
    let page = scratch("view-tests", "hint_pair.html");
    let (code, _, _) = ioa(&["view", t, "-o", page.to_str().unwrap()]);
    assert_eq!(code, 0);
    let data = page_data(&std::fs::read_to_string(&page).unwrap());
    assert_eq!(data["highlight"]["step"], 30);
    assert!(data["highlight"]["reason"]
        .as_str()
        .unwrap()
        .contains("assignVal([1], [2])"));

    // `ioa explore --html` writes the counterexample's page directly.
    let page = scratch("view-tests", "explore.html");
    let (code, _, err) = ioa(&[
        "explore",
        "tests/data/local/lcr_smaller_elects.ioa",
        "--automaton",
        "LCR",
        "--param",
        "n=3",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("2 step(s), 3 lifeline(s), 1 message arrow(s); step 2 highlighted: invariant LeaderHasMaxUid is violated"), "{err}");
    let data = page_data(&std::fs::read_to_string(&page).unwrap());
    assert_eq!(data["steps"].as_array().unwrap().len(), 3);
    // `ioa run --html` on a passing run: the page, no hint.
    let page = scratch("view-tests", "lcr_pass.html");
    let (code, _, err) = ioa(&[
        "run",
        "examples/lcr/lcr.ioa",
        "--schedule",
        "Ring",
        "--param",
        "n=3",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(
        err.contains("11 step(s), 3 lifeline(s), 5 message arrow(s)") && !err.contains("view it"),
        "{err}"
    );
}

#[test]
fn a_primitive_automaton_gets_lifelines_from_its_first_parameter_type() {
    // Global1 is primitive: most actions take a `Node` first (init, fail, vote, decide).
    let trace = scratch("view-tests", "global1_normal.itf.json");
    let page = scratch("view-tests", "global1_normal.html");
    let t = trace.to_str().unwrap();
    let (code, _, _) = ioa(&[
        "run",
        "examples/consensus/global1_schedules.ioa",
        "--schedule",
        "NormalRun",
        "--trace",
        t,
    ]);
    assert_eq!(code, 0);
    let (code, _, err) = ioa(&["view", t, "-o", page.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("13 step(s), 3 lifeline(s), 0 message arrow(s)"),
        "{err}"
    );
    let data = page_data(&std::fs::read_to_string(&page).unwrap());
    assert_eq!(
        data["lanes"],
        serde_json::json!(["Node [0]", "Node [1]", "Node [2]"])
    );
    assert_eq!(
        data["lane_source"],
        serde_json::json!({ "first_argument": "Node" })
    );
    // `init([1], [2])` is on Node [1]'s lifeline; `makeBallot([0])` takes a ballot: on none.
    let steps = data["steps"].as_array().unwrap();
    assert_eq!(
        (steps[3]["line"].as_str(), steps[3]["lane"].as_u64()),
        (Some("input init([1], [2])"), Some(1))
    );
    assert_eq!(
        (steps[5]["line"].as_str(), steps[5]["lane"].as_u64()),
        (Some("internal makeBallot([0])"), None)
    );
    assert_eq!(data["network"], false);
}

#[test]
fn a_recorded_critical_step_is_marked() {
    // What a liveness explorer records: `#meta.critical`. Added here to an LCR run.
    let trace = scratch("view-tests", "lcr_critical.itf.json");
    let t = trace.to_str().unwrap();
    ioa(&[
        "run",
        "examples/lcr/lcr.ioa",
        "--schedule",
        "Ring",
        "--param",
        "n=3",
        "--trace",
        t,
    ]);
    let mut j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    j["#meta"]["critical"] =
        serde_json::json!({ "step": 7, "message": "from here no process can be elected" });
    std::fs::write(&trace, j.to_string()).unwrap();
    let svg = scratch("view-tests", "lcr_critical.svg");
    let (code, _, err) = ioa(&["view", t, "--svg", svg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(
        svg.contains("<rect class=\"row crit\" x=\"0\" y=\"184\""),
        "{svg}"
    );
    assert!(
        svg.contains("<text id=\"s7\" class=\"lbl l0 crit\""),
        "{svg}"
    );
    let page = scratch("view-tests", "lcr_critical.html");
    ioa(&["view", t, "-o", page.to_str().unwrap()]);
    let data = page_data(&std::fs::read_to_string(&page).unwrap());
    assert_eq!(data["critical"]["step"], 7);
    assert!(data["highlight"].is_null());
}
