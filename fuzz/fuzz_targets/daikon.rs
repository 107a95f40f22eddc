//! Daikon's files from a run the fuzzer writes: an ITF JSON trace (read as `ioa replay` reads
//! one) of Global1, of the audit log of strings (`tests/data/manual/string_log.ioa`) or of the
//! multiset channel (`tests/data/manual/mset_channel.ioa`), chosen by the trace's `#meta`
//! `automaton`, is written as `.decls` and `.dtrace` (what `ioa trace --daikon` writes) and the
//! `.dtrace` is read back against the declarations: every record names a declared program
//! point, carries a nonce exactly when the point is an action's, lists the point's variables in
//! order, each with a value on one line (strings quoted and escaped) and a modified flag of 1
//! or 2, and ends with a blank line. A record Daikon would misread is a defect, as is a panic.
#![no_main]

#[path = "common.rs"]
mod common;

#[path = "../../src/api/itf.rs"]
#[allow(dead_code)]
mod itf;

use daikon::dtrace::layout::Rep;
use daikon::dtrace::write::escape;
use daikon::dtrace::DaikonWriter;
use interpreter::machine::Machine;
use interpreter::universe::Universe;
use ioa_lang::ir::{AutomatonId, Spec};
use ioa_lang::loader::MemoryFileSystem;
use ioa_lang::span::FileId;
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A checked model and the universe its runs use.
struct Model {
    spec: Spec,
    universe: Universe,
    root: AutomatonId,
}

