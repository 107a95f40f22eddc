//! Samples per second of invariant detection on Global1 (3 nodes, 20 ballots), with every
//! derived variable: the schedule suite and 100 random runs of 100 steps are run once, then the
//! detector is timed on their states (frames, unary statistics and pair trackers; the report is
//! left out). Run with `cargo bench -p daikon --bench samples`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use daikon::{DeriveOptions, Engine, GrammarOptions, VarModel};
use interpreter::machine::Machine;
use interpreter::runner::{Runner, Weights};
use interpreter::trace::Trace;
use interpreter::universe::Universe;
use ioa_lang::ir::AutomatonId;
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

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/consensus");
    let result = ioa_lang::check_files(&[root.join("global1_schedules.ioa")], &Disk);
    let mut spec = result.spec.expect("the example checks");
    spec.invariants.clear();
    let text = std::fs::read_to_string(root.join("default.universe")).expect("universe file");
    let mut universe = Universe::default();
    universe
        .add(&spec, ioa_lang::span::FileId(0), &text, true)
        .expect("universe parses");
    let id = AutomatonId(
        spec.automata
            .iter()
            .position(|a| a.name == "Global1")
            .expect("Global1") as u32,
    );
    let machine = Machine::new(&spec, &universe, id, vec![]).expect("machine");
    let runner = Runner::new(&machine);
    let mut traces: Vec<(String, Trace)> = spec
        .schedules
        .iter()
        .filter(|s| s.automaton == id)
        .map(|s| {
            (
                s.name.clone(),
                runner.schedule(s, 10_000, &mut |_| true).trace,
            )
        })
        .collect();
    for seed in 0..100 {
        let report = runner.random(seed, 100, &Weights::default(), &mut |_| true);
        traces.push((format!("seed {seed}"), report.trace));
    }
    let states: u64 = traces.iter().map(|(_, t)| t.states.len() as u64).sum();
    let model = VarModel::new(&machine, DeriveOptions::all());
    let mut group = c.benchmark_group("infer");
    group.throughput(Throughput::Elements(states));
    group.sample_size(10);
    group.bench_function("Global1 states, all derived variables", |b| {
        b.iter(|| {
            let mut engine = Engine::new(&machine, &model, GrammarOptions::default());
            for (label, trace) in &traces {
                engine.add_trace(label, trace);
            }
            engine.counts().samples
        })
    });
    group.finish();
}

criterion_group!(samples, bench);
criterion_main!(samples);
