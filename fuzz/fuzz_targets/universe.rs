//! Universe files (`Type = LOW..HIGH`, value lists, `action.param = …`) read against a bundled
//! model: every input is a universe or diagnostics, never a panic.
#![no_main]

#[path = "common.rs"]
mod common;

use ioa_lang::span::FileId;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static SPEC: OnceLock<ioa_lang::ir::Spec> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let spec = SPEC.get_or_init(common::global1);
    let _ = interpreter::universe::Universe::parse(spec, FileId(9), text);
});
