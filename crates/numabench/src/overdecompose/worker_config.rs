//! What one worker run (all ranks of one `mpirun`) solves, as the hidden
//! `overdecompose-worker` subcommand takes it, and what its rank 0 reports
//! back on stdout (one JSON line).

use serde::{Deserialize, Serialize};

/// The name of the hidden subcommand each MPI rank runs.
pub const WORKER_SUBCOMMAND: &str = "overdecompose-worker";

/// Fault injection for tests only: when a worker rank finds this variable
/// set to an iteration number, it skips the halo exchange after that
/// iteration's red half-sweep (every rank reads it, so all skip the same
/// one and none waits). The tests set it to show that the bit-for-bit
/// check catches a single missed exchange; nothing else should set it.
pub const SKIP_EXCHANGE_ENV: &str = "NUMABENCH_TEST_SKIP_EXCHANGE";

/// One worker run: the grid, the iterations and how ranks are placed.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerConfig {
    /// Interior columns.
    pub nx: usize,
    /// Interior rows of the whole grid (split over the ranks).
    pub ny: usize,
    /// Red-black iterations (each: red half-sweep, exchange, black, exchange).
    pub iterations: usize,
    /// SOR relaxation factor.
    pub omega: f64,
    /// Ranks sharing each core: local rank r is pinned to core r / K.
    pub ranks_per_core: usize,
    /// Gather the grid and compare it with a serial run (after MPI_Finalize).
    pub verify: bool,
    /// Test-only fault injection: the iteration after whose red half-sweep
    /// the exchange is skipped (from [`SKIP_EXCHANGE_ENV`]; never passed on
    /// the command line).
    pub skip_exchange: Option<usize>,
}

impl WorkerConfig {
    /// The worker's arguments after the program name.
    pub fn args(&self) -> Vec<String> {
        let mut args = vec![
            WORKER_SUBCOMMAND.to_string(),
            "--nx".into(),
            self.nx.to_string(),
            "--ny".into(),
            self.ny.to_string(),
            "--iterations".into(),
            self.iterations.to_string(),
            "--omega".into(),
            self.omega.to_string(),
            "--ranks-per-core".into(),
            self.ranks_per_core.to_string(),
        ];
        if !self.verify {
            args.push("--no-verify".into());
        }
        args
    }
}

/// The serial comparison of the gathered grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    /// Every value has the serial run's bits, and every rank's trail (its
    /// strip's sums sampled during the run) is the serial run's.
    pub identical: bool,
    /// Every rank's trail matched the serial run's (false also when the
    /// final grids match: an error made mid-run and damped out since).
    pub trail_identical: bool,
    /// Largest absolute difference to the serial run.
    pub max_abs_diff: f64,
    /// Checksum of the gathered grid.
    pub checksum: String,
    /// Checksum of the serial grid.
    pub serial_checksum: String,
}

/// One host of a run and how many of its ranks ran there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostRanks {
    /// The host's name (gethostname of its ranks).
    pub host: String,
    pub ranks: usize,
}

impl HostRanks {
    /// The hosts of `names` (every rank's host, by rank) in the order of
    /// their first rank, each with its number of ranks.
    pub fn of(names: &[String]) -> Vec<HostRanks> {
        let mut hosts: Vec<HostRanks> = Vec::new();
        for name in names {
            match hosts.iter_mut().find(|host| &host.host == name) {
                Some(host) => host.ranks += 1,
                None => hosts.push(HostRanks {
                    host: name.clone(),
                    ranks: 1,
                }),
            }
        }
        hosts
    }
}

/// What rank 0 prints after MPI_Finalize: one JSON line on stdout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerReport {
    /// Ranks in MPI_COMM_WORLD.
    pub ranks: usize,
    pub nx: usize,
    pub ny: usize,
    pub iterations: usize,
    /// The slowest rank's time for the iterations (after a barrier), s.
    pub time_s: f64,
    /// Seconds computing, mean over ranks.
    pub compute_s: f64,
    /// Seconds in the blocking halo exchanges, mean over ranks.
    pub exchange_s: f64,
    /// The timed loop's share of time in the blocking halo exchanges: each
    /// rank's exchange time over its loop time, mean over ranks.
    pub comm_share: f64,
    /// Fewest and most rows a rank held.
    pub rows_min: usize,
    pub rows_max: usize,
    /// The CPU each rank was pinned to, in rank order.
    pub cpus: Vec<u32>,
    /// The hosts the ranks ran on, in the order of their first rank.
    pub hosts: Vec<HostRanks>,
    /// User and system CPU time over the iterations, summed over ranks, s
    /// (getrusage of each rank's process, its MPI library's threads included).
    pub user_s: f64,
    pub system_s: f64,
    /// Voluntary plus involuntary context switches over the iterations,
    /// summed over ranks.
    pub context_switches: f64,
    /// Threads of the ranks (MPI's helper threads included) whose affinity
    /// was not their rank's CPU alone after the iterations, summed over
    /// ranks (0 when every thread stayed pinned; `None` when a rank could
    /// not read its threads).
    pub threads_off_cpu: Option<usize>,
    /// The serial comparison (absent with `--no-verify`).
    pub verification: Option<Verification>,
}

impl WorkerReport {
    /// The share of the cores' time over the iterations no rank used:
    /// 1 - (user + system) / (cores x time).
    pub fn idle_share(&self, cores: usize) -> Option<f64> {
        let capacity = cores as f64 * self.time_s;
        (capacity > 0.0).then(|| 1.0 - (self.user_s + self.system_s) / capacity)
    }

    /// The report in the last line of a worker's stdout that parses as one.
    pub fn from_output(stdout: &str) -> Option<Self> {
        stdout
            .lines()
            .rev()
            .find_map(|line| serde_json::from_str(line.trim()).ok())
    }
}
