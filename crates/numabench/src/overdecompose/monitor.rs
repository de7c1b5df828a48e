//! The MPI runtime monitor's side of the study: finding
//! `libnumabench_mpi.so`, and adding up the records it writes at
//! MPI_Finalize (read by the one results reader; per-rank records carry
//! `params.rank`, per-host ones `params.ranks_on_host`).

use crate::output::{ReadError, Record};
use numabench_schema::params::{MonitorHostParams, MonitorRankParams};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The monitor library's file name.
pub const MONITOR_LIBRARY: &str = "libnumabench_mpi.so";

/// The environment variable that names the monitor library.
pub const MONITOR_LIBRARY_ENV: &str = "NUMABENCH_MPI_LIB";

/// The environment variable that tells the monitor where to write.
pub const MONITOR_OUT_ENV: &str = "NUMABENCH_MPI_MONITOR_OUT";

/// Why the monitor library cannot be used.
///
/// Always the user's fault: the library is theirs to build or to name.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum MonitorLibraryError {
    #[error(transparent)]
    NotAFile(#[from] crate::companions::NotAFile),
    #[error("the MPI monitor {MONITOR_LIBRARY} was not found beside numabench ({dir}), in its deps/ nor in ../lib: build it with `cargo build -p numabench-mpi --features mpi` (same profile) or set {MONITOR_LIBRARY_ENV}")]
    NotFound { dir: String },
}

crate::error::all_faulty!(Usage: MonitorLibraryError);

/// The monitor library: `env` (the value of [`MONITOR_LIBRARY_ENV`],
/// which must name a file), else where [`crate::companions`] looks beside
/// the executable `exe` ([`crate::companions::locate`]).
pub fn find_monitor_library(
    env: Option<OsString>,
    exe: Option<&Path>,
) -> Result<PathBuf, MonitorLibraryError> {
    crate::companions::locate(MONITOR_LIBRARY_ENV, env, exe, MONITOR_LIBRARY)?.ok_or_else(|| {
        let dir = exe.and_then(Path::parent).unwrap_or(Path::new("."));
        MonitorLibraryError::NotFound {
            dir: dir.display().to_string(),
        }
    })
}

/// What one monitored run adds up to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MonitorFigures {
    /// Ranks that reported.
    pub ranks: usize,
    /// Hosts that reported TLP figures.
    pub hosts: usize,
    /// The longest rank's monitored wall time, s.
    pub wall_s: f64,
    /// Time in blocking MPI calls over wall time, mean over ranks.
    pub mpi_share: f64,
    /// User and system time summed over ranks, s.
    pub user_s: f64,
    pub system_s: f64,
    /// Voluntary plus involuntary context switches summed over ranks.
    pub context_switches: f64,
    /// TLP_1 and TLP_2, mean over hosts.
    pub tlp_1: f64,
    pub tlp_2: f64,
}

/// Why the monitor's output gave no figures.
///
/// Always the system's fault: the monitor numabench loaded wrote nothing usable.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum MonitorOutputError {
    #[error("the monitor's output is not readable: {0}")]
    Unreadable(#[from] ReadError),
    #[error(
        "the monitor's output has no {0} records (is {MONITOR_LIBRARY} built with --features mpi?)"
    )]
    Missing(&'static str),
}

crate::error::all_faulty!(System: MonitorOutputError);

/// Adds up the monitor's records of one run.
pub fn monitor_figures(records: &[Record]) -> Result<MonitorFigures, MonitorOutputError> {
    let mut per_rank: Vec<(i64, &str, f64)> = Vec::new();
    let mut per_host: Vec<(&str, f64)> = Vec::new();
    for record in records {
        let (metric, figure) = (record.metric.as_str(), record.value);
        if let Some(rank) = record.params_or_default::<MonitorRankParams>().rank {
            per_rank.push((rank, metric, figure));
        } else if record
            .params_or_default::<MonitorHostParams>()
            .ranks_on_host
            .is_some()
        {
            per_host.push((metric, figure));
        }
    }
    let rank_values = |name: &str| -> Vec<f64> {
        per_rank
            .iter()
            .filter(|(_, metric, _)| *metric == name)
            .map(|(_, _, value)| *value)
            .collect()
    };
    let host_values = |name: &str| -> Vec<f64> {
        per_host
            .iter()
            .filter(|(metric, _)| *metric == name)
            .map(|(_, value)| *value)
            .collect()
    };
    let require = |values: Vec<f64>, what: &'static str| {
        if values.is_empty() {
            Err(MonitorOutputError::Missing(what))
        } else {
            Ok(values)
        }
    };
    let wall = require(rank_values("wall_time"), "per-rank wall_time")?;
    let share = require(rank_values("mpi_share"), "per-rank mpi_share")?;
    let user = require(rank_values("user_time"), "per-rank user_time")?;
    let system = require(rank_values("system_time"), "per-rank system_time")?;
    let voluntary = require(
        rank_values("voluntary_switches"),
        "per-rank voluntary_switches",
    )?;
    let involuntary = require(
        rank_values("involuntary_switches"),
        "per-rank involuntary_switches",
    )?;
    let tlp_1 = require(host_values("tlp_1"), "per-host tlp_1")?;
    let tlp_2 = require(host_values("tlp_2"), "per-host tlp_2")?;
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
    let mut ranks: Vec<i64> = per_rank.iter().map(|(rank, _, _)| *rank).collect();
    ranks.sort_unstable();
    ranks.dedup();
    Ok(MonitorFigures {
        ranks: ranks.len(),
        hosts: tlp_1.len(),
        wall_s: wall.iter().copied().fold(0.0, f64::max),
        mpi_share: mean(&share),
        user_s: user.iter().sum(),
        system_s: system.iter().sum(),
        context_switches: voluntary.iter().sum::<f64>() + involuntary.iter().sum::<f64>(),
        tlp_1: mean(&tlp_1),
        tlp_2: mean(&tlp_2),
    })
}
