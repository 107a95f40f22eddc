//! `ioa liveness`'s report as data: the options checked, the line that starts the search, the
//! campaign report, why no dead path was found, and a suspected dead path (or a broken
//! invariant) re-executed with the lines, verdict and ITF traces that show it. The search itself
//! is `checker::liveness::macemc`'s; the evidence and verdict words are [`super::macemc`]'s.

use super::campaign::{CampaignReport, Shard};
use super::liveness_common::Replayed;
use super::liveness_common::{exhausted_notes, log_lines, replay, shape, state_diff, write_itf};
use super::macemc::{campaign_records, confidence, found_verdict, unplaced_verdict};
use super::model::Model;
use super::numbers::{count, parse_duration};
use checker::liveness::macemc::{
    BrokenInvariant, Critical, DeadPath, SearchOptions, SearchReport, SearchStats,
};
use checker::model::MachineModel;
use interpreter::machine::Machine;
use ioa_lang::diagnostics::Diagnostic;
use ioa_lang::ir::Liveness;
use std::path::Path;

/// What the user asked of the search, as given on the command line (the parts that need
/// checking: `--weights`, `--shard`, `--time-limit`), with the numbers that need none.
pub struct SearchRequest<'a> {
    /// The breadth-first search's depth.
    pub bfs_depth: u32,
    /// Walks from the frontier.
    pub walks: u64,
    /// The longest walk.
    pub depth_max: u64,
    /// Walks per state in FindCriticalTransition (k).
    pub recover_walks: u64,
    /// States the confirming exact searches may store.
    pub confirm_states: u64,
    /// The seed.
    pub seed: u64,
    /// `NAME=WEIGHT,…`.
    pub weights: Option<&'a str>,
    /// Bound on the breadth-first search's states.
    pub max_states: Option<u64>,
    /// `90`, `5m`.
    pub time_limit: Option<&'a str>,
    /// `I/N`.
    pub shard: Option<&'a str>,
}

impl SearchRequest<'_> {
    /// The search's options and the shard, or a message for a usage error.
    pub fn options(&self) -> Result<(SearchOptions, Option<Shard>), String> {
        let weights = super::runs::parse_weights(self.weights)?;
        let shard = self.shard.map(Shard::parse).transpose()?;
        let time_limit = self
            .time_limit
            .map(parse_duration)
            .transpose()
            .map_err(|e| format!("--time-limit: {e}"))?;
        let options = SearchOptions {
            bfs_depth: self.bfs_depth,
            walks: self.walks,
            depth_max: self.depth_max,
            recover_walks: self.recover_walks,
            confirm_states: self.confirm_states,
            seed: self.seed,
            weights,
            max_states: self.max_states,
            time_limit,
            shard: shard.map(|s| (s.index, s.count)),
        };
        Ok((options, shard))
    }
}

/// The line that starts the search: property, automaton, seed, bounds and shard.
pub fn search_header(
    name: &str,
    automaton: &str,
    liveness: &Liveness,
    o: &SearchOptions,
) -> String {
    let shard = o.shard.map(|(index, count)| Shard { index, count });
    format!(
        "searching {name} of {automaton} ({}): seed {}, breadth first to depth {}, then up to {} of at most {} (k = {}){}\n",
        shape(liveness),
        o.seed,
        o.bfs_depth,
        count(o.walks, "walk"),
        count(o.depth_max, "step"),
        o.recover_walks,
        Shard::note_for(shard, "walks"),
    )
}

/// The breadth-first search's line: the states stored and those at the frontier.
pub fn frontier_line(stats: &SearchStats) -> String {
    format!(
        "breadth first: {} stored{}; {} at the frontier to walk from\n",
        count(stats.bfs_states, "state"),
        match stats.bfs_limit {
            Some(_) => " (stopped at a limit)",
            None => "",
        },
        count(stats.frontier, "state")
    )
}

/// What identifies a campaign in its `--report` file, besides the search's options.
pub struct CampaignIdentity<'a> {
    /// The model file.
    pub model: &'a Path,
    /// The automaton's name.
    pub automaton: &'a str,
    /// The property's name.
    pub property: &'a str,
    /// `--param` as given.
    pub params: &'a [String],
    /// The universe text used.
    pub universe: &'a str,
    /// `--weights` as given.
    pub weights: Option<&'a str>,
}

/// The campaign report of a search (`--report FILE`): every walk and the first failure,
/// re-executed.
pub fn campaign_report(
    who: &CampaignIdentity,
    options: &SearchOptions,
    shard: Option<Shard>,
    model: &MachineModel,
    report: &SearchReport,
) -> Result<CampaignReport, Diagnostic> {
    let stats = &report.stats;
    let campaign = serde_json::json!({
        "model": who.model.display().to_string(),
        "automaton": who.automaton,
        "property": who.property,
        "params": who.params,
        "universe": who.universe,
        "seed": options.seed,
        "bfs_depth": options.bfs_depth,
        "depth_max": options.depth_max,
        "recover_walks": options.recover_walks,
        "weights": who.weights,
        "max_states": options.max_states,
        "bfs_states": stats.bfs_states,
        "frontier": stats.frontier,
    });
    let (records, failure) = campaign_records(model, report)?;
    // Without a frontier there is nothing to walk from, in any shard.
    let planned = if stats.frontier == 0 {
        0
    } else {
        options.walks
    };
    Ok(CampaignReport::new(
        "liveness", campaign, planned, shard, records, failure,
    ))
}