static MODELS: OnceLock<Vec<(&'static str, Model)>> = OnceLock::new();

fn model(name: &'static str, spec: Spec, universe: &str) -> (&'static str, Model) {
    let universe = Universe::parse(&spec, FileId(9), universe).expect("the universe parses");
    let root = spec
        .automata
        .iter()
        .position(|a| a.name == name)
        .expect("the automaton is bundled");
    let root = AutomatonId(root as u32);
    (
        name,
        Model {
            spec,
            universe,
            root,
        },
    )
}

fn manual(file: &str, text: &str) -> Spec {
    let mut fs = MemoryFileSystem::default();
    fs.files.insert(PathBuf::from(file), text.to_string());
    let result = ioa_lang::check_files(&[PathBuf::from(file)], &fs);
    result.spec.expect("the bundled model checks")
}

fn models() -> Vec<(&'static str, Model)> {
    vec![
        model(
            "Global1",
            common::global1(),
            include_str!("../../examples/consensus/explore.universe"),
        ),
        model(
            "AuditLog",
            manual(
                "string_log.ioa",
                include_str!("../../tests/data/manual/string_log.ioa"),
            ),
            "",
        ),
        model(
            "MsetChannel",
            manual(
                "mset_channel.ioa",
                include_str!("../../tests/data/manual/mset_channel.ioa"),
            ),
            "Int = 0..1",
        ),
    ]
}

fuzz_target!(|data: &[u8]| {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let models = MODELS.get_or_init(models);
    let wanted = json["#meta"]["automaton"].as_str().unwrap_or("Global1");
    let Some((_, m)) = models.iter().find(|(n, _)| *n == wanted) else {
        return;
    };
    let Ok(machine) = Machine::new(&m.spec, &m.universe, m.root, vec![]) else {
        return;
    };
    let Ok(trace) = itf::read_trace(&machine, &json) else {
        return;
    };
    let mut writer = DaikonWriter::new(&machine);
    let mut decls = Vec::new();
    writer.write_decls(&mut decls).expect("writing to memory");
    let mut dtrace = Vec::new();
    writer
        .write_trace(&trace, &mut dtrace)
        .expect("writing to memory");
    let decls = String::from_utf8(decls).expect("the declarations are UTF-8");
    let dtrace = String::from_utf8(dtrace).expect("the samples are UTF-8");
    let points: HashMap<String, Point> = writer
        .points()
        .iter()
        .map(|p| {
            let name = escape(&p.name);
            assert!(
                decls.contains(&format!("ppt {name}\n")),
                "{name} is not declared"
            );
            let vars = p
                .vars
                .iter()
                .map(|v| (escape(&v.name), v.rep, v.array))
                .collect();
            (name, (p.ppt_type != "object", vars))
        })
        .collect();
    check_samples(&dtrace, &points);
});

/// A declared program point: whether its records carry a nonce, and its variables' names,
/// rep-types and whether each is an array.
type Point = (bool, Vec<(String, Rep, bool)>);

/// Reads the samples back as Daikon would and fails on the first one that does not fit.
fn check_samples(dtrace: &str, points: &HashMap<String, Point>) {
    let mut lines = dtrace.split('\n');
    let mut records = 0;
    while let Some(ppt) = lines.next() {
        if ppt.is_empty() {
            // The text ends with a newline after the last record's blank line.
            assert!(
                lines.next().is_none(),
                "an empty line where a record starts"
            );
            break;
        }
        let (nonce, vars) = points
            .get(ppt)
            .unwrap_or_else(|| panic!("record {records}: undeclared point {ppt:?}"));
        if *nonce {
            assert_eq!(lines.next(), Some("this_invocation_nonce"), "{ppt}");
            let n = lines.next().expect("a nonce");
            assert!(n.parse::<u64>().is_ok(), "{ppt}: nonce {n:?}");
        }
        for (var, rep, array) in vars {
            assert_eq!(lines.next(), Some(var.as_str()), "{ppt}: variable order");
            let value = lines.next().expect("a value");
            if value != "nonsensical" {
                check_value(value, *rep, *array);
            }
            let modified = lines.next().expect("a modified flag");
            assert!(
                modified == "1" || modified == "2",
                "{var}: flag {modified:?}"
            );
            if modified == "2" {
                assert_eq!(value, "nonsensical", "{var}");
            }
        }
        assert_eq!(
            lines.next(),
            Some(""),
            "{ppt}: a record ends with a blank line"
        );
        records += 1;
    }
}

/// One value of its declared rep-type: an `int` a number, a `boolean` 0 or 1, a `hashcode` a
/// number or `null`, a `java.lang.String` a quoted string whose quotes and backslashes are
/// escaped; an array `[…]` of such scalars exactly when the variable is an array.
fn check_value(value: &str, rep: Rep, array: bool) {
    let inner = if array {
        let rest = value.strip_prefix('[').expect("an array opens");
        rest.strip_suffix(']').expect("an array closes")
    } else {
        assert!(!value.is_empty(), "an empty value");
        value
    };
    let mut items = 0;
    let mut rest = inner;
    while !rest.is_empty() {
        rest = rest.trim_start_matches(' ');
        if rest.is_empty() {
            break;
        }
        items += 1;
        assert!(array || items == 1, "several items in the scalar {value:?}");
        if let Some(s) = rest.strip_prefix('"') {
            assert!(
                rep == Rep::Str,
                "a string where a {} is declared",
                rep.name()
            );
            // A string: up to the first unescaped quote.
            let mut escaped = false;
            let mut end = None;
            for (k, c) in s.char_indices() {
                match (escaped, c) {
                    (true, _) => escaped = false,
                    (false, '\\') => escaped = true,
                    (false, '"') => {
                        end = Some(k);
                        break;
                    }
                    _ => {}
                }
            }
            let end = end.unwrap_or_else(|| panic!("an unterminated string in {value:?}"));
            rest = &s[end + 1..];
            assert!(
                rest.is_empty() || rest.starts_with(' '),
                "a string runs into the next item in {value:?}"
            );
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            let item = &rest[..end];
            let fits = match rep {
                Rep::Int => item.parse::<i64>().is_ok(),
                Rep::Bool => item == "0" || item == "1",
                Rep::Hash => item == "null" || item.parse::<u64>().is_ok(),
                Rep::Str => false,
            };
            assert!(fits, "{item:?} is no {} in {value:?}", rep.name());
            rest = &rest[end..];
        }
    }
}
