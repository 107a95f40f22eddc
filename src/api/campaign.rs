//! Seed-sharded campaigns: `--shard I/N` and `--report FILE` on `ioa run --random`, `ioa pair
//! --random` and `ioa liveness`, and `ioa merge REPORT…`.
//!
//! A campaign is a numbered list of runs (random runs, paired runs, liveness walks) whose run k
//! draws from a seed fixed by k alone, so any machine can run any subset of them. Shard I of N
//! takes the runs k ≡ I (mod N). Each writes a [`CampaignReport`]: what the campaign is (every
//! option that decides the runs), one line per run it made, and its first failure. An unsharded
//! campaign stops at its first failure; a shard stops at its own, which is never earlier than
//! the campaign's, so the shards together hold every run up to the campaign's first failure.
//! [`merge_reports`] keeps those runs and the failure with the smallest run number, and writes the
//! report through the same function as the unsharded campaign: merging N shards gives the
//! unsharded report byte for byte.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// `--shard I/N`: this process makes the runs whose number is ≡ I (mod N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// I, from 0.
    pub index: u64,
    /// N.
    pub count: u64,
}

impl Shard {
    /// What a campaign's first line adds for an optional shard: ` (shard I/N: runs ≡ I mod N)`,
    /// or nothing.
    pub fn note(shard: Option<Shard>) -> String {
        Shard::note_for(shard, "runs")
    }

    /// As [`Shard::note`], for a campaign of other `units` (` (shard I/N: walks ≡ I mod N)`).
    pub fn note_for(shard: Option<Shard>, units: &str) -> String {
        shard
            .map(|s| {
                format!(
                    " (shard {}/{}: {units} ≡ {} mod {})",
                    s.index, s.count, s.index, s.count
                )
            })
            .unwrap_or_default()
    }

    /// Parses an optional `--shard I/N`.
    pub fn parse_option(text: Option<&str>) -> Result<Option<Shard>, String> {
        text.map(Shard::parse).transpose()
    }

    /// Parses `I/N` (0 ≤ I < N).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard takes I/N with 0 ≤ I < N (say 0/3), not `{text}`");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether run `k` belongs to this shard.
    pub fn takes(&self, k: u64) -> bool {
        k % self.count == self.index
    }
}

/// Whether run `k` is made by this process (every run when not sharded).
pub fn mine(shard: Option<Shard>, k: u64) -> bool {
    shard.is_none_or(|s| s.takes(k))
}

/// One run of a campaign.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Its number in the campaign, from 0.
    pub run: u64,
    /// The seed it drew from.
    pub seed: u64,
    /// Steps it took.
    pub steps: u64,
    /// How it ended (`ok`, `deadlock`, `failed`, …; each command has its words).
    pub outcome: String,
}

/// The first failure of a campaign (or shard).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureRecord {
    /// The failing run's number.
    pub run: u64,
    /// Its seed.
    pub seed: u64,
    /// What the command reports about it (diagnostic, shrunk run, log lines).
    pub detail: serde_json::Value,
}

/// Totals over the runs a report holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Runs made.
    pub runs: u64,
    /// Steps over all of them.
    pub steps: u64,
    /// Runs per outcome.
    pub outcomes: std::collections::BTreeMap<String, u64>,
}

/// A campaign's report, as written by `--report FILE`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CampaignReport {
    /// The command (`run`, `pair`, `liveness`).
    pub command: String,
    /// Every option that decides the runs; shards of one campaign have the same.
    pub campaign: serde_json::Value,
    /// The number of runs asked for.
    pub planned: u64,
    /// Which shard made this report (absent for a whole campaign, and after merging).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The verdict: `failed` if a run failed, else `passed`.
    pub verdict: String,
    /// The first failure.
    pub failure: Option<FailureRecord>,
    /// Totals over `runs`.
    pub totals: Totals,
    /// Every run made, in order.
    pub runs: Vec<RunRecord>,
}

