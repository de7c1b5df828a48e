//! `numabench run --mpi-monitor`: runs an MPI launch (`mpirun ...`,
//! `srun ...`) with the MPI runtime monitor preloaded into its ranks, then
//! passes the monitor's records through run's outputs and prints a
//! per-rank summary.

use crate::exit::CliError;
use numabench::mpi_monitor::{partial_files, read_monitor_output, summary_table};
use numabench::output::{Pipeline, Record};
use numabench::runner::{Executor, Invocation, RunError, RunOutcome};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

const LIBRARY: &str = "libnumabench_mpi.so";
/// Names the library explicitly.
const LIBRARY_ENV: &str = "NUMABENCH_MPI_LIB";
/// Where the monitor's rank 0 writes its records.
const OUT_ENV: &str = "NUMABENCH_MPI_MONITOR_OUT";
/// The private folder the monitor keeps its other files in.
const TMPDIR_ENV: &str = numabench::private_dir::ENV;
/// OpenMPI's list of variables mpirun forwards to every rank, remote
/// hosts included (it forwards nothing by default).
const OMPI_FORWARD_ENV: &str = "OMPI_MCA_mca_base_env_list";

/// How to build a library that monitors.
const BUILD: &str = "cargo build --release -p numabench-mpi --features mpi";

/// libnumabench_mpi.so: `$NUMABENCH_MPI_LIB` (which must name a file),
/// else beside this executable, in its `deps/` (where `cargo test`
/// builds it) or in the install prefix's `lib/` (`numabench::companions`). Not found, or built without its `mpi` feature (the default
/// workspace build makes an empty one, which would monitor nothing): a
/// usage error (exit 2), before anything runs.
pub fn library() -> Result<PathBuf, CliError> {
    let path = numabench::companions::locate_here(LIBRARY_ENV, LIBRARY)
        .map_err(CliError::usage)?
        .ok_or_else(|| {
            CliError::usage(format!(
                "--mpi-monitor: {LIBRARY} not found beside numabench: build it with `{BUILD}` or set {LIBRARY_ENV}"
            ))
        })?;
    // Only the monitoring build reads the output variable.
    let monitors = std::fs::read(&path).is_ok_and(|bytes| {
        bytes
            .windows(OUT_ENV.len())
            .any(|window| window == OUT_ENV.as_bytes())
    });
    if !monitors {
        return Err(CliError::usage(format!(
            "--mpi-monitor: '{}' is not a monitoring {LIBRARY} (built without its mpi feature?): build it with `{BUILD}`",
            path.display()
        )));
    }
    Ok(path)
}

/// Preloads `library` into everything the command starts and tells the
/// monitor where to write: `LD_PRELOAD` (prepended),
/// `NUMABENCH_MPI_MONITOR_OUT` (a file, not yet existing, in numabench's
/// private folder, mode 0700) and `NUMABENCH_TMPDIR` (that folder, for the
/// monitor's other files) in numabench's own environment, which the
/// command inherits (local ranks, `srun`), and the names added to
/// `OMPI_MCA_mca_base_env_list` so that OpenMPI's mpirun forwards them to
/// ranks on other hosts. Returns the output file.
///
/// Call before any thread starts (it changes the process environment).
pub fn prepare(library: &std::path::Path) -> Result<PathBuf, CliError> {
    let folder = numabench::private_dir::path().map_err(|error| {
        CliError::system(format!(
            "--mpi-monitor: cannot create a private temporary folder: {error}"
        ))
    })?;
    let out = folder.join("mpi-monitor.jsonl");
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(existing) if !existing.is_empty() => format!("{}:{existing}", library.display()),
        _ => library.display().to_string(),
    };
    let forward = match std::env::var(OMPI_FORWARD_ENV) {
        Ok(existing) if !existing.is_empty() => {
            format!("{existing};LD_PRELOAD;{OUT_ENV};{TMPDIR_ENV}")
        }
        _ => format!("LD_PRELOAD;{OUT_ENV};{TMPDIR_ENV}"),
    };
    std::env::set_var("LD_PRELOAD", preload);
    std::env::set_var(OUT_ENV, &out);
    std::env::set_var(TMPDIR_ENV, &folder);
    std::env::set_var(OMPI_FORWARD_ENV, forward);
    Ok(out)
}

/// Runs each invocation through `inner`, then collects the records the
/// monitor wrote for it (skipping the warm-up runs), tagged with the
/// policy and the repetition.
pub struct MonitorExecutor {
    pub inner: Box<dyn Executor>,
    pub out: PathBuf,
    /// Runs before the timed ones (warm-ups x policies).
    pub warmups: usize,
    runs: usize,
    repetitions: BTreeMap<String, usize>,
    records: Vec<Record>,
    missing: usize,
}

impl MonitorExecutor {
    pub fn new(inner: Box<dyn Executor>, out: PathBuf, warmups: usize) -> Self {
        Self {
            inner,
            out,
            warmups,
            runs: 0,
            repetitions: BTreeMap::new(),
            records: Vec::new(),
            missing: 0,
        }
    }

    /// Emits the collected records, prints the summary (unless `--json`)
    /// and says which runs left no records.
    pub fn finish(self, pipeline: &mut Pipeline, json: bool) -> Result<(), CliError> {
        for record in &self.records {
            pipeline.emit(record).map_err(CliError::system)?;
        }
        if !json && !self.records.is_empty() {
            println!("\nMPI monitor\n{}", summary_table(&self.records));
        }
        if self.missing > 0 {
            eprintln!(
                "numabench: warning: --mpi-monitor: {} run(s) left no monitor records (not an MPI program, no MPI_Finalize, or the launcher did not pass LD_PRELOAD to the ranks)",
                self.missing
            );
        }
        self.remove_outputs();
        Ok(())
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
                    eprintln!(
                        "numabench: warning: --mpi-monitor: run {} of '{label}' did not reach MPI_Finalize: its monitor records are the ranks' last partial snapshots (params.partial)",
                        *repetition
                    );
                }
                for mut record in output.records {
                    record
                        .params
                        .insert("policy".into(), Value::from(label.clone()));
                    record
                        .params
                        .insert("repetition".into(), Value::from(*repetition));
                    record
                        .params
                        .insert("command".into(), Value::from(command.clone()));
                    self.records.push(record);
                }
            }
            Some(Err(error)) => {
                eprintln!("numabench: warning: --mpi-monitor: unreadable monitor output ({error})");
                self.missing += 1;
            }
            _ => self.missing += 1,
        }
        Ok(outcome)
    }
}
