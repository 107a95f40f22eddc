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

/// Reads a `.decls` file, asserting the manual's rules; returns the variables of each point.
fn read_decls(text: &str) -> HashMap<String, Vec<Declared>> {
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
            vars.push(Declared { name: vname, rep });
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
            _ => {}
        }
        assert!(
            points.insert(name.to_string(), vars).is_none(),
            "ppt names are distinct"
        );
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
fn read_dtrace(text: &str, points: &HashMap<String, Vec<Declared>>) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for record in text.split("\n\n").filter(|r| !r.trim().is_empty()) {
        let lines: Vec<&str> = record.lines().collect();
        if lines[0].starts_with("decl-version") {
            continue;
        }
        let vars = points
            .get(lines[0])
            .unwrap_or_else(|| panic!("undeclared point {}", lines[0]));
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
    let action_samples: usize = counts
        .iter()
        .filter(|(k, _)| k.ends_with(":::ENTER"))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(action_samples, steps);
    // One point for the state, one per action.
    assert_eq!(points.len(), 1 + 9);
    let state = &points["Global1:::OBJECT"];
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
    assert!(points["Global1.vote(Node,Ballot):::ENTER"]
        .iter()
        .any(|v| v.name == "b.ordering"));
}

#[test]
fn cons_files_follow_the_documented_format() {
    let (decls, dtrace, states, _) = write("cons_schedules.ioa", "Cons");
    let points = read_decls(&decls);
    let counts = read_dtrace(&dtrace, &points);
    assert_eq!(counts["Cons:::OBJECT"], states);
}
