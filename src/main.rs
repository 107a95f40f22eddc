//! The `ioa` command: the only place in the toolkit that reads files from disk and prints to a
//! terminal. Each subcommand lives in its own module under `cli/` and renders what the library
//! (`ioa::api`) returns; `lsp/` is the language server over the same library.

mod cli;
mod lsp;

/// Values are persistent collections of small reference-counted nodes: runs and explorations
/// allocate and free millions of them a second, which mimalloc does much faster than the
/// system allocator (measured in README's benchmarks section).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run()
}