/// The verdict when no walk found a dead path (never a proof).
pub fn no_dead_path(report: &SearchReport, depth_max: u64) -> String {
    let stats = &report.stats;
    let why = if stats.frontier == 0 {
        "the breadth-first search left no state to walk from".to_string()
    } else if report.timed_out {
        format!(
            "the time limit stopped the walks after {}",
            count(stats.walks, "walk")
        )
    } else {
        format!(
            "every one of {} reached the goal",
            count(stats.walks, "walk")
        )
    };
    format!(
        "no dead path found: {why} (at most {} each); this is not a proof\n",
        count(depth_max, "step")
    )
}

/// A trace to write into the `--traces` folder: its file name, the run, the `liveness` metadata.
pub struct TraceFile<'r> {
    /// The file name inside the folder.
    pub file: &'static str,
    /// The re-executed run.
    pub run: &'r Replayed,
    /// What the path shows (`kind`, `property`, …).
    pub meta: serde_json::Value,
}

/// Where the traces go and what `ioa replay` needs to load their model.
pub struct TraceTarget<'a> {
    /// The `--traces` folder.
    pub dir: &'a Path,
    /// The loaded model (its universe text is recorded).
    pub model: &'a Model,
    /// The model file.
    pub file: &'a Path,
    /// `--param` as given.
    pub params: &'a [String],
}

impl TraceTarget<'_> {
    /// Writes the traces (creating the folder) and returns their paths, or a message.
    pub fn write(&self, machine: &Machine, traces: Vec<TraceFile>) -> Result<Vec<String>, String> {
        std::fs::create_dir_all(self.dir)
            .map_err(|e| format!("cannot create `{}`: {e}", self.dir.display()))?;
        let mut written = Vec::new();
        for t in traces {
            let path = self.dir.join(t.file);
            write_itf(
                &path,
                self.model,
                machine,
                self.file,
                self.params,
                t.run,
                t.meta,
            )
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
            written.push(path.display().to_string());
        }
        Ok(written)
    }
}

/// A walk's broken invariant, re-executed.
pub struct BrokenRun {
    /// The invariant's name.
    pub invariant: String,
    /// The path to the state that breaks it.
    pub run: Replayed,
}

impl BrokenRun {
    /// Re-executes the walk's path.
    pub fn replay(model: &MachineModel, broken: &BrokenInvariant) -> Result<Self, Diagnostic> {
        Ok(BrokenRun {
            invariant: model.machine().spec.invariants[broken.invariant]
                .name
                .clone(),
            run: replay(model, &broken.path)?,
        })
    }

    /// The lines on standard output: what is violated and the last twenty steps.
    pub fn lines(&self, machine: &Machine) -> Vec<String> {
        let steps = self.run.trace.steps.len();
        let mut out = vec![format!(
            "invariant `{}` is violated after step {steps}, in a state a walk reached:",
            self.invariant
        )];
        let from = steps.saturating_sub(19).max(1);
        if from > 1 {
            out.push(format!("… {} before", count((from - 1) as u64, "step")));
        }
        out.push(
            log_lines(machine, &self.run.trace, from, steps)
                .trim_end()
                .to_string(),
        );
        out
    }

    /// The trace `invariant.itf.json`.
    pub fn trace(&self, property: &str, seed: u64) -> TraceFile<'_> {
        TraceFile {
            file: "invariant.itf.json",
            run: &self.run,
            meta: serde_json::json!({
                "property": property, "kind": "invariant", "invariant": self.invariant,
                "seed": seed,
            }),
        }
    }

    /// The verdict line.
    pub fn verdict(&self, property: &str) -> String {
        format!(
            "violated: invariant `{}` fails after {} (found while searching {property}; the liveness search stopped there)\n",
            self.invariant,
            count(self.run.trace.steps.len() as u64, "step"),
        )
    }
}

/// A suspected dead path re-executed, and the live path that shares its prefix (when
/// FindCriticalTransition placed the critical step).
pub struct DeadRuns<'d> {
    /// What the search found.
    pub dead: &'d DeadPath,
    /// The dead path.
    pub dead_run: Replayed,
    /// The live path.
    pub live_run: Option<Replayed>,
}

/// How sure the search is of a dead path: the critical transition's placement.
pub struct DeadVerdict {
    /// A violation (found, or dead from the start) rather than C2 (the walks are too short).
    pub violated: bool,
    /// The verdict line.
    pub text: String,
}

