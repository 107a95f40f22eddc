//! `cargo run --release -p stateright-paxos --example check -- P A MAJ [--symmetric] [--threads N]`
//! checks one configuration breadth first and prints one line: verdict, distinct states,
//! generated states, depth, seconds. Used by `bench/run.sh`.

#[path = "../shared/checked.rs"]
mod checked;

use stateright_paxos::Paxos;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: check P A MAJ [--symmetric] [--threads N]";
    let number = |i: usize| -> usize {
        args.get(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{usage}"))
    };
    let (p, a, maj) = (number(0), number(1), number(2));
    let symmetric = args.iter().any(|s| s == "--symmetric");
    let threads = args
        .iter()
        .position(|s| s == "--threads")
        .map_or(1, |i| number(i + 1));
    let start = Instant::now();
    let outcome = checked::check(Paxos::new(p, a, maj), symmetric, threads);
    let verdict = match outcome.violation {
        Some((name, steps)) => format!("violated {name} ({steps} steps)"),
        None => "verified".to_string(),
    };
    println!(
        "{verdict}; states {}; generated {}; depth {}; seconds {:.3}",
        outcome.unique,
        outcome.generated,
        outcome.depth,
        start.elapsed().as_secs_f64()
    );
}
