//! Transitions per second of seeded random runs on the consensus examples (single-threaded), with
//! and without invariant checking. Run with `cargo bench -p interpreter --bench random_runs`.
//!
//! Time is the benchmark thread's CPU time, not wall-clock time: the machines this runs on are
//! shared, and a run that waits for a core is not a slower run. Set `IOA_BENCH_WALL=1` to
//! measure wall-clock time instead.

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use interpreter::machine::Machine;
use interpreter::runner::{Runner, Weights};
use interpreter::universe::Universe;
use ioa_lang::ir::{AutomatonId, Spec};
use ioa_lang::loader::FileSystem;
use std::path::{Path, PathBuf};

/// The allocator the `ioa` command uses, so that the figures are the command's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Disk;

impl FileSystem for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        ioa_lang::loader::normalise(path)
    }
}

fn load(file: &str) -> (Spec, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/consensus");
    let result = ioa_lang::check_files(&[root.join(file)], &Disk);
    let spec = result.spec.expect("the example checks");
    let universe = std::fs::read_to_string(root.join("default.universe")).expect("universe file");
    (spec, universe)
}

/// CPU time of the calling thread (user + system), from `/proc/thread-self/stat`, in clock
/// ticks of 10 ms; batches last about half a second, so the error is a few percent. Falls back
/// to wall-clock time where that file does not exist or when `IOA_BENCH_WALL` is set.
struct ThreadCpu {
    wall: bool,
}

/// A reading: CPU ticks, or a wall-clock instant.
enum Reading {
    Ticks(u64),
    Wall(std::time::Instant),
}

const TICK_NS: f64 = 1e7;

fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name (which may contain spaces): state is field 3, utime 14,
    // stime 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

impl Measurement for ThreadCpu {
    type Intermediate = Reading;
    type Value = f64;

    fn start(&self) -> Reading {
        match (self.wall, cpu_ticks()) {
            (false, Some(t)) => Reading::Ticks(t),
            _ => Reading::Wall(std::time::Instant::now()),
        }
    }
    fn end(&self, i: Reading) -> f64 {
        match i {
            Reading::Ticks(t) => (cpu_ticks().unwrap_or(t).saturating_sub(t)) as f64 * TICK_NS,
            Reading::Wall(at) => at.elapsed().as_nanos() as f64,
        }
    }
    fn add(&self, a: &f64, b: &f64) -> f64 {
        a + b
    }
    fn zero(&self) -> f64 {
        0.0
    }
    fn to_f64(&self, v: &f64) -> f64 {
        *v
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

fn bench_model(c: &mut Criterion<ThreadCpu>, file: &str, automaton: &str, with_invariants: bool) {
    let (mut spec, text) = load(file);
    if !with_invariants {
        spec.invariants.clear();
    }
    // The universe file is shared by the consensus models: lines naming what this model lacks
    // (Cons has no ballots) are skipped, as `ioa run` does.
    let mut universe = Universe::default();
    universe
        .add(&spec, ioa_lang::span::FileId(0), &text, true)
        .expect("universe parses");
    let id = AutomatonId(
        spec.automata
            .iter()
            .position(|a| a.name == automaton)
            .expect("automaton") as u32,
    );
    let machine = Machine::new(&spec, &universe, id, vec![]).expect("machine");
    let runner = Runner::new(&machine);
    let steps = 2_000;
    let mut group = c.benchmark_group("random_runs");
    group.throughput(Throughput::Elements(steps));
    group.sample_size(10);
    group.measurement_time(std::time::Duration::from_secs(8));
    let label = format!(
        "{automaton} {} invariants",
        if with_invariants { "with" } else { "without" }
    );
    let mut seed = 0;
    group.bench_function(label, |b| {
        b.iter(|| {
            seed += 1;
            let report = runner.random(seed, steps, &Weights::default(), &mut |_| true);
            assert!(report.ok());
            report.trace.steps.len()
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion<ThreadCpu>) {
    bench_model(c, "global1.ioa", "Global1", false);
    bench_model(c, "global1_invariants.ioa", "Global1", true);
    bench_model(c, "cons.ioa", "Cons", false);
    bench_model(c, "cons.ioa", "Cons", true);
}

fn config() -> Criterion<ThreadCpu> {
    Criterion::default().with_measurement(ThreadCpu {
        wall: std::env::var_os("IOA_BENCH_WALL").is_some(),
    })
}

criterion_group! {
    name = random_runs;
    config = config();
    targets = benches
}
criterion_main!(random_runs);
