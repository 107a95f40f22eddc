//! Transitions per second of seeded random runs on the consensus examples (single-threaded), with
//! and without invariant checking. Run with `cargo bench -p interpreter --bench random_runs`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use interpreter::machine::Machine;
use interpreter::runner::{Runner, Weights};
use interpreter::universe::Universe;
use ioa_lang::ir::{AutomatonId, Spec};
use ioa_lang::loader::FileSystem;
use std::path::{Path, PathBuf};

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

fn bench_model(c: &mut Criterion, file: &str, automaton: &str, with_invariants: bool) {
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

fn benches(c: &mut Criterion) {
    bench_model(c, "global1.ioa", "Global1", false);
    bench_model(c, "global1_invariants.ioa", "Global1", true);
    bench_model(c, "cons.ioa", "Cons", false);
    bench_model(c, "cons.ioa", "Cons", true);
}

criterion_group!(random_runs, benches);
criterion_main!(random_runs);
