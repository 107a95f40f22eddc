//! The `ioa` command: the only place in the toolkit that reads files from disk and prints to a
//! terminal. Each subcommand lives in its own module under `cli/`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
