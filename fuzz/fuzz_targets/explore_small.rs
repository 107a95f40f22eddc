//! A universe from the fuzzer, then a bounded exploration of Global1 under it (at most 300
//! states, depth 4): the interpreter, the explorer's model and the invariant checks run on
//! whatever carriers the universe gives, and report errors as data, never a panic.
#![no_main]

#[path = "common.rs"]
mod common;

use checker::explore::{explore, Options};
use checker::model::MachineModel;
use interpreter::machine::Machine;
use interpreter::universe::Universe;
use ioa_lang::span::FileId;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static SPEC: OnceLock<ioa_lang::ir::Spec> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Small universes only: a number of three digits could make a range of a million values.
    let mut digits = 0;
    for c in text.chars() {
        digits = if c.is_ascii_digit() { digits + 1 } else { 0 };
        if digits > 2 {
            return;
        }
    }
    let spec = SPEC.get_or_init(common::global1);
    let Ok(universe) = Universe::parse(spec, FileId(9), text) else {
        return;
    };
    let Some(root) = spec.automata.iter().position(|a| a.name == "Global1") else {
        return;
    };
    let root = ioa_lang::ir::AutomatonId(root as u32);
    let Ok(machine) = Machine::new(spec, &universe, root, vec![]) else {
        return;
    };
    // Keep the instance count small, or one input could take minutes.
    let Ok(instances) = checker::model::action_instances(&machine) else {
        return;
    };
    if instances.len() > 2_000 {
        return;
    }
    let Ok(model) = MachineModel::new(&machine, None) else {
        return;
    };
    let options = Options {
        threads: 1,
        max_states: Some(300),
        max_depth: Some(4),
        ..Options::default()
    };
    let _ = explore(&model, &options, &mut |_| {});
});
