//! A validated `numabench overdecompose`, and the configurations it runs
//! (one per target communication share and K), for `--plan` and the run.

use super::hosts::Hosts;
use super::launch::Launcher;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The largest K (ranks per core) the study takes.
pub const MAX_RANKS_PER_CORE: usize = 32;

/// Default grid columns: short rows keep the exchange latency-bound, so
/// even a 75% share leaves each of many ranks per core a row.
pub const DEFAULT_NX: usize = 128;

/// Default SOR relaxation factor.
pub const DEFAULT_OMEGA: f64 = 1.5;

/// A validated study.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyConfig {
    /// Target shares of blocking communication at K = 1 (0..1, exclusive).
    pub shares: Vec<f64>,
    /// Ranks per core, ascending, 1 first (the baseline of the speedups).
    pub ranks_per_core: Vec<usize>,
    /// Cores used on every host; the ranks of core i run on `core_cpus[i]`.
    pub cores: usize,
    /// The CPU of each core used, in the order the worker ranks pick them
    /// (cores-first over the allowed CPUs).
    pub core_cpus: Vec<u32>,
    /// Runs of each configuration, interleaved.
    pub repeat: usize,
    /// Grid columns.
    pub nx: usize,
    pub omega: f64,
    /// Iterations of every run; `None`: chosen by calibration so a K = 1
    /// run takes about `run_seconds`.
    pub iterations: Option<usize>,
    pub run_seconds: f64,
    /// How workers start, and on which hosts.
    pub launcher: Launcher,
    /// libnumabench_mpi.so (`None` only for a plan).
    pub monitor: Option<PathBuf>,
}

/// Why a `--ranks-per-core` or `--comm-share` list was refused; `list` is
/// the whole list given, `item` the value refused.
///
/// Fault: always the user's (the list given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error("invalid --ranks-per-core '{list}': '{item}' is not a whole number from 1 to {MAX_RANKS_PER_CORE}")]
    RanksPerCore { list: String, item: String },
    #[error(
        "invalid --comm-share '{list}': '{item}' is not a percentage between 0 and 100 (exclusive)"
    )]
    CommShare { list: String, item: String },
}

crate::error::all_faulty!(Usage: ListError);

/// Parses `--ranks-per-core`: each 1..=32; sorted, duplicates dropped,
/// and K = 1 added when missing (the speedups' baseline).
pub fn parse_ranks_per_core(text: &str) -> Result<Vec<usize>, ListError> {
    let mut values = Vec::new();
    for item in text.split(',') {
        match item.trim().parse::<usize>() {
            Ok(k) if (1..=MAX_RANKS_PER_CORE).contains(&k) => values.push(k),
            _ => {
                return Err(ListError::RanksPerCore {
                    list: text.to_string(),
                    item: item.to_string(),
                })
            }
        }
    }
    values.push(1);
    values.sort_unstable();
    values.dedup();
    Ok(values)
}

/// Parses `--comm-share`: percentages strictly between 0 and 100, as
/// fractions, in the order given, duplicates dropped.
pub fn parse_comm_shares(text: &str) -> Result<Vec<f64>, ListError> {
    let mut values: Vec<f64> = Vec::new();
    for item in text.split(',') {
        match item.trim().trim_end_matches('%').parse::<f64>() {
            Ok(percent) if percent > 0.0 && percent < 100.0 => {
                let share = percent / 100.0;
                if !values.contains(&share) {
                    values.push(share);
                }
            }
            _ => {
                return Err(ListError::CommShare {
                    list: text.to_string(),
                    item: item.to_string(),
                })
            }
        }
    }
    Ok(values)
}

/// What a plan says of the rows per core: they follow from the
/// calibration that starts every run.
pub const ROWS_CALIBRATED: &str = "calibrated at start";

/// The plan `overdecompose --plan --json` prints: the study's hosts,
/// cores and settings and each configuration it would run, in the order
/// of one round. A type, so the CLI writes the document by serializing it
/// and its readers read it through the same type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverdecomposePlan {
    /// Always `overdecompose`.
    pub benchmark: String,
    /// How many hosts run the ranks.
    pub hosts: usize,
    /// The hosts' names, where a hostfile or `--host` names them.
    pub host_names: Vec<String>,
    /// Where the hosts came from, in words.
    pub hosts_from: String,
    /// Cores used on every host.
    pub cores: usize,
    /// The CPU of each core used.
    pub core_cpus: Vec<u32>,
    /// Runs of each configuration, interleaved.
    pub repeat: usize,
    /// The SOR relaxation factor.
    pub omega: f64,
    /// Iterations of every run; null: calibrated.
    pub iterations: Option<usize>,
    /// Every (share, K), shares outermost.
    pub configurations: Vec<PlannedConfiguration>,
}

