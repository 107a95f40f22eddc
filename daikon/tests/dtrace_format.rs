//! The Daikon writer against Daikon's documented file format (Developer Manual, appendix "File
//! formats", declaration version 2.0): a small reader checks every rule the manual states for
//! `.decls` and `.dtrace` files, on the Global1 schedule suite and on Cons.

mod common;

use common::*;
use daikon::dtrace::DaikonWriter;
use interpreter::machine::Machine;
use std::collections::HashMap;

/// A declared variable, as the reader saw it.
#[derive(Debug, Clone)]
struct Declared {
    name: String,
    rep: String,
    /// `parent P ID [VAR]`: the parent point and relation id.
    parent: Option<(String, String)>,
}

/// A declared program point.
#[derive(Debug, Clone)]
struct Point {
    ppt_type: String,
    /// `parent parent P ID` records: parent point and relation id.
    parents: Vec<(String, String)>,
    vars: Vec<Declared>,
}

const PPT_TYPES: [&str; 6] = ["point", "class", "object", "enter", "exit", "subexit"];
const VAR_KINDS: [&str; 5] = ["field", "function", "array", "variable", "return"];
const REP_TYPES: [&str; 5] = ["boolean", "int", "hashcode", "double", "java.lang.String"];
const FLAGS: [&str; 12] = [
    "is_param",
    "no_dups",
    "not_ordered",
    "nomod",
    "synthetic",
    "classname",
    "to_string",
    "non_null",
    "is_property",
    "is_enum",
    "is_readonly",
    "is_struct",
];

