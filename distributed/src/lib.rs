//! Exhaustive breadth-first exploration over several processes (and threads), on timely
//! dataflow. This crate is the scale-out edge of the checker: the single-machine explorer and
//! its tests do not depend on it.
//!
//! - [`search`]: one worker's part: every state is owned by worker `fingerprint mod W`,
//!   successors travel to their owner, a BFS level ends when timely's frontier passes its round,
//!   and parents are chosen by the smallest *key* (the state's position in the single-process
//!   explorer's breadth-first order), so the counts of a complete search and the shortest
//!   counterexample are the single-process explorer's, whatever the number of workers.
//! - [`wire`]: the [`wire::Wire`] trait (states, steps and properties as words) and the
//!   messages of a round.
//! - [`hostfile`]: the cluster's addresses, checked line by line.
//!
//! [`explore`] starts the workers of this process, connects to the others (timely's TCP
//! allocator), and turns a lost connection (timely's communication threads panic when a peer
//! goes away) into [`ClusterError::Lost`] naming the process that was lost.

pub mod checkpoint;
pub mod connect;
pub mod hostfile;
pub mod links;
pub mod search;
pub mod wire;

use checker::explore::Options;
use search::{LevelProgress, SearchReport};
use std::sync::{Arc, Mutex};
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use wire::Wire;

/// Where this process stands in the cluster.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// Processes in all.
    pub processes: usize,
    /// This process (0 ≤ process < processes).
    pub process: usize,
    /// Timely workers (threads) per process.
    pub workers: usize,
    /// Every process's `host:port`, in process order.
    pub addresses: Vec<String>,
    /// How long to wait for the other processes to connect.
    pub timeout: std::time::Duration,
}

/// Why a distributed search could not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClusterError {
    /// The cluster could not be set up (addresses, ports).
    Setup(String),
    /// The connection to another process was lost: it was killed or its machine failed.
    Lost {
        /// The process whose connection was lost.
        process: usize,
        /// Its workers.
        workers: std::ops::Range<usize>,
        /// What the communication layer said.
        message: String,
    },
    /// A worker stopped for another reason (a bug: the message says where).
    Worker(String),
}

impl std::fmt::Display for ClusterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClusterError::Setup(m) => write!(f, "cannot set up the cluster: {m}"),
            ClusterError::Lost {
                process,
                workers,
                message,
            } => {
                let which = if workers.len() == 1 {
                    format!("worker {}", workers.start)
                } else {
                    format!("workers {}–{}", workers.start, workers.end - 1)
                };
                write!(
                    f,
                    "lost process {process} ({which}): {message}; the search stopped on every process that is left"
                )
            }
            ClusterError::Worker(m) => write!(f, "a worker stopped: {m}"),
        }
    }
}

/// Panics seen while the cluster ran: (thread name, message).
type Panics = Arc<Mutex<Vec<(String, String)>>>;

/// What is told of each level as the search goes (on the first worker of each process).
pub type Progress = Arc<dyn Fn(&LevelProgress) + Send + Sync>;

