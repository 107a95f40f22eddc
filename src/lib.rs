//! # ioa: I/O automata as a library
//!
//! The toolkit's operations — load a model with its universe, check, run, pair, infer, prove,
//! explore, export, replay — as functions that return data: reports, diagnostics, traces and
//! verdicts. Nothing in this library prints; the `ioa` command, the language server and the
//! web explorer are renderers of what it returns (see [`api`] for the map).
//!
//! An end-to-end example: check the consensus model `Cons` of the seed paper, load it with the
//! universe beside it (`examples/consensus/default.universe`: 3 nodes, 3 values), explore every
//! reachable state, and read the verdict.
//!
//! ```
//! use ioa::api::{check, explore, model};
//! use std::path::Path;
//!
//! let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/consensus/cons.ioa");
//!
//! // `ioa check`: every diagnostic comes back as data; this model has none.
//! let report = check::check_files(&[file.clone()]);
//! assert!(report.ok(), "{}", report.summary());
//!
//! // Load the model and its universe; the lines for types `Cons` lacks are skipped.
//! let m = model::load(&file, None, &[], None).unwrap_or_else(|f| panic!("{}", f.render()));
//! assert_eq!(m.skipped_universe_lines[0].lines, ["Ballot", "abstain.B"]);
//!
//! // `ioa explore`: breadth first over every reachable state, checking every invariant.
//! let explored = explore::explore(&m, &explore::ExploreRequest::default())
//!     .expect("the exploration runs");
//! let outcome = &explored.outcome;
//! assert!(outcome.verified());
//! assert_eq!(outcome.verdict.name(), "verified");
//! assert_eq!(outcome.stats.distinct, 2_056);
//! assert_eq!(outcome.stats.depth, 10);
//! assert!(outcome.counterexample.is_none());
//!
//! // Checking only one invariant, under a depth limit, stops early and says so.
//! let request = explore::ExploreRequest {
//!     invariants: vec!["Agreement".into()],
//!     search: explore::SearchSettings {
//!         options: explore::Options {
//!             max_depth: Some(3),
//!             ..Default::default()
//!         },
//!         ..Default::default()
//!     },
//!     ..Default::default()
//! };
//! let stopped = explore::explore(&m, &request).expect("the exploration runs");
//! assert!(matches!(
//!     stopped.outcome.verdict,
//!     explore::Verdict::LimitReached(explore::Limit::Depth(3))
//! ));
//! ```

pub mod api;
pub mod cex;
pub mod serve;
pub mod view;