/// Reads a `.decls` file, asserting the manual's rules; returns each point.
fn read_decls(text: &str) -> HashMap<String, Point> {
    let records: Vec<&str> = text
        .split("\n\n")
        .filter(|r| !r.trim().is_empty())
        .collect();
    let header: Vec<&str> = records[0].lines().collect();
    assert_eq!(
        header[0], "decl-version 2.0",
        "the version record comes first"
    );
    for line in &header[1..] {
        let (field, value) = line.split_once(' ').expect("field value");
        match field {
            "input-language" => {}
            "var-comparability" => assert!(["implicit", "none"].contains(&value)),
            other => panic!("unexpected header record `{other}`"),
        }
    }
    let mut points = HashMap::new();
    for record in &records[1..] {
        let mut lines = record.lines();
        let name = lines
            .next()
            .unwrap()
            .strip_prefix("ppt ")
            .expect("a ppt record");
        assert!(!name.contains(' '), "blanks in names are escaped: {name}");
        let mut vars: Vec<Declared> = Vec::new();
        let mut ppt_type = None;
        let mut parents: Vec<(String, String)> = Vec::new();
        let mut current: Option<(String, HashMap<String, String>)> = None;
        let finish = |cur: Option<(String, HashMap<String, String>)>, vars: &mut Vec<Declared>| {
            let Some((vname, info)) = cur else { return };
            let kind = info.get("var-kind").expect("var-kind is required");
            let mut kw = kind.split(' ');
            let k = kw.next().unwrap();
            assert!(VAR_KINDS.contains(&k), "var-kind {k}");
            if k == "field" || k == "function" {
                assert!(
                    kw.next().is_some(),
                    "{vname}: a field names its relative name"
                );
            }
            if k == "field" || k == "array" {
                let e = info
                    .get("enclosing-var")
                    .expect("fields and arrays have an enclosing var");
                assert!(
                    vars.iter().any(|v| &v.name == e),
                    "{vname}: enclosing var {e} declared before"
                );
            }
            if k == "function" {
                // A function of a non-object-oriented language: no enclosing var, and its
                // arguments are variables of the same point.
                assert!(!info.contains_key("enclosing-var"), "{vname}");
                let args = info.get("function-args").expect("function-args");
                for a in args.split(' ') {
                    assert!(
                        vars.iter().any(|v| v.name == a),
                        "{vname}: argument {a} declared before"
                    );
                }
            }
            assert!(
                info.contains_key("dec-type"),
                "{vname}: dec-type is required"
            );
            let rep = info.get("rep-type").expect("rep-type is required").clone();
            let array = rep.ends_with("[]");
            assert!(
                REP_TYPES.contains(&rep.trim_end_matches("[]")),
                "rep-type {rep}"
            );
            assert_eq!(
                info.get("array").map(String::as_str) == Some("1"),
                array,
                "{vname}: `array 1` exactly for arrays"
            );
            if k == "array" {
                assert!(
                    array && vname.contains("[..]"),
                    "{vname}: array contents are named with [..]"
                );
            }
            if let Some(flags) = info.get("flags") {
                for f in flags.split(' ') {
                    assert!(FLAGS.contains(&f), "unknown flag {f}");
                }
            }
            let c = info
                .get("comparability")
                .expect("comparability is required");
            let ok = if array {
                let (e, i) = c.split_once('[').unwrap();
                e.parse::<i64>().is_ok() && i.trim_end_matches(']').parse::<i64>().is_ok()
            } else {
                c.parse::<i64>().is_ok()
            };
            assert!(ok, "{vname}: comparability {c}");
            assert!(
                !vars.iter().any(|v| v.name == vname),
                "{vname} declared twice"
            );
            let parent = info.get("parent").map(|p| {
                let mut w = p.split(' ');
                let ppt = w.next().unwrap().to_string();
                let id = w.next().expect("a relation id").to_string();
                (ppt, id)
            });
            vars.push(Declared {
                name: vname,
                rep,
                parent,
            });
        };
        for line in lines {
            if let Some(v) = line.strip_prefix("variable ") {
                finish(current.take(), &mut vars);
                assert!(!v.contains(' '));
                current = Some((v.to_string(), HashMap::new()));
            } else if let Some(info) = line.strip_prefix("  ") {
                let (f, v) = info.split_once(' ').unwrap_or((info, ""));
                current
                    .as_mut()
                    .expect("inside a variable")
                    .1
                    .insert(f.into(), v.into());
            } else if let Some(t) = line.strip_prefix("ppt-type ") {
                ppt_type = Some(t.to_string());
            } else if let Some(p) = line.strip_prefix("parent ") {
                let w: Vec<&str> = p.split(' ').collect();
                assert_eq!(
                    w.len(),
                    3,
                    "parent <relation-type> <parent-ppt-name> <relation-id>"
                );
                assert!(["parent", "user"].contains(&w[0]));
                assert!(w[2].parse::<u32>().is_ok());
                parents.push((w[1].to_string(), w[2].to_string()));
            } else {
                panic!("unexpected line `{line}`");
            }
        }
        finish(current.take(), &mut vars);
        let t = ppt_type.expect("ppt-type");
        assert!(PPT_TYPES.contains(&t.as_str()));
        match t.as_str() {
            "object" => {
                assert!(name.ends_with(":::OBJECT") && !name[..name.len() - 9].contains(':'))
            }
            "enter" => {
                assert!(name.ends_with(":::ENTER") && name.contains('(') && name.contains(')'))
            }
            "subexit" => {
                // `<class>.<method>(<argument types>):::EXIT<id>`
                let (procedure, id) = name.split_once(":::EXIT").expect(":::EXIT<id>");
                assert!(procedure.contains('(') && procedure.ends_with(')'));
                assert!(id.parse::<u32>().is_ok(), "{name}: a subexit has an id");
            }
            _ => {}
        }
        // A variable's parent relation is one of its point's.
        for v in &vars {
            if let Some(p) = &v.parent {
                assert!(parents.contains(p), "{}: parent {p:?} not declared", v.name);
            }
        }
        let point = Point {
            ppt_type: t,
            parents,
            vars,
        };
        assert!(
            points.insert(name.to_string(), point).is_none(),
            "ppt names are distinct"
        );
    }
    // Every parent exists and has each variable a child names as its own.
    for (name, p) in &points {
        for (parent, _) in &p.parents {
            let parent_point = points
                .get(parent)
                .unwrap_or_else(|| panic!("{name}: parent {parent} declared"));
            for v in p.vars.iter().filter(|v| v.parent.is_some()) {
                assert!(
                    parent_point.vars.iter().any(|pv| pv.name == v.name),
                    "{name}: {} missing from {parent}",
                    v.name
                );
            }
        }
    }
    points
}

