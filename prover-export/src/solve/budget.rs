//! Z3's budget: its deterministic resource count (`rlimit`), so that a verdict does not depend
//! on how loaded the machine is, with wall-clock time only as an outer safety limit.
//!
//! Z3 counts work in "resource units" per context (the `rlimit count` statistic); the solver
//! parameter `rlimit` caps the units one `check` may spend, counted from where the context
//! stands. The same script, parameters and history of the context give the same count on every
//! machine and at any load.

use std::time::{Duration, Instant};
use z3::Solver;

/// The budget of `ioa prove` per obligation, shared by its portfolio. The bundled examples'
/// most expensive obligation (Global1's Inv3 at `abstain`) needs 9.5 M units (`ioa prove
/// --format json` prints `rlimit` per obligation; the README lists the measurements), so this is
/// over five times that.
pub const DEFAULT_PROVE_RLIMIT: u64 = 50_000_000;

/// The budget of one query of `ioa verify`'s Houdini fixpoint (a shared solver checking one
/// candidate against one transition).
pub const DEFAULT_QUERY_RLIMIT: u64 = 5_000_000;

/// The wall-clock safety limit of `ioa prove` per obligation, in seconds.
pub const DEFAULT_WALL_SECONDS: f64 = 120.0;

/// How much Z3 may spend on one obligation or query.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Z3 resource units (deterministic); the portfolio shares them among its attempts.
    pub rlimit: u64,
    /// Wall-clock safety limit: its expiry is reported as a timeout, never as a verdict about
    /// the formula.
    pub wall: Duration,
}

impl Budget {
    /// A budget of `rlimit` units under a wall-clock safety limit of `wall`.
    pub fn new(rlimit: u64, wall: Duration) -> Self {
        Budget { rlimit, wall }
    }
}

/// Z3's `rlimit` parameter is a 32-bit count: larger budgets are capped (0 would mean none).
pub fn param(units: u64) -> u32 {
    units.clamp(1, u32::MAX as u64) as u32
}

/// The context's resource count so far (the `rlimit count` statistic of `solver`).
pub fn count(solver: &Solver) -> u64 {
    solver
        .get_statistics()
        .entries()
        .find(|e| e.key == "rlimit count")
        .map(|e| match e.value {
            z3::StatisticsValue::UInt(n) => n as u64,
            z3::StatisticsValue::Double(d) => d as u64,
        })
        .unwrap_or(0)
}

/// A wall-clock deadline.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    started: Instant,
    limit: Duration,
}

impl Deadline {
    /// `limit` from now.
    pub fn after(limit: Duration) -> Self {
        Deadline {
            started: Instant::now(),
            limit,
        }
    }

    /// Whether the limit has passed.
    pub fn expired(&self) -> bool {
        self.started.elapsed() >= self.limit
    }

    /// Milliseconds left (at least 1), for Z3's `timeout` parameter.
    pub fn millis_left(&self) -> u32 {
        self.limit
            .saturating_sub(self.started.elapsed())
            .as_millis()
            .clamp(1, u32::MAX as u128) as u32
    }

    /// Time since the deadline was set.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}
