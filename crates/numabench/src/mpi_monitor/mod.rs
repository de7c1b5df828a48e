//! Running a launch under the MPI runtime monitor (`libnumabench_mpi.so`),
//! reading what it wrote, and the per-rank summary `numabench run
//! --mpi-monitor` prints, and the POP efficiencies of each run. The monitor
//! itself is the `numabench-mpi` crate; its records follow the results
//! schema (`docs/results.md`, section "MPI runtime monitor").

mod launch;
mod pop;
mod rank_table;
mod read;

pub use launch::{
    locate_library, monitor_environment, LibraryError, MonitorExecutor, MonitorResults,
    OMPI_FORWARD_ENV, OUT_ENV,
};
pub use pop::{pop_records, POP_METRICS};
pub use rank_table::{call_table, summary_table, CALL_ROWS};
pub use read::{partial_files, read_monitor_output, MonitorOutput};

/// The `benchmark` of every monitor record.
pub const BENCHMARK: &str = numabench_schema::benchmark::MPI_MONITOR;

#[cfg(test)]
mod tests;