impl CampaignReport {
    /// The report of `runs` (in run order) with the first failure `failure`.
    pub fn new(
        command: &str,
        campaign: serde_json::Value,
        planned: u64,
        shard: Option<Shard>,
        runs: Vec<RunRecord>,
        failure: Option<FailureRecord>,
    ) -> CampaignReport {
        let mut outcomes = std::collections::BTreeMap::new();
        for r in &runs {
            *outcomes.entry(r.outcome.clone()).or_insert(0) += 1;
        }
        CampaignReport {
            command: command.to_string(),
            campaign,
            planned,
            shard,
            verdict: if failure.is_some() {
                "failed"
            } else {
                "passed"
            }
            .to_string(),
            totals: Totals {
                runs: runs.len() as u64,
                steps: runs.iter().map(|r| r.steps).sum(),
                outcomes,
            },
            failure,
            runs,
        }
    }

    /// The report as the JSON text every writer uses (pretty, with a final newline).
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("JSON of plain data");
        text.push('\n');
        text
    }

    /// Writes the report to `path`.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        std::fs::write(path, self.to_text())
            .map_err(|e| format!("cannot write the report `{}`: {e}", path.display()))
    }
}

/// Why reports do not merge.
pub fn merge_reports(reports: Vec<(PathBuf, CampaignReport)>) -> Result<CampaignReport, String> {
    let Some((first_path, first)) = reports.first() else {
        return Err("give the reports to merge".into());
    };
    for (path, r) in &reports[1..] {
        if r.command != first.command || r.campaign != first.campaign || r.planned != first.planned
        {
            return Err(format!(
                "`{}` and `{}` are reports of different campaigns (command, model, options or number of runs differ)",
                first_path.display(),
                path.display()
            ));
        }
    }
    // The shards must be 0..N of one N, each once (a single whole report merges to itself).
    let count = match first.shard {
        None if reports.len() == 1 => 1,
        None => {
            return Err(format!(
                "`{}` is a whole campaign's report, not a shard's",
                first_path.display()
            ))
        }
        Some(s) => s.count,
    };
    let mut seen: Vec<Option<&PathBuf>> = vec![None; count as usize];
    for (path, r) in &reports {
        let Some(s) = r
            .shard
            .or((count == 1).then_some(Shard { index: 0, count: 1 }))
        else {
            return Err(format!(
                "`{}` is a whole campaign's report, not a shard's",
                path.display()
            ));
        };
        if s.count != count {
            return Err(format!(
                "`{}` is shard {}/{} but `{}` is of {count} shards",
                path.display(),
                s.index,
                s.count,
                first_path.display()
            ));
        }
        if let Some(other) = seen[s.index as usize].replace(path) {
            return Err(format!(
                "`{}` and `{}` are both shard {}/{count}",
                other.display(),
                path.display(),
                s.index
            ));
        }
    }
    if let Some(missing) = seen.iter().position(Option::is_none) {
        return Err(format!("shard {missing}/{count} is missing"));
    }
    // The campaign's first failure is the one with the smallest run number; it would have
    // stopped there, so runs after it are dropped.
    let failure = reports
        .iter()
        .filter_map(|(_, r)| r.failure.clone())
        .min_by_key(|f| f.run);
    let last = failure.as_ref().map_or(first.planned, |f| f.run + 1);
    let mut runs: Vec<RunRecord> = reports
        .iter()
        .flat_map(|(_, r)| r.runs.iter().filter(|x| x.run < last).cloned())
        .collect();
    runs.sort_by_key(|r| r.run);
    for (k, r) in runs.iter().enumerate() {
        if r.run != k as u64 {
            let shard = k as u64 % count;
            return Err(format!(
                "run {k} is in no report: shard {shard}/{count} stopped before it (a time limit?), so the shards do not add up to the campaign"
            ));
        }
    }
    if (runs.len() as u64) < last {
        let k = runs.len() as u64;
        return Err(format!(
            "run {k} is in no report: shard {}/{count} stopped before it (a time limit?), so the shards do not add up to the campaign",
            k % count
        ));
    }
    Ok(CampaignReport::new(
        &first.command,
        first.campaign.clone(),
        first.planned,
        None,
        runs,
        failure,
    ))
}

