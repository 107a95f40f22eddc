//! The `ioa` command: the only place in the toolkit that reads files from disk and prints to a
//! terminal. Each subcommand lives in its own module under `cli/` and renders what the library
//! (`ioa::api`) returns; `lsp/` is the language server over the same library.

mod cli;
mod lsp;

/// Values are persistent collections of small reference-counted nodes: runs and explorations
/// allocate and free millions of them a second, which mimalloc does much faster than the
/// system allocator (measured in README's benchmarks section). Its version 2 (the `v2`
/// feature), not 3: on 2026-12-07 version 3 took its slow aligned path for every state the
/// compiled engine copies, and version 2 gave, one thread, `farm-bench` pairs, 0.98× the CPU
/// and 0.82× the peak memory on the GROOVE Paxos 3P/3A, 0.94× and 0.92× on the composite
/// Paxos within 17 steps, 0.98× and 0.78× exploring Global1, 1.00× on Global1 random runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run()
}