impl<'d> DeadRuns<'d> {
    /// Re-executes the dead path and the live one.
    pub fn replay(model: &MachineModel, dead: &'d DeadPath) -> Result<Self, Diagnostic> {
        let dead_run = replay(model, &dead.path)?;
        let live_run = match &dead.critical {
            Critical::Found { live, .. } => Some(replay(model, live)?),
            _ => None,
        };
        Ok(DeadRuns {
            dead,
            dead_run,
            live_run,
        })
    }

    /// The lines on standard output: the path (up to just past the critical step), the notes
    /// on exhausted universes, the critical transition with the evidence, and the live path.
    pub fn lines(
        &self,
        model: &MachineModel,
        recover_walks: u64,
        confirm_states: u64,
    ) -> Vec<String> {
        let machine = model.machine();
        let (dead, trace) = (self.dead, &self.dead_run.trace);
        let steps = trace.steps.len();
        let ending = if dead.deadlocked {
            "ends where no action is enabled"
        } else {
            "never reaches the goal"
        };
        let what = match dead.critical {
            Critical::NotDead { .. } => {
                "walk that never reaches the goal, though its last state can"
            }
            _ => "suspected dead path",
        };
        let mut out = vec![format!(
            "{what} ({}; the walk starts at state {}, the obligation at state {}; it {ending}):",
            count(steps as u64, "step"),
            dead.walk_start,
            dead.obligation_at
        )];
        let shown = match &dead.critical {
            Critical::Found { step, .. } => (step + 3).min(steps),
            _ => steps.min(20),
        };
        out.push(log_lines(machine, trace, 1, shown).trim_end().to_string());
        if shown < steps {
            out.push(format!(
                "… {} more (see the trace)",
                count((steps - shown) as u64, "step")
            ));
        }
        if let Some(last) = trace.states.last() {
            for note in exhausted_notes(model, last) {
                out.push(format!("in the walk's last state, {note}"));
            }
        }
        if let Critical::Found {
            step,
            before,
            after,
            ..
        } = &dead.critical
        {
            out.push(format!(
                "critical transition (C1): {}",
                trace.log_line(machine, *step)
            ));
            out.push(format!(
                "how sure: {}",
                confidence(before, after, recover_walks, confirm_states)
            ));
            out.push(format!("state change at step {step}:"));
            let diff = state_diff(machine, &trace.states[step - 1], &trace.states[*step]);
            out.push(diff.trim_end().to_string());
            out.extend(self.live_lines(machine, *step));
        }
        out
    }

    /// The live path's lines: how much it shares, the step it takes instead, the state after.
    fn live_lines(&self, machine: &Machine, step: usize) -> Vec<String> {
        let Some(live) = &self.live_run else {
            return Vec::new();
        };
        let shared = step - 1;
        let mut out = vec![format!(
            "live path: shares the first {} and reaches the goal after {} in all",
            count(shared as u64, "step"),
            count(live.trace.steps.len() as u64, "step")
        )];
        if live.trace.steps.len() > shared {
            out.push(format!(
                "  it takes instead {}",
                live.trace.log_line(machine, shared + 1)
            ));
            out.push(format!("state {step}, dead path → live path:"));
            let dead_state = &self.dead_run.trace.states[step];
            let diff = state_diff(machine, dead_state, &live.trace.states[step]);
            out.push(diff.trim_end().to_string());
        }
        out
    }

    /// The verdict of the search that found the path.
    pub fn verdict(
        &self,
        machine: &Machine,
        name: &str,
        stats: &SearchStats,
        depth_max: u64,
    ) -> DeadVerdict {
        let dead = self.dead;
        let (violated, text) = match &dead.critical {
            Critical::Found { step, after, .. } => {
                let line = self.dead_run.trace.log_line(machine, *step);
                let text =
                    found_verdict(name, *step, &line, after, dead.walk, stats.walks, depth_max);
                (true, text)
            }
            other => unplaced_verdict(name, other),
        };
        DeadVerdict { violated, text }
    }

    /// The traces `dead.itf.json` and (when there is one) `live.itf.json`.
    pub fn traces(&self, name: &str, seed: u64) -> Vec<TraceFile<'_>> {
        let dead = self.dead;
        let critical = match &dead.critical {
            Critical::Found { step, .. } => Some(*step),
            _ => None,
        };
        let runs = [
            ("dead.itf.json", Some(&self.dead_run), "dead"),
            ("live.itf.json", self.live_run.as_ref(), "live"),
        ];
        runs.into_iter()
            .filter_map(|(file, run, kind)| {
                Some(TraceFile {
                    file,
                    run: run?,
                    meta: serde_json::json!({
                        "property": name, "kind": kind, "critical": critical, "seed": seed,
                        "walk_start": dead.walk_start, "obligation": dead.obligation_at,
                    }),
                })
            })
            .collect()
    }
}
