//! The JSON API of `ioa serve` on a sequence of requests from the fuzzer: methods, routes and
//! bodies (indices, action names, ITF argument values) are arbitrary, and every answer must be
//! a `Reply` with a JSON body — a panic anywhere in firing, stepping back and forth, restarting
//! or saving the path is a defect. The session is the one `src/cli/serve.rs` puts on HTTP
//! (its source is compiled in here, as the root package is a binary), over Global1 with the
//! small exploration universe. Input: one request per line, `METHOD PATH BODY`.
#![no_main]

#[path = "common.rs"]
mod common;

// `src/view` as far as the session draws its sequence chart (`session` names it `crate::view`).
#[path = "../../src/view/chart.rs"]
mod chart;
#[path = "../../src/view/messages.rs"]
mod messages;
#[path = "../../src/view/svg.rs"]
mod svg;
mod view {
    pub(crate) use crate::{chart, svg};
}

#[path = "../../src/serve/session.rs"]
#[allow(dead_code)]
mod session;

use interpreter::machine::Machine;
use interpreter::universe::Universe;
use ioa_lang::span::FileId;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static SPEC: OnceLock<ioa_lang::ir::Spec> = OnceLock::new();
static UNIVERSE: OnceLock<Universe> = OnceLock::new();

const UNIVERSE_TEXT: &str = include_str!("../../examples/consensus/explore.universe");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let spec = SPEC.get_or_init(common::global1);
    let universe = UNIVERSE.get_or_init(|| {
        Universe::parse(spec, FileId(9), UNIVERSE_TEXT).expect("the bundled universe parses")
    });
    let root = spec
        .automata
        .iter()
        .position(|a| a.name == "Global1")
        .expect("Global1 is bundled");
    let machine = Machine::new(
        spec,
        universe,
        ioa_lang::ir::AutomatonId(root as u32),
        vec![],
    )
    .expect("Global1 runs under its universe");
    let meta =
        Box::new(|_: &Machine, choices: &[Vec<usize>]| serde_json::json!({ "choices": choices }));
    let mut s = session::Session::new(&machine, meta, String::from("<html></html>"))
        .expect("Global1 has a start state");
    // At most 64 requests per input, so one input stays fast.
    for line in text.lines().take(64) {
        let mut parts = line.splitn(3, ' ');
        let method = parts.next().unwrap_or("");
        let url = parts.next().unwrap_or("");
        let body = parts.next().unwrap_or("");
        let reply = s.handle(method, url, body.as_bytes());
        assert!((200..600).contains(&reply.status));
        if reply.content_type == "application/json" {
            serde_json::from_str::<serde_json::Value>(&reply.body).expect("every answer is JSON");
        }
    }
});
