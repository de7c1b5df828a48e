//! The sweep's run, what `mpirun` is started for: calibrate at one rank
//! per core, size a grid per target share, then run every (share, K)
//! `repeat` times, interleaved by the study engine, the order rotated
//! every repetition ([`crate::study::Schedule::rotated`]), each run under
//! the monitor; one record per run as it finishes, then the summary
//! records of every configuration (summed up in `sweep.rs`).

use super::config::StudyConfig;
use super::hosts::Misplaced;
use super::launch::LaunchError;
use super::model::{choose_rows, iterations_for, Calibration};
use super::monitor::{monitor_figures, MonitorOutputError};
use super::sweep::{ConfigSummary, RunResult};
use super::worker_config::WorkerConfig;
use crate::output::{read_results_file, Mode};
use crate::output::{OutputError, Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::study::{run_study, FinishWhen, Schedule};
use numabench_schema::params::{to_params, OverdecomposeCalibrationParams};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Rows per rank of the calibration run.
const CALIBRATION_ROWS: usize = 32;
/// Iterations of the calibration run.
const CALIBRATION_ITERATIONS: usize = 300;
/// The most rows per core a share may ask for.
const MAX_ROWS_PER_CORE: usize = 1 << 20;

/// Why the study stopped.
///
/// Fault: the system's (mpirun, the ranks, the monitor, the temporary
/// folder); the outputs' own for `Output`.
#[derive(Debug, Error)]
pub enum OverdecomposeError {
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("{0}")]
    Monitor(#[from] MonitorOutputError),
    #[error(transparent)]
    Misplaced(#[from] Misplaced),
    #[error("the monitor wrote nothing to {path}: {reason} ({hint})")]
    NoMonitorOutput {
        path: String,
        reason: String,
        hint: String,
    },
    #[error("cannot create the temporary folder {path}: {reason}")]
    TempDir { path: String, reason: String },
}

impl crate::error::Faulty for OverdecomposeError {
    fn fault(&self) -> crate::error::Fault {
        use crate::error::Fault;
        match self {
            OverdecomposeError::Output(error) => error.fault(),
            OverdecomposeError::Launch(_)
            | OverdecomposeError::Monitor(_)
            | OverdecomposeError::Misplaced(_)
            | OverdecomposeError::NoMonitorOutput { .. }
            | OverdecomposeError::TempDir { .. } => Fault::System,
        }
    }
}

/// The study's summaries and how it ended.
#[derive(Debug)]
pub struct StudyOutcome {
    pub calibration: Calibration,
    pub summaries: Vec<ConfigSummary>,
    /// Ctrl-C stopped it before every run was made.
    pub interrupted: bool,
}

/// A folder for the monitor's files, fresh (mode 0700), removed when
/// dropped: inside numabench's private folder ([`crate::private_dir`]) on
/// one host; with several hosts in the current folder, which rank 0
/// (maybe on another host) must see as numabench does: numabench's
/// private folder is in the host's memory (`/dev/shm`), a current folder
/// under mpirun is normally on a file system every host shares.
struct TempDir(PathBuf);

impl TempDir {
    fn new(shared: bool) -> Result<Self, OverdecomposeError> {
        static STUDIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let name = format!(
            "overdecompose-{}",
            STUDIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        if shared {
            return Self::in_current_folder(&name);
        }
        crate::private_dir::subdir(&name)
            .map(Self)
            .map_err(|error| OverdecomposeError::TempDir {
                path: crate::private_dir::existing()
                    .unwrap_or_default()
                    .join(&name)
                    .display()
                    .to_string(),
                reason: error.to_string(),
            })
    }

    /// `.numabench-NAME-XXXXXX` in the current folder (a random name,
    /// created exclusively, mode 0700).
    fn in_current_folder(name: &str) -> Result<Self, OverdecomposeError> {
        use std::os::unix::fs::PermissionsExt;
        let failed = |reason: std::io::Error| OverdecomposeError::TempDir {
            path: format!("./.numabench-{name}-*"),
            reason: reason.to_string(),
        };
        let here = std::env::current_dir().map_err(failed)?;
        let created = tempfile::Builder::new()
            .prefix(&format!(".numabench-{name}-"))
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(&here)
            .map_err(failed)?;
        Ok(Self(created.keep()))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Measures compute time per point and exchange time per half-sweep with
/// one rank per core.
pub fn calibrate(config: &StudyConfig) -> Result<Calibration, OverdecomposeError> {
    let worker = WorkerConfig {
        nx: config.nx,
        ny: CALIBRATION_ROWS * config.all_cores(),
        iterations: CALIBRATION_ITERATIONS,
        omega: config.omega,
        ranks_per_core: 1,
        verify: false,
        skip_exchange: None,
    };
    let report = config.launcher.run(config.all_cores(), &worker, None)?;
    config.hosts().check(&report.hosts, config.cores)?;
    let points = (worker.iterations * CALIBRATION_ROWS * worker.nx) as f64;
    Ok(Calibration {
        nx: config.nx,
        compute_per_point: report.compute_s / points,
        exchange_per_half_sweep: report.exchange_s / (2 * worker.iterations) as f64,
    })
}

fn monitored_run(
    config: &StudyConfig,
    worker: &WorkerConfig,
    ranks: usize,
    monitor: &Path,
    out: &Path,
) -> Result<RunResult, OverdecomposeError> {
    let _ = std::fs::remove_file(out);
    let report = config.launcher.run(ranks, worker, Some((monitor, out)))?;
    config
        .hosts()
        .check(&report.hosts, ranks / config.hosts().count())?;
    std::fs::metadata(out).map_err(|error| OverdecomposeError::NoMonitorOutput {
        path: out.display().to_string(),
        reason: error.to_string(),
        hint: if config.hosts().several() {
            "rank 0 writes it on its host: run numabench in a folder every host shares".into()
        } else {
            format!(
                "is {} built with --features mpi?",
                super::monitor::MONITOR_LIBRARY
            )
        },
    })?;
    let results = read_results_file(out, Mode::Strict).map_err(MonitorOutputError::from)?;
    let monitor = monitor_figures(&results.into_records())?;
    Ok(RunResult { report, monitor })
}

/// Runs the study: `progress` is told each run's label before it starts.
/// The per-run records and, at the end, the summary records go to
/// `pipeline`. `config.monitor` must be set.
pub fn run_overdecompose(
    config: &StudyConfig,
    pipeline: &mut Pipeline,
    progress: &mut dyn FnMut(&str),
) -> Result<StudyOutcome, OverdecomposeError> {
    let monitor = config.monitor.clone().unwrap_or_default();
    let temp = TempDir::new(config.hosts().several())?;
    progress("calibration (1 rank per core)");
    let calibration = calibrate(config)?;
    for record in calibration_records(config, &calibration) {
        pipeline.emit(&record)?;
    }
    let max_k = config.ranks_per_core.iter().copied().max().unwrap_or(1);
    let mut summaries: Vec<ConfigSummary> = config
        .configurations()
        .into_iter()
        .map(|configuration| {
            let size = choose_rows(&calibration, configuration.share, max_k, MAX_ROWS_PER_CORE);
            let iterations = config.iterations.unwrap_or_else(|| {
                iterations_for(
                    &calibration,
                    size.rows_per_core,
                    config.run_seconds,
                    20,
                    1_000_000,
                )
            });
            ConfigSummary {
                ny: size.rows_per_core * config.all_cores(),
                size,
                iterations,
                configuration,
                runs: Vec::new(),
                speedup: None,
            }
        })
        .collect();
    let finished = run_study(
        Schedule::rotated(summaries.len(), config.repeat),
        FinishWhen::AtTheEnd,
        |slot, _| {
            let summary = &summaries[slot.configuration];
            let configuration = &summary.configuration;
            progress(&format!(
                "share {:.0}% K={} ({} ranks), run {}/{}",
                configuration.share * 100.0,
                configuration.ranks_per_core,
                configuration.ranks,
                slot.repetition + 1,
                config.repeat
            ));
            let worker = WorkerConfig {
                nx: config.nx,
                ny: summary.ny,
                iterations: summary.iterations,
                omega: config.omega,
                ranks_per_core: configuration.ranks_per_core,
                verify: true,
                skip_exchange: None,
            };
            let out = temp.0.join("monitor.jsonl");
            let run = monitored_run(config, &worker, configuration.ranks, &monitor, &out)?;
            if let Ok(sample) = Sample::new([run.report.time_s]) {
                pipeline.emit(&Record {
                    benchmark: "overdecompose".into(),
                    metric: "run_time".into(),
                    value: run.report.time_s,
                    unit: Unit::Seconds,
                    params: summary.run_params(config, &run, slot.repetition),
                    placement: Placement::default(),
                    stats: sample.summary(),
                })?;
            }
            Ok::<_, OverdecomposeError>(ControlFlow::Continue(run))
        },
        |_, _| Ok(None::<()>),
    )?;
    for (summary, runs) in summaries.iter_mut().zip(finished.runs) {
        summary.runs = runs;
    }
    let stopped = finished.interrupted;
    set_speedups(&mut summaries);
    for summary in &summaries {
        for record in summary.records(config) {
            pipeline.emit(&record)?;
        }
    }
    Ok(StudyOutcome {
        calibration,
        summaries,
        interrupted: stopped,
    })
}

/// The calibration's two figures as records (`params`: ranks, nx,
/// rows per rank, iterations of the calibration run).
pub fn calibration_records(config: &StudyConfig, calibration: &Calibration) -> Vec<Record> {
    let params = to_params(&OverdecomposeCalibrationParams {
        phase: Some("calibration".into()),
        ranks: super::sweep::sweep_ranks(config, 1, config.all_cores(), calibration.nx),
        rows_per_rank: Some(CALIBRATION_ROWS as u64),
        iterations: Some(CALIBRATION_ITERATIONS as u64),
    });
    [
        ("compute_per_point", calibration.compute_per_point),
        (
            "exchange_per_half_sweep",
            calibration.exchange_per_half_sweep,
        ),
    ]
    .into_iter()
    .filter_map(|(metric, value)| {
        Sample::new([value]).ok().map(|sample| Record {
            benchmark: "overdecompose".into(),
            metric: metric.into(),
            value,
            unit: Unit::Seconds,
            params: params.clone(),
            placement: Placement::default(),
            stats: sample.summary(),
        })
    })
    .collect()
}

/// Speedup of each configuration: its share's K = 1 median time over its own.
pub fn set_speedups(summaries: &mut [ConfigSummary]) {
    let baselines: Vec<(f64, Option<f64>)> = summaries
        .iter()
        .filter(|summary| summary.configuration.ranks_per_core == 1)
        .map(|summary| (summary.configuration.share, summary.median_time()))
        .collect();
    for summary in summaries.iter_mut() {
        let baseline = baselines
            .iter()
            .find(|(share, _)| *share == summary.configuration.share)
            .and_then(|(_, time)| *time);
        summary.speedup = match (baseline, summary.median_time()) {
            (Some(base), Some(time)) if time > 0.0 => Some(base / time),
            _ => None,
        };
    }
}