/// Runs the search with this process's workers; returns worker 0's report of this process.
/// `model` lives for the whole process (the workers are threads that outlive any borrow).
/// `progress`, if any, is called once per level by this process's first worker.
pub fn explore<M>(
    model: &'static M,
    cluster: &Cluster,
    options: &Options,
    checkpointing: &checkpoint::Checkpointing,
    progress: Option<Progress>,
) -> Result<SearchReport<M::Step, M::Property>, ClusterError>
where
    M: Wire + 'static,
    M::Step: Send + 'static,
    M::Property: Send + 'static,
{
    let threads = cluster.workers.max(1);
    // The allocators of this process's workers, and what must live as long as they do.
    let (builders, others): (Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>) = if cluster
        .processes
        > 1
    {
        if cluster.addresses.len() != cluster.processes || cluster.process >= cluster.processes {
            return Err(ClusterError::Setup(format!(
                "process {} of {} with {} address(es)",
                cluster.process,
                cluster.processes,
                cluster.addresses.len()
            )));
        }
        let sockets = connect::connect(&cluster.addresses, cluster.process, cluster.timeout)?;
        let hooks = timely::communication::Hooks::default();
        let process_allocators =
            ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
        let (tcp, guard) = initialize_networking_from_sockets(
            process_allocators,
            sockets,
            cluster.process,
            threads,
            hooks,
        )
        .map_err(|e| ClusterError::Setup(e.to_string()))?;
        (
            tcp.into_iter().map(AllocatorBuilder::Tcp).collect(),
            Box::new(guard),
        )
    } else {
        let config = if threads > 1 {
            timely::CommunicationConfig::Process(threads)
        } else {
            timely::CommunicationConfig::Thread
        };
        config.try_build().map_err(ClusterError::Setup)?
    };
    let options = options.clone();
    let checkpointing = checkpointing.clone();
    let panics: Panics = Arc::default();
    let seen = Arc::clone(&panics);
    // Timely's communication threads panic when a peer goes away, and the panic cascades to
    // the workers and to the guards' drop: record them all quietly, then say what happened.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let name = std::thread::current().name().unwrap_or("main").to_string();
        let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "panic".to_string()
        };
        if let Ok(mut p) = seen.lock() {
            p.push((name, message));
        }
    }));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let guards = timely::execute::execute_from(
            builders,
            others,
            timely::WorkerConfig::default(),
            move |worker| {
                let progress = progress
                    .as_deref()
                    .filter(|_| worker.index() % threads == 0);
                search::run(worker, model, &options, &checkpointing, progress)
            },
        )?;
        Ok::<_, String>(guards.join())
    }));
    let _ = std::panic::take_hook();
    std::panic::set_hook(previous);
    let panics = panics.lock().map(|p| p.clone()).unwrap_or_default();
    let lost = || {
        panics.iter().find_map(|(thread, message)| {
            let remote = thread
                .strip_prefix("timely:recv-")
                .or_else(|| thread.strip_prefix("timely:send-"))?;
            let process: usize = remote.parse().ok()?;
            let start = process * cluster.workers.max(1);
            Some(ClusterError::Lost {
                process,
                workers: start..start + cluster.workers.max(1),
                message: message
                    .trim_start_matches("timely communication error: ")
                    .to_string(),
            })
        })
    };
    match result {
        Ok(Ok(results)) => {
            let mut first = None;
            for r in results {
                match r {
                    Ok(report) => {
                        first.get_or_insert(report);
                    }
                    Err(message) => {
                        return Err(lost().unwrap_or(ClusterError::Worker(message)));
                    }
                }
            }
            first.ok_or_else(|| ClusterError::Worker("no worker reported".into()))
        }
        Ok(Err(setup)) => Err(ClusterError::Setup(setup)),
        Err(_) => Err(lost().unwrap_or_else(|| {
            ClusterError::Worker(
                panics
                    .first()
                    .map(|(t, m)| format!("{t}: {m}"))
                    .unwrap_or_else(|| "panic".into()),
            )
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use checker::explore::{explore as explore_one, Model, Verdict};
    use checker::fingerprint::Fingerprint;
    use search::Outcome;

    /// Pairs (a, b) modulo `n` with steps a+1, b+1, a+b; a property "never reaches `bad`".
    struct Grid {
        n: i64,
        bad: Option<(i64, i64)>,
    }

    impl Model for Grid {
        type State = (i64, i64);
        type Step = u32;
        type Property = u32;
        type Error = String;

        fn initial_states(&self, out: &mut Vec<(u32, (i64, i64))>) -> Result<(), String> {
            out.push((0, (0, 0)));
            out.push((0, (1, 0)));
            Ok(())
        }
        fn successors(
            &self,
            s: &(i64, i64),
            out: &mut Vec<(u32, (i64, i64))>,
        ) -> Result<(), String> {
            let n = self.n;
            out.push((1, ((s.0 + 1) % n, s.1)));
            out.push((2, (s.0, (s.1 + 1) % n)));
            out.push((3, ((s.0 + s.1) % n, s.1)));
            Ok(())
        }
        fn check(&self, s: &(i64, i64)) -> Result<Option<u32>, String> {
            Ok((Some(*s) == self.bad).then_some(7))
        }
        fn fingerprint(&self, s: &(i64, i64)) -> Fingerprint {
            let v = [interpreter_value(s.0), interpreter_value(s.1)];
            checker::fingerprint::fingerprint(&v)
        }
    }

    fn interpreter_value(i: i64) -> interpreter::value::Value {
        interpreter::value::Value::Int(i)
    }

    impl Wire for Grid {
        fn state_words(&self, s: &(i64, i64)) -> Vec<i64> {
            vec![s.0, s.1]
        }
        fn state_from(&self, w: Vec<i64>) -> (i64, i64) {
            (w[0], w[1])
        }
        fn step_words(&self, s: &u32) -> Vec<u32> {
            vec![*s]
        }
        fn step_from(&self, w: &[u32]) -> u32 {
            w[0]
        }
        fn property_word(&self, p: &u32) -> u64 {
            *p as u64
        }
        fn property_from(&self, w: u64) -> u32 {
            w as u32
        }
        fn error_text(&self, e: &String) -> String {
            e.clone()
        }
    }

    fn cluster(workers: usize) -> Cluster {
        Cluster {
            processes: 1,
            process: 0,
            workers,
            addresses: Vec::new(),
            timeout: std::time::Duration::from_secs(5),
        }
    }

    fn no_checkpoints() -> checkpoint::Checkpointing {
        checkpoint::Checkpointing {
            dir: None,
            every: std::time::Duration::ZERO,
            resume: None,
            identity: String::new(),
            spill_dir: None,
        }
    }

    /// 1, 2 and 3 workers store what one process stores, and report its shortest path, in
    /// memory or spilling.
    #[test]
    fn any_number_of_workers_explores_as_one_process() {
        let options = Options::default();
        let whole: &'static Grid = Box::leak(Box::new(Grid { n: 23, bad: None }));
        let one = explore_one(whole, &options, &mut |_| {});
        assert!(matches!(one.verdict, Verdict::Verified));
        let bad: &'static Grid = Box::leak(Box::new(Grid {
            n: 23,
            bad: Some((9, 13)),
        }));
        let one_bad = explore_one(bad, &options, &mut |_| {});
        let Verdict::Violated { path: one_path, .. } = one_bad.verdict else {
            panic!("(9, 13) is reachable");
        };
        for (workers, memory_limit) in [(1, None), (2, None), (3, None), (1, Some(1)), (3, Some(1))]
        {
            // A budget of one byte: every worker spills its visited set after every level.
            let options = Options {
                memory_limit,
                ..Options::default()
            };
            let workers_label = format!("{workers} workers, memory limit {memory_limit:?}");
            let r =
                explore(whole, &cluster(workers), &options, &no_checkpoints(), None).expect("runs");
            if memory_limit.is_some() {
                let spilled: u64 = r
                    .workers
                    .iter()
                    .filter_map(|w| w.spill.as_ref())
                    .map(|s| s.states_on_disk)
                    .sum();
                assert!(spilled > 0, "{workers_label}");
            }
            assert!(matches!(r.outcome, Outcome::Verified));
            let distinct: u64 = r.workers.iter().map(|w| w.distinct).sum();
            let generated: u64 = r.workers.iter().map(|w| w.generated).sum();
            assert_eq!(distinct, one.stats.distinct, "{workers_label}");
            assert_eq!(generated, one.stats.generated, "{workers_label}");
            assert_eq!(r.depth, one.stats.depth, "{workers_label}");
            let r =
                explore(bad, &cluster(workers), &options, &no_checkpoints(), None).expect("runs");
            match r.outcome {
                Outcome::Violated { property, path } => {
                    assert_eq!(property, 7);
                    assert_eq!(path, one_path, "{workers_label}");
                }
                other => panic!("{workers_label}: {other:?}"),
            }
        }
    }

    /// A spilled search's checkpoint holds its spilled states (without steps); resumed, it
    /// finds the same violation and replays the same shortest path.
    #[test]
    fn a_spilled_search_resumes_from_its_checkpoint() {
        let bad: &'static Grid = Box::leak(Box::new(Grid {
            n: 23,
            bad: Some((9, 13)),
        }));
        let one = explore_one(bad, &Options::default(), &mut |_| {});
        let Verdict::Violated { path: one_path, .. } = one.verdict else {
            panic!("(9, 13) is reachable");
        };
        let dir = tempfile::tempdir().expect("a temporary directory");
        let options = Options {
            memory_limit: Some(1),
            ..Options::default()
        };
        let writing = checkpoint::Checkpointing {
            dir: Some(dir.path().to_path_buf()),
            ..no_checkpoints()
        };
        let first = explore(bad, &cluster(2), &options, &writing, None).expect("runs");
        assert!(first.checkpoints.len() > 3, "{:?}", first.checkpoints);
        let resuming = checkpoint::Checkpointing {
            resume: Some(dir.path().to_path_buf()),
            ..no_checkpoints()
        };
        let resumed = explore(bad, &cluster(2), &options, &resuming, None).expect("runs");
        assert!(resumed.resumed_at.is_some());
        match resumed.outcome {
            Outcome::Violated { path, .. } => assert_eq!(path, one_path),
            other => panic!("{other:?}"),
        }
    }
}