/// Checks one value against its rep-type.
fn value_ok(rep: &str, v: &str) -> bool {
    let scalar = |r: &str, x: &str| match r {
        "int" => x.parse::<i64>().is_ok(),
        "boolean" => ["0", "1", "true", "false"].contains(&x),
        "hashcode" => x == "null" || x.parse::<u64>().is_ok(),
        "java.lang.String" => {
            x == "null" || (x.len() >= 2 && x.starts_with('"') && x.ends_with('"'))
        }
        _ => false,
    };
    match rep.strip_suffix("[]") {
        Some(elem) => {
            let Some(inner) = v.strip_prefix('[').and_then(|x| x.strip_suffix(']')) else {
                return false;
            };
            // Strings hold no blanks in these models, so items split on blanks.
            inner.is_empty() || inner.split(' ').all(|x| scalar(elem, x))
        }
        None => scalar(rep, v),
    }
}

/// Reads a `.dtrace` file against the declarations; returns the number of samples per point.
/// Every entry record is followed by the exit record of the same procedure with the same
/// nonce, before any other entry (Daikon matches them by nonce).
fn read_dtrace(text: &str, points: &HashMap<String, Point>) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    let mut open: Option<(String, String)> = None;
    for record in text.split("\n\n").filter(|r| !r.trim().is_empty()) {
        let mut lines: Vec<&str> = record.lines().collect();
        if lines[0].starts_with("decl-version") {
            continue;
        }
        let point = points
            .get(lines[0])
            .unwrap_or_else(|| panic!("undeclared point {}", lines[0]));
        let nonce = (lines.get(1) == Some(&"this_invocation_nonce")).then(|| lines[2].to_string());
        if nonce.is_some() {
            lines.drain(1..3);
        }
        match point.ppt_type.as_str() {
            "enter" => {
                assert!(open.is_none(), "an entry before the last one's exit");
                let procedure = lines[0].strip_suffix(":::ENTER").unwrap();
                open = Some((procedure.to_string(), nonce.expect("entries carry a nonce")));
            }
            "subexit" => {
                let (procedure, n) = open.take().expect("an exit after its entry");
                assert!(lines[0].starts_with(&format!("{procedure}:::EXIT")));
                assert_eq!(Some(n), nonce, "exit and entry share a nonce");
            }
            _ => assert!(nonce.is_none()),
        }
        let vars = &point.vars;
        assert_eq!(
            lines.len(),
            1 + 3 * vars.len(),
            "every declared variable, in order, at {}",
            lines[0]
        );
        for (k, v) in vars.iter().enumerate() {
            let (name, value, modified) = (lines[1 + 3 * k], lines[2 + 3 * k], lines[3 + 3 * k]);
            assert_eq!(name, v.name);
            assert!(["0", "1", "2"].contains(&modified));
            assert_eq!(
                value == "nonsensical",
                modified == "2",
                "{name}: 2 iff nonsensical"
            );
            if value != "nonsensical" {
                assert!(
                    value_ok(&v.rep, value),
                    "{name}: `{value}` is not a {}",
                    v.rep
                );
            }
        }
        *counts.entry(lines[0].to_string()).or_insert(0) += 1;
    }
    counts
}

fn write(file: &str, automaton_name: &str) -> (String, String, usize, usize) {
    let loaded = load(file, &default_universe());
    let id = automaton(&loaded.spec, automaton_name);
    let machine = Machine::new(&loaded.spec, &loaded.universe, id, vec![]).unwrap();
    let traces = schedule_runs(&machine);
    let mut writer = DaikonWriter::new(&machine);
    let (mut decls, mut dtrace) = (Vec::new(), Vec::new());
    writer.write_decls(&mut decls).unwrap();
    writer.write_header(&mut dtrace).unwrap();
    let (mut states, mut steps) = (0, 0);
    for (_, t) in &traces {
        writer.write_trace(t, &mut dtrace).unwrap();
        states += t.states.len();
        steps += t.steps.len();
    }
    (
        String::from_utf8(decls).unwrap(),
        String::from_utf8(dtrace).unwrap(),
        states,
        steps,
    )
}