/// Reads a shard's report written with `--report FILE`; the error says which file and where.
pub fn read_report(path: &Path) -> Result<CampaignReport, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    serde_json::from_str::<CampaignReport>(&text).map_err(|e| {
        format!(
            "`{}` is not a campaign report (line {}, column {}): {e}\nhint: reports are written by `ioa run --random`, `ioa pair --random` and `ioa liveness` with `--report FILE`",
            path.display(),
            e.line(),
            e.column()
        )
    })
}

/// Reads the shards' reports and merges them ([`merge_reports`]).
pub fn merge_files(paths: &[PathBuf]) -> Result<CampaignReport, String> {
    let mut reports = Vec::new();
    for path in paths {
        reports.push((path.clone(), read_report(path)?));
    }
    merge_reports(reports)
}

/// What identifies a campaign of seeded random runs in its report: the model file, the
/// parameters and universe, `(seed, steps)`, the weights as given, and the command's own
/// field (`("automaton", A)` for `ioa run`, `("simulation", S)` for `ioa pair`).
pub fn random_campaign(
    model: &Path,
    params: &[String],
    universe: &str,
    (seed, steps): (u64, u64),
    weights: Option<&str>,
    (key, value): (&str, &str),
) -> serde_json::Value {
    let mut campaign = serde_json::json!({
        "model": model.display().to_string(),
        "params": params,
        "universe": universe,
        "seed": seed,
        "steps": steps,
        "weights": weights,
    });
    campaign[key] = value.into();
    campaign
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(run: u64, outcome: &str) -> RunRecord {
        RunRecord {
            run,
            seed: 10 + run,
            steps: run + 1,
            outcome: outcome.into(),
        }
    }

    fn failure(run: u64) -> FailureRecord {
        FailureRecord {
            run,
            seed: 10 + run,
            detail: serde_json::json!({ "run": run }),
        }
    }

    /// A campaign of 10 runs where runs 4 and 7 fail, whole and in 3 shards.
    #[test]
    fn shards_merge_to_the_whole_campaign() {
        let outcome = |k: u64| if k == 4 || k == 7 { "failed" } else { "ok" };
        let whole = CampaignReport::new(
            "run",
            serde_json::json!({ "seed": 10 }),
            10,
            None,
            (0..=4).map(|k| record(k, outcome(k))).collect(),
            Some(failure(4)),
        );
        let shards: Vec<(PathBuf, CampaignReport)> = (0..3)
            .map(|i| {
                let shard = Shard { index: i, count: 3 };
                let mut runs = Vec::new();
                let mut first = None;
                for k in (0..10).filter(|&k| shard.takes(k)) {
                    runs.push(record(k, outcome(k)));
                    if outcome(k) == "failed" {
                        first = Some(failure(k));
                        break;
                    }
                }
                let r = CampaignReport::new(
                    "run",
                    serde_json::json!({ "seed": 10 }),
                    10,
                    Some(shard),
                    runs,
                    first,
                );
                (PathBuf::from(format!("s{i}")), r)
            })
            .collect();
        let merged = merge_reports(shards.clone()).expect("merges");
        assert_eq!(merged.to_text(), whole.to_text());
        // A missing shard, a repeated one and a foreign campaign are errors.
        assert!(merge_reports(shards[..2].to_vec())
            .unwrap_err()
            .contains("shard 2/3 is missing"));
        let mut twice = shards.clone();
        twice[2] = twice[1].clone();
        assert!(merge_reports(twice).unwrap_err().contains("both shard 1/3"));
        let mut foreign = shards;
        foreign[1].1.campaign = serde_json::json!({ "seed": 11 });
        assert!(merge_reports(foreign)
            .unwrap_err()
            .contains("different campaigns"));
        assert_eq!(Shard::parse("1/3"), Ok(Shard { index: 1, count: 3 }));
        assert!(Shard::parse("3/3").is_err());
        assert!(Shard::parse("x").is_err());
    }
}
