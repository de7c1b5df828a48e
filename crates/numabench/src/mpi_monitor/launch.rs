//! Running an MPI launch (`mpirun ...`, `srun ...`) with the monitor
//! preloaded into its ranks: finding the monitoring library, the
//! environment that preloads it and tells it where to write, and an
//! [`Executor`] that collects what it wrote after each run.

use super::read::{partial_files, read_monitor_output};
use crate::output::Record;
use crate::runner::{Executor, Invocation, RunError, RunOutcome};
use numabench_schema::params::{to_params, MonitorRunTags};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The monitor's file name.
pub const LIBRARY: &str = "libnumabench_mpi.so";
/// Names the library explicitly.
pub const LIBRARY_ENV: &str = "NUMABENCH_MPI_LIB";
/// Where the monitor's rank 0 writes its records.
pub const OUT_ENV: &str = "NUMABENCH_MPI_MONITOR_OUT";
/// OpenMPI's list of variables mpirun forwards to every rank, remote
/// hosts included (it forwards nothing by default).
pub const OMPI_FORWARD_ENV: &str = "OMPI_MCA_mca_base_env_list";
/// How to build a library that monitors.
pub const BUILD: &str = "cargo build --release -p numabench-mpi --features mpi";

/// The monitoring library cannot be used.
///
/// Always the user's fault: the library is theirs to build or to name.
#[derive(Debug, Error)]
pub enum LibraryError {
    #[error(transparent)]
    NotAFile(#[from] crate::companions::NotAFile),
    #[error("{LIBRARY} not found beside numabench: build it with `{BUILD}` or set {LIBRARY_ENV}")]
    NotFound,
    #[error("'{0}' is not a monitoring {LIBRARY} (built without its mpi feature?): build it with `{BUILD}`")]
    NotMonitoring(PathBuf),
}

crate::error::all_faulty!(Usage: LibraryError);

/// libnumabench_mpi.so: `$NUMABENCH_MPI_LIB` (which must name a file),
/// else beside this executable, in its `deps/` (where `cargo test` builds
/// it) or in the install prefix's `lib/` ([`crate::companions`]). A library
/// built without its `mpi` feature (the default workspace build makes an
/// empty one, which would monitor nothing) is refused: only the
/// monitoring build reads [`OUT_ENV`].
pub fn locate_library() -> Result<PathBuf, LibraryError> {
    let path =
        crate::companions::locate_here(LIBRARY_ENV, LIBRARY)?.ok_or(LibraryError::NotFound)?;
    let monitors = std::fs::read(&path).is_ok_and(|bytes| {
        bytes
            .windows(OUT_ENV.len())
            .any(|window| window == OUT_ENV.as_bytes())
    });
    match monitors {
        true => Ok(path),
        false => Err(LibraryError::NotMonitoring(path)),
    }
}

/// What the process environment needs so that everything a command starts
/// is monitored: `LD_PRELOAD` with `library` first (`existing` is the
/// current value of each variable), [`OUT_ENV`] naming `folder`'s
/// `mpi-monitor.jsonl`, the private-folder variable naming `folder` (for
/// the monitor's other files), and the three names added to
/// [`OMPI_FORWARD_ENV`] so that OpenMPI's mpirun forwards them to ranks on
/// other hosts. Returns the variables to set and the output file.
pub fn monitor_environment(
    library: &Path,
    folder: &Path,
    existing: impl Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, PathBuf) {
    let private = crate::private_dir::ENV;
    let out = folder.join("mpi-monitor.jsonl");
    let preload = match existing("LD_PRELOAD") {
        Some(current) if !current.is_empty() => format!("{}:{current}", library.display()),
        _ => library.display().to_string(),
    };
    let forward = match existing(OMPI_FORWARD_ENV) {
        Some(current) if !current.is_empty() => {
            format!("{current};LD_PRELOAD;{OUT_ENV};{private}")
        }
        _ => format!("LD_PRELOAD;{OUT_ENV};{private}"),
    };
    let variables = vec![
        ("LD_PRELOAD".to_string(), preload),
        (OUT_ENV.to_string(), out.display().to_string()),
        (private.to_string(), folder.display().to_string()),
        (OMPI_FORWARD_ENV.to_string(), forward),
    ];
    (variables, out)
}

/// What the monitor left over a whole study.
#[derive(Debug, Default)]
pub struct MonitorResults {
    /// Every timed run's records, tagged with `policy`, `repetition` and
    /// `command` (for the summary: the rounds emitted them as each run
    /// ended, [`Executor::take_records`]).
    pub records: Vec<Record>,
    /// Warnings, one line each, in the order they arose.
    pub warnings: Vec<String>,
}

/// Runs each invocation through `inner`, then collects the records the
/// monitor wrote for it (skipping the warm-up runs), tagged with the
/// policy and the repetition.
pub struct MonitorExecutor {
    inner: Box<dyn Executor>,
    out: PathBuf,
    /// Runs before the timed ones (warm-ups x policies).
    warmups: usize,
    runs: usize,
    repetitions: BTreeMap<String, usize>,
    results: MonitorResults,
    /// The last run's records, until [`Executor::take_records`].
    pending: Vec<Record>,
    missing: usize,
}

impl std::fmt::Debug for MonitorExecutor {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("MonitorExecutor")
            .field("out", &self.out)
            .field("warmups", &self.warmups)
            .field("runs", &self.runs)
            .finish_non_exhaustive()
    }
}

