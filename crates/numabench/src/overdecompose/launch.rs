//! Starting one worker run: `mpirun` with K x cores ranks of numabench's
//! hidden worker subcommand, waiting ranks yielding their CPU
//! (`mpi_yield_when_idle`), the monitor preloaded into the ranks (not
//! into mpirun) with `-x`, and the worker's report read from its stdout.
//! With several hosts ([`Hosts`]) every host gets the same number of ranks.

use super::hosts::Hosts;
use super::monitor::MONITOR_OUT_ENV;
use super::worker_config::{WorkerConfig, WorkerReport};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use thiserror::Error;

/// How workers are launched.
#[derive(Debug, Clone, PartialEq)]
pub struct Launcher {
    /// The launcher program (`mpirun`).
    pub mpirun: String,
    /// The numabench executable each rank runs.
    pub program: PathBuf,
    /// Add `--allow-run-as-root` (only when running as root).
    pub allow_root: bool,
    /// Where the ranks run.
    pub hosts: Hosts,
}

/// Why a worker run gave no report.
///
/// Always the system's fault: mpirun or the ranks it started.
#[derive(Debug, Error)]
pub enum LaunchError {
    #[error("cannot start '{mpirun}': {source}")]
    Spawn {
        mpirun: String,
        source: std::io::Error,
    },
    #[error("{command} failed ({status}): {stderr}")]
    Failed {
        command: String,
        status: String,
        stderr: String,
    },
    #[error("{command} printed no report (stdout: {stdout})")]
    NoReport { command: String, stdout: String },
}

crate::error::all_faulty!(System: LaunchError);

impl Launcher {
    /// `mpirun` running `program`, with `--allow-run-as-root` only when
    /// this process runs as root (OpenMPI refuses root without it).
    pub fn mpirun(program: PathBuf) -> Self {
        // SAFETY: geteuid has no preconditions and cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        Self {
            mpirun: "mpirun".into(),
            program,
            allow_root: root,
            hosts: Hosts::local(),
        }
    }

    /// The whole command line of a run of `ranks` ranks (over every host,
    /// the same number on each); with
    /// `monitor = Some((library, out))` the ranks preload the monitor and
    /// it writes to `out`.
    pub fn command_line(
        &self,
        ranks: usize,
        worker: &WorkerConfig,
        monitor: Option<(&Path, &Path)>,
    ) -> Vec<String> {
        let mut line = vec![self.mpirun.clone()];
        if self.allow_root {
            line.push("--allow-run-as-root".into());
        }
        // The ranks pin themselves K to a core, which OpenMPI does not see:
        // without yielding, a rank waiting in MPI spins out its whole time
        // slice while the rank it waits for sits on the same core.
        line.extend(
            [
                "--oversubscribe",
                "--bind-to",
                "none",
                "--mca",
                "mpi_yield_when_idle",
                "1",
            ]
            .iter()
            .map(|text| text.to_string()),
        );
        line.extend(self.hosts.mpirun_args(ranks / self.hosts.count().max(1)));
        line.push("-np".into());
        line.push(ranks.to_string());
        if let Some((library, out)) = monitor {
            line.push("-x".into());
            line.push(format!("LD_PRELOAD={}", library.display()));
            line.push("-x".into());
            line.push(format!("{MONITOR_OUT_ENV}={}", out.display()));
            // The monitor's own files (transition logs) go beside its output, in the private folder.
            if let Some(folder) = out.parent() {
                line.push("-x".into());
                line.push(format!("{}={}", crate::private_dir::ENV, folder.display()));
            }
        }
        line.push(self.program.display().to_string());
        line.extend(worker.args());
        line
    }

    /// Runs the workers and returns rank 0's report.
    pub fn run(
        &self,
        ranks: usize,
        worker: &WorkerConfig,
        monitor: Option<(&Path, &Path)>,
    ) -> Result<WorkerReport, LaunchError> {
        let line = self.command_line(ranks, worker, monitor);
        // mpirun leads a process group of its own, registered while it runs:
        // SIGINT/SIGTERM to numabench reach it and its ranks, and nothing survives.
        let child = Command::new(&line[0])
            .args(&line[1..])
            .env_remove("LD_PRELOAD")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|source| LaunchError::Spawn {
                mpirun: self.mpirun.clone(),
                source,
            })?;
        let group = crate::interrupt::ChildGroup::new(child.id());
        let output = child
            .wait_with_output()
            .map_err(|source| LaunchError::Spawn {
                mpirun: self.mpirun.clone(),
                source,
            })?;
        drop(group);
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(LaunchError::Failed {
                command: format!("{} -np {ranks} ... {}", self.mpirun, worker.args()[0]),
                status: output.status.to_string(),
                stderr: tail(&stderr),
            });
        }
        WorkerReport::from_output(&stdout).ok_or_else(|| LaunchError::NoReport {
            command: line.join(" "),
            stdout: tail(&stdout),
        })
    }
}

/// The last few lines of a process's output, joined into one line.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let start = lines.len().saturating_sub(4);
    let joined = lines[start..].join(" | ");
    if joined.is_empty() {
        "(nothing)".to_string()
    } else {
        joined
    }
}