/// One configuration of [`OverdecomposePlan`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedConfiguration {
    /// The target share of blocking communication at K = 1 (0..1).
    pub target_comm_share: f64,
    /// K: ranks per core.
    pub ranks_per_core: usize,
    /// Ranks over every host.
    pub ranks: usize,
    /// Ranks on each host.
    pub ranks_per_host: usize,
    /// The CPU of each rank on one host, in rank order (null: none).
    pub rank_cpus: Vec<Option<u32>>,
    /// Grid columns.
    pub nx: usize,
    /// Always [`ROWS_CALIBRATED`]: the rows follow from the calibration.
    pub rows_per_core: String,
}

/// One configuration of the study.
#[derive(Debug, Clone, PartialEq)]
pub struct Configuration {
    pub share: f64,
    pub ranks_per_core: usize,
    pub ranks: usize,
}

impl StudyConfig {
    /// The hosts the ranks run on.
    pub fn hosts(&self) -> &Hosts {
        &self.launcher.hosts
    }

    /// Cores over every host.
    pub fn all_cores(&self) -> usize {
        self.cores * self.hosts().count()
    }

    /// Every (share, K), shares outermost: the order of one round.
    pub fn configurations(&self) -> Vec<Configuration> {
        self.shares
            .iter()
            .flat_map(|&share| {
                self.ranks_per_core.iter().map(move |&k| Configuration {
                    share,
                    ranks_per_core: k,
                    ranks: k * self.all_cores(),
                })
            })
            .collect()
    }

    /// The CPU of each rank of a configuration on one host, in rank order
    /// (every host places its ranks alike).
    pub fn rank_cpus(&self, configuration: &Configuration) -> Vec<Option<u32>> {
        let k = configuration.ranks_per_core.max(1);
        (0..k * self.cores)
            .map(|rank| self.core_cpus.get(rank / k).copied())
            .collect()
    }

    /// The plan `--plan --json` prints ([`OverdecomposePlan`]).
    pub fn plan(&self) -> OverdecomposePlan {
        let configurations = self
            .configurations()
            .iter()
            .map(|configuration| PlannedConfiguration {
                target_comm_share: configuration.share,
                ranks_per_core: configuration.ranks_per_core,
                ranks: configuration.ranks,
                ranks_per_host: configuration.ranks / self.hosts().count(),
                rank_cpus: self.rank_cpus(configuration),
                nx: self.nx,
                rows_per_core: ROWS_CALIBRATED.to_string(),
            })
            .collect();
        OverdecomposePlan {
            benchmark: "overdecompose".to_string(),
            hosts: self.hosts().count(),
            host_names: self.hosts().names.clone(),
            hosts_from: self.hosts().to_string(),
            cores: self.cores,
            core_cpus: self.core_cpus.clone(),
            repeat: self.repeat,
            omega: self.omega,
            iterations: self.iterations,
            configurations,
        }
    }

    /// The plan as text: what would run, without running anything.
    pub fn plan_text(&self) -> String {
        let mut text = String::new();
        let _ = writeln!(
            text,
            "overdecompose: red-black SOR on {} columns x (rows per core x {} cores) rows, omega {},\n  strips of rows per rank, blocking halo exchange after each colour",
            self.nx,
            self.all_cores(),
            self.omega
        );
        if self.hosts().several() {
            let _ = writeln!(
                text,
                "hosts: {}; each runs K x {} ranks\n  (mpirun --map-by ppr:RANKS:node: consecutive ranks on one host; every run checks where they ran)",
                self.hosts(),
                self.cores
            );
        }
        let _ = writeln!(
            text,
            "calibration first: 1 rank per core ({} ranks) measures compute time per point and\n  exchange time per half-sweep; rows per core for each share follow from it (at least the largest K)",
            self.all_cores()
        );
        match self.iterations {
            Some(iterations) => {
                let _ = writeln!(text, "iterations: {iterations}");
            }
            None => {
                let _ = writeln!(
                    text,
                    "iterations: calibrated so a K=1 run takes about {:.2} s",
                    self.run_seconds
                );
            }
        }
        let _ = writeln!(
            text,
            "{} configurations x {} repetitions, interleaved;\n  launched as {} -np RANKS ... {}",
            self.configurations().len(),
            self.repeat,
            self.launcher.mpirun,
            super::worker_config::WORKER_SUBCOMMAND
        );
        for configuration in self.configurations() {
            let cpus: Vec<String> = self
                .rank_cpus(&configuration)
                .iter()
                .map(|cpu| cpu.map_or("?".to_string(), |cpu| cpu.to_string()))
                .collect();
            let _ = writeln!(
                text,
                "  comm share {:>3.0}%  K={:<2}  ranks {:<3}  CPU per rank{} (rank order): {}",
                configuration.share * 100.0,
                configuration.ranks_per_core,
                configuration.ranks,
                if self.hosts().several() {
                    " on each host"
                } else {
                    ""
                },
                cpus.join(",")
            );
        }
        text
    }
}