#[test]
fn global1_files_follow_the_documented_format() {
    let (decls, dtrace, states, steps) = write("global1_schedules.ioa", "Global1");
    let points = read_decls(&decls);
    let counts = read_dtrace(&dtrace, &points);
    assert_eq!(counts["Global1:::OBJECT"], states);
    for suffix in [":::ENTER", ":::EXIT1"] {
        let action_samples: usize = counts
            .iter()
            .filter(|(k, _)| k.ends_with(suffix))
            .map(|(_, n)| n)
            .sum();
        assert_eq!(action_samples, steps);
    }
    // One point for the state, an entry and an exit per action.
    assert_eq!(points.len(), 1 + 2 * 9);
    let object = "Global1:::OBJECT".to_string();
    for (name, p) in &points {
        if name != &object {
            assert_eq!(p.parents, vec![(object.clone(), "1".to_string())]);
        }
    }
    let state = &points["Global1:::OBJECT"].vars;
    let names: Vec<&str> = state.iter().map(|v| v.name.as_str()).collect();
    // Sets are arrays of their elements, tuples are flattened into fields.
    for n in [
        "ballots",
        "ballots[..]",
        "ballots[..].ordering",
        "val[[0]].val.value",
        "voted[[1]][..].ordering",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    assert!(decls.contains("variable ballots[..]\n  var-kind array\n  enclosing-var ballots\n  array 1\n  dec-type Ballot[]\n  rep-type hashcode[]\n  flags no_dups not_ordered\n"));
    let vote = &points["Global1.vote(Node,Ballot):::EXIT1"].vars;
    assert!(vote
        .iter()
        .any(|v| v.name == "b.ordering" && v.parent.is_none()));
    assert!(vote
        .iter()
        .any(|v| v.name == "ballots" && v.parent == Some((object.clone(), "1".into()))));
    // The intersections Daikon cannot derive (the paper's Inv1 and Inv3).
    for n in [
        "intersection(succeeded,dead)[..]",
        "intersection(voted[[2]],abstained[[2]])[..]",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
}

/// The comparability numbers of a point's variables, by name.
fn comparabilities(decls: &str, point: &str) -> HashMap<String, String> {
    let record = decls
        .split("\n\n")
        .find(|r| r.starts_with(&format!("ppt {point}\n")))
        .unwrap();
    let mut out = HashMap::new();
    let mut name = String::new();
    for line in record.lines() {
        if let Some(v) = line.strip_prefix("variable ") {
            name = v.to_string();
        } else if let Some(c) = line.strip_prefix("  comparability ") {
            out.insert(name.clone(), c.to_string());
        }
    }
    out
}

#[test]
fn comparability_follows_declared_types() {
    let (decls, _, _, _) = write("global1_schedules.ioa", "Global1");
    let c = comparabilities(&decls, "Global1.assignVal(Ballot,Value):::ENTER");
    // Node ids, ballot numbers and values are all `Int` fields, and never comparable.
    let node = &c["initiated[..].location"];
    let ballot = &c["ballots[..].ordering"];
    let value = &c["proposed[..].value"];
    let elem = |x: &String| x.split('[').next().unwrap().to_string();
    assert_ne!(elem(node), elem(ballot));
    assert_ne!(elem(ballot), elem(value));
    assert_ne!(elem(node), elem(value));
    // The same kind of value is comparable wherever it sits.
    assert_eq!(elem(ballot), c["b.ordering"]);
    assert_eq!(elem(ballot), elem(&c["voted[[1]][..].ordering"]));
    assert_eq!(elem(value), c["val[[3]].val.value"]);
    assert_eq!(elem(value), c["v.value"]);
    // Collections of one type share their index (so their sizes compare), and no other.
    assert_eq!(c["ballots[..]"], c["succeeded[..]"]);
    assert_eq!(c["ballots[..]"], c["voted[[0]][..]"]);
    assert_ne!(c["ballots[..]"], c["initiated[..]"]);
}

#[test]
fn cons_files_follow_the_documented_format() {
    let (decls, dtrace, states, _) = write("cons_schedules.ioa", "Cons");
    let points = read_decls(&decls);
    let counts = read_dtrace(&dtrace, &points);
    assert_eq!(counts["Cons:::OBJECT"], states);
}
