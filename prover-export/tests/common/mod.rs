//! What the prover library's integration tests share: reading models from disk, running a test
//! on a thread with a large stack, and checking an SMT-LIB2 script with Z3.

#![allow(dead_code)] // each test binary uses its own part of this module

use ioa_lang::loader::FileSystem;
use std::path::{Path, PathBuf};
use z3::{Params, SatResult, Solver};

/// The real file system, for `ioa_lang::check_files`.
pub struct Disk;

impl FileSystem for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Runs `test` on a thread with a 256 MiB stack (Z3 recurses over deep terms such as nested
/// stores; test threads have small stacks), passing its panic on.
pub fn on_large_stack(test: fn()) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(test)
        .expect("a thread")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}

/// Checks `script` with Z3 under the limit `param = value` (`rlimit` or `timeout`), after
/// making sure Z3 parsed all of it.
pub fn check(script: &str, param: &str, value: u32) -> SatResult {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32(param, value);
    solver.set_params(&params);
    solver.from_string(script);
    assert!(
        prover_export::solve::parsed_completely(&solver, script),
        "Z3 rejected:\n{script}"
    );
    solver.check()
}