impl MonitorExecutor {
    /// `out`: the file the monitor writes ([`monitor_environment`]).
    pub fn new(inner: Box<dyn Executor>, out: PathBuf, warmups: usize) -> Self {
        Self {
            inner,
            out,
            warmups,
            runs: 0,
            repetitions: BTreeMap::new(),
            results: MonitorResults::default(),
            pending: Vec::new(),
            missing: 0,
        }
    }

    /// The records and warnings of every run, with one more warning when
    /// runs left no records; removes the monitor's files.
    pub fn finish(mut self) -> MonitorResults {
        if self.missing > 0 {
            self.results.warnings.push(format!(
                "--mpi-monitor: {} run(s) left no monitor records (not an MPI program, no MPI_Finalize, the launcher did not pass LD_PRELOAD to the ranks, or rank 0 ran on another host, which cannot see numabench's folder in /dev/shm: run numabench on rank 0's node)",
                self.missing
            ));
        }
        self.remove_outputs();
        self.results
    }

    /// Removes the monitor's file and any partial files beside it.
    fn remove_outputs(&self) {
        let _ = std::fs::remove_file(&self.out);
        for partial in partial_files(&self.out) {
            let _ = std::fs::remove_file(partial);
        }
    }
}

impl Executor for MonitorExecutor {
    fn execute(
        &mut self,
        invocation: &Invocation,
        node_of_cpu: &(dyn Fn(u32) -> Option<u32> + Sync),
    ) -> Result<RunOutcome, RunError> {
        self.remove_outputs();
        self.pending.clear();
        let outcome = self.inner.execute(invocation, node_of_cpu)?;
        self.runs += 1;
        let output = read_monitor_output(&self.out);
        self.remove_outputs();
        if self.runs <= self.warmups {
            return Ok(outcome);
        }
        let label = invocation.policy.label.clone();
        // A parameter scan runs several commands under one policy: each
        // (policy, command) pair counts its own repetitions.
        let command = invocation.command.join(" ");
        let repetition = self
            .repetitions
            .entry(format!("{label}\u{0}{command}"))
            .or_default();
        *repetition += 1;
        match output {
            Some(Ok(output)) if !output.records.is_empty() => {
                if output.partial {
                    self.results.warnings.push(format!(
                        "--mpi-monitor: run {} of '{label}' did not reach MPI_Finalize: its monitor records are the ranks' last partial snapshots (params.partial)",
                        *repetition
                    ));
                }
                let tags = to_params(&MonitorRunTags {
                    policy: Some(label.clone()),
                    repetition: Some(*repetition as u64),
                    command: Some(command.clone()),
                });
                let pop = super::pop_records(&output.records, &tags);
                for mut record in output.records {
                    record.params.extend(tags.clone());
                    self.pending.push(record);
                }
                self.pending.extend(pop);
                self.results.records.extend(self.pending.iter().cloned());
            }
            Some(Err(error)) => {
                self.results.warnings.push(format!(
                    "--mpi-monitor: unreadable monitor output ({error})"
                ));
                self.missing += 1;
            }
            _ => self.missing += 1,
        }
        Ok(outcome)
    }

    fn take_records(&mut self) -> Vec<Record> {
        std::mem::take(&mut self.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The preload goes first, the existing value after; the forwarded
    /// names are added to OpenMPI's list.
    #[test]
    fn the_environment_preloads_the_monitor_and_forwards_its_variables() {
        let existing = |name: &str| match name {
            "LD_PRELOAD" => Some("/other.so".to_string()),
            OMPI_FORWARD_ENV => Some("A".to_string()),
            _ => None,
        };
        let (variables, out) =
            monitor_environment(Path::new("/lib/m.so"), Path::new("/private"), existing);
        assert_eq!(out, Path::new("/private/mpi-monitor.jsonl"));
        let get = |name: &str| {
            variables
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.as_str())
        };
        assert_eq!(get("LD_PRELOAD"), Some("/lib/m.so:/other.so"));
        assert_eq!(get(OUT_ENV), Some("/private/mpi-monitor.jsonl"));
        assert_eq!(get(crate::private_dir::ENV), Some("/private"));
        let forward = format!("A;LD_PRELOAD;{OUT_ENV};{}", crate::private_dir::ENV);
        assert_eq!(get(OMPI_FORWARD_ENV), Some(forward.as_str()));
        let (fresh, _) = monitor_environment(Path::new("/lib/m.so"), Path::new("/p"), |_| None);
        assert_eq!(fresh[0].1, "/lib/m.so");
    }
}
