//! States per second of exhaustive exploration on Global1 (3 nodes, 2 values, 2 ballots; the
//! universe of `examples/consensus/explore.universe`), with and without symmetry reduction,
//! on one thread and on every core, with the interpreter's model and the compiled one. Each
//! iteration explores the first 20,000 states breadth first. Run with
//! `cargo bench -p checker --bench explore_global1`.

use checker::compiled::CompiledModel;
use checker::explore::{explore, Options};
use checker::model::MachineModel;
use checker::symmetry::Symmetry;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use interpreter::machine::Machine;
use interpreter::universe::Universe;
use ioa_lang::ir::AutomatonId;
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

const STATES: u64 = 20_000;

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/consensus");
    let result = ioa_lang::check_files(&[root.join("global1_invariants.ioa")], &Disk);
    let spec = result.spec.expect("the example checks");
    let text = std::fs::read_to_string(root.join("explore.universe")).expect("universe file");
    let universe =
        Universe::parse(&spec, ioa_lang::span::FileId(0), &text).expect("universe parses");
    let id = AutomatonId(
        spec.automata
            .iter()
            .position(|a| a.name == "Global1")
            .expect("Global1") as u32,
    );
    let machine = Machine::new(&spec, &universe, id, vec![]).expect("machine");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    let mut group = c.benchmark_group("explore_global1");
    group.throughput(Throughput::Elements(STATES));
    group.sample_size(10);
    for symmetric in [false, true] {
        for threads in [1, cores] {
            let symmetry = || {
                symmetric
                    .then(|| Symmetry::new(&machine, &["Node".to_string()]).expect("symmetric"))
            };
            let options = Options {
                threads,
                max_states: Some(STATES),
                ..Options::default()
            };
            let label = |engine: &str| {
                format!(
                    "{engine} {} {threads} thread(s)",
                    if symmetric { "symmetric" } else { "plain" }
                )
            };
            let model = MachineModel::new(&machine, symmetry()).expect("instances");
            group.bench_function(label("interpreted"), |b| {
                b.iter(|| {
                    let report = explore(&model, &options, &mut |_| {});
                    assert_eq!(report.stats.distinct, STATES);
                })
            });
            let compiled = CompiledModel::new(&machine, symmetry()).expect("Global1 compiles");
            group.bench_function(label("compiled"), |b| {
                b.iter(|| {
                    let report = explore(&compiled, &options, &mut |_| {});
                    assert_eq!(report.stats.distinct, STATES);
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
