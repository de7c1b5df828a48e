//! The over-decomposition study (`numabench overdecompose`): a red-black
//! SOR kernel on a 2-D grid split into horizontal strips, one per MPI
//! rank, with blocking halo exchanges after each colour, run with K = 1,
//! 2, 4, ... ranks per core under the MPI runtime monitor.
//!
//! The MPI-free parts are always built and unit-tested: the strip
//! decomposition, the sweep on a strip with halos, the serial reference
//! and the comparison with it, the communication-share size model, the
//! reading of the monitor's output, the orchestration (which starts
//! `mpirun`, an ordinary process) and the summaries. Only the worker that
//! runs inside each rank needs the `mpi` feature.

mod config;
mod grid;
mod hosts;
mod launch;
mod model;
mod monitor;
mod placement;
mod rank_threads;
mod run_sweep;
mod schedule;
mod serial;
mod strips;
mod sweep;
#[cfg(feature = "mpi")]
mod worker;
mod worker_config;

pub use config::{
    parse_comm_shares, parse_ranks_per_core, Configuration, ListError, OverdecomposePlan,
    PlannedConfiguration, StudyConfig, DEFAULT_NX, DEFAULT_OMEGA, MAX_RANKS_PER_CORE,
    ROWS_CALIBRATED,
};
pub use grid::{boundary_value, HaloViews, StripGrid};
pub use hosts::{HostSource, Hosts, HostsError, Misplaced};
pub use launch::{LaunchError, Launcher};
pub use model::{choose_rows, iterations_for, Calibration, SizeChoice};
pub use monitor::{
    find_monitor_library, monitor_figures, MonitorFigures, MonitorLibraryError, MonitorOutputError,
    MONITOR_LIBRARY, MONITOR_LIBRARY_ENV, MONITOR_OUT_ENV,
};
pub use placement::{core_cpus, cpu_for_local_rank};
pub use rank_threads::{pin_all_threads, threads_not_on};
pub use run_sweep::{
    calibrate, calibration_records, run_overdecompose, set_speedups, OverdecomposeError,
    StudyOutcome,
};
pub use schedule::{flips_before, samples_after, Trail, FLIP_EVERY, TRAIL_EVERY};
pub use serial::{checksum, compare, serial_solve, serial_solve_traced, Comparison};
pub use strips::{strips, Strip};
pub use sweep::{render_sweep, ConfigSummary, RunResult};
#[cfg(feature = "mpi")]
pub use worker::{run_worker, WorkerError};
pub use worker_config::{
    HostRanks, Verification, WorkerConfig, WorkerReport, SKIP_EXCHANGE_ENV, WORKER_SUBCOMMAND,
};

#[cfg(test)]
mod tests;
