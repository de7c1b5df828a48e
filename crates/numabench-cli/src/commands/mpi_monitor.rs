//! `numabench run --mpi-monitor`: the command line's side of running an MPI
//! launch under the monitor (`numabench::mpi_monitor` does the work): the
//! library refused as a usage error, the environment set and the per-rank
//! summary printed (the records go through run's outputs as each run ends).

use crate::exit::CliError;
use numabench::mpi_monitor::{locate_library, monitor_environment, summary_table, MonitorResults};
use std::path::{Path, PathBuf};

/// libnumabench_mpi.so ([`locate_library`]); not found, or built without
/// its `mpi` feature: a usage error (exit 2), before anything runs.
pub fn library() -> Result<PathBuf, CliError> {
    locate_library().map_err(|error| CliError::usage(format!("--mpi-monitor: {error}")))
}

/// Preloads `library` into everything the command starts and tells the
/// monitor where to write ([`monitor_environment`], in numabench's private
/// folder, mode 0700), in numabench's own environment, which the command
/// inherits (local ranks, `srun`; OpenMPI's mpirun forwards the variables to
/// other hosts). Returns the monitor's output file.
///
/// Call before any thread starts (it changes the process environment).
pub fn prepare(library: &Path) -> Result<PathBuf, CliError> {
    let folder = numabench::private_dir::path().map_err(|error| {
        CliError::system(format!(
            "--mpi-monitor: cannot create a private temporary folder: {error}"
        ))
    })?;
    let (variables, out) = monitor_environment(library, &folder, |name| std::env::var(name).ok());
    for (name, value) in variables {
        std::env::set_var(name, value);
    }
    Ok(out)
}

/// Prints the summary (unless `--json`) and the monitor's warnings; its
/// records went through run's outputs as each run ended.
pub fn finish(results: MonitorResults, json: bool) {
    if !json && !results.records.is_empty() {
        println!("\nMPI monitor\n{}", summary_table(&results.records));
    }
    for warning in &results.warnings {
        eprintln!("numabench: warning: {warning}");
    }
}
