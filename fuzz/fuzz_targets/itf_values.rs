//! ITF JSON values (what `ioa replay` and `ioa view` read from a trace) decoded at every state
//! variable type of a bundled model: a value or an error message, never a panic.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static SPEC: OnceLock<ioa_lang::ir::Spec> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let spec = SPEC.get_or_init(common::global1);
    for automaton in &spec.automata {
        if let ioa_lang::ir::AutomatonBody::Primitive(p) = &automaton.body {
            for var in &p.state {
                let _ = interpreter::trace::from_itf(spec, &json, &var.ty);
            }
        }
    }
});
