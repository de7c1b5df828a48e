//! One configuration's runs summed up: the figures of the K-sweep table,
//! its records and the table itself.

use super::config::{Configuration, StudyConfig};
use super::model::SizeChoice;
use super::monitor::MonitorFigures;
use super::worker_config::WorkerReport;
use crate::output::{Placement, Record, Unit};
use crate::stats::Sample;
use numabench_schema::params::{
    to_params, OverdecomposeParams, OverdecomposeRunParams, SweepPoint, SweepRanks,
};
use numabench_schema::RequestedPlacement;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// The ranks and grid width of `study` at `ranks_per_core`, as every
/// record of the study carries them (the host count when several).
pub(super) fn sweep_ranks(
    study: &StudyConfig,
    ranks_per_core: usize,
    ranks: usize,
    nx: usize,
) -> SweepRanks {
    SweepRanks {
        ranks_per_core: Some(ranks_per_core as u64),
        cores: Some(study.cores as u64),
        hosts: study
            .hosts()
            .several()
            .then(|| study.hosts().count() as u64),
        ranks: Some(ranks as u64),
        nx: Some(nx as u64),
    }
}

/// One figure of a run, where the run has it.
type Figure = Box<dyn Fn(&RunResult) -> Option<f64>>;

/// One run's results.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    pub report: WorkerReport,
    pub monitor: MonitorFigures,
}

/// A configuration with its grid and its runs so far.
#[derive(Debug, Clone)]
pub struct ConfigSummary {
    pub configuration: Configuration,
    pub size: SizeChoice,
    pub ny: usize,
    pub iterations: usize,
    pub runs: Vec<RunResult>,
    /// Median time of K = 1 over median time of this K (set once all runs are in).
    pub speedup: Option<f64>,
}

impl ConfigSummary {
    fn sample(&self, figure: impl Fn(&RunResult) -> f64) -> Option<Sample> {
        Sample::new(self.runs.iter().map(figure)).ok()
    }

    /// Median of the runs' times, s.
    pub fn median_time(&self) -> Option<f64> {
        self.sample(|run| run.report.time_s).map(|s| s.median())
    }

    /// Every run's grid was identical to the serial run's.
    pub fn verified(&self) -> bool {
        !self.runs.is_empty()
            && self.runs.iter().all(|run| {
                run.report
                    .verification
                    .as_ref()
                    .is_some_and(|check| check.identical)
            })
    }

    /// The largest difference to the serial grid over the runs.
    pub fn max_abs_diff(&self) -> f64 {
        self.runs
            .iter()
            .map(|run| {
                run.report
                    .verification
                    .as_ref()
                    .map_or(f64::INFINITY, |check| check.max_abs_diff)
            })
            .fold(0.0, f64::max)
    }

    /// The sweep point every record of this configuration of `study`
    /// carries.
    fn point(&self, study: &StudyConfig) -> SweepPoint {
        let configuration = &self.configuration;
        SweepPoint {
            target_comm_share: Some(configuration.share),
            predicted_comm_share: Some(self.size.predicted_share),
            share_reachable: Some(self.size.reachable),
            ranks: sweep_ranks(
                study,
                configuration.ranks_per_core,
                configuration.ranks,
                study.nx,
            ),
            ny: Some(self.ny as u64),
            rows_per_core: Some(self.size.rows_per_core as u64),
            iterations: Some(self.iterations as u64),
            omega: Some(study.omega),
        }
    }

    /// The most rank threads a run found off their CPU; `None` when a run
    /// could not tell.
    fn threads_off_cpu(&self) -> Option<u64> {
        self.runs
            .iter()
            .map(|run| run.report.threads_off_cpu)
            .try_fold(0, |most: usize, count| count.map(|count| most.max(count)))
            .map(|most| most as u64)
    }

    /// [`ConfigSummary::max_abs_diff`], `None` where a run had no check.
    fn finite_max_abs_diff(&self) -> Option<f64> {
        Some(self.max_abs_diff()).filter(|diff| diff.is_finite())
    }

    /// The parameters every record of this configuration of `study` carries.
    pub fn params(&self, study: &StudyConfig) -> Map<String, Value> {
        to_params(&OverdecomposeParams {
            point: self.point(study),
            repetitions: Some(self.runs.len() as u64),
            verified: Some(self.verified()),
            threads_off_cpu: self.threads_off_cpu(),
            max_abs_diff: self.finite_max_abs_diff(),
        })
    }

    /// One run's record params: the configuration's over this run alone
    /// (`verified`, `max_abs_diff` and `threads_off_cpu` are this run's),
    /// with its 0-based `repetition` in place of the count of runs.
    pub fn run_params(
        &self,
        study: &StudyConfig,
        run: &RunResult,
        repetition: usize,
    ) -> Map<String, Value> {
        let alone = ConfigSummary {
            runs: vec![run.clone()],
            speedup: None,
            ..self.clone()
        };
        to_params(&OverdecomposeRunParams {
            point: alone.point(study),
            max_abs_diff: alone.finite_max_abs_diff(),
            verified: Some(alone.verified()),
            threads_off_cpu: alone.threads_off_cpu(),
            repetition: Some(repetition as u64),
        })
    }

    /// The summary records: time, speedup, TLP_1, TLP_2, system time,
    /// context switches, idle share and the measured communication share.
    pub fn records(&self, study: &StudyConfig) -> Vec<Record> {
        let params = self.params(study);
        let cores = study.all_cores();
        let requested = to_params(&RequestedPlacement {
            ranks_per_core: Some(self.configuration.ranks_per_core),
            ..RequestedPlacement::on_cpus(&study.core_cpus)
        });
        let placement = Placement {
            requested,
            verified: None,
        };
        let record = |metric: &str, unit: Unit, sample: Sample| Record {
            benchmark: "overdecompose".into(),
            metric: metric.into(),
            value: sample.median(),
            unit,
            params: params.clone(),
            placement: placement.clone(),
            stats: sample.summary(),
        };
        let mut records = Vec::new();
        let figures: [(&str, Unit, Figure); 7] = [
            (
                "time",
                Unit::Seconds,
                Box::new(|run| Some(run.report.time_s)),
            ),
            (
                "tlp_1",
                Unit::Ratio,
                Box::new(|run| Some(run.monitor.tlp_1)),
            ),
            (
                "tlp_2",
                Unit::Ratio,
                Box::new(|run| Some(run.monitor.tlp_2)),
            ),
            (
                "system_time",
                Unit::Seconds,
                Box::new(|run| Some(run.report.system_s)),
            ),
            (
                "context_switches",
                Unit::Count,
                Box::new(|run| Some(run.report.context_switches)),
            ),
            (
                "idle_share",
                Unit::Ratio,
                Box::new(move |run| run.report.idle_share(cores)),
            ),
            (
                "comm_share",
                Unit::Ratio,
                Box::new(|run| Some(run.report.comm_share)),
            ),
        ];
        for (metric, unit, figure) in figures {
            let values: Option<Vec<f64>> = self.runs.iter().map(&figure).collect();
            if let Some(sample) = values.and_then(|values| Sample::new(values).ok()) {
                records.push(record(metric, unit, sample));
            }
            if metric == "time" {
                if let Some(sample) = self.speedup.and_then(|s| Sample::new([s]).ok()) {
                    records.push(record("speedup", Unit::Ratio, sample));
                }
            }
        }
        records
    }
}

/// Median of one figure over a configuration's runs, as table text.
fn median_text(
    summary: &ConfigSummary,
    figure: impl Fn(&RunResult) -> Option<f64>,
    digits: usize,
) -> String {
    let values: Option<Vec<f64>> = summary.runs.iter().map(figure).collect();
    values
        .and_then(|values| Sample::new(values).ok())
        .map_or("-".to_string(), |sample| {
            format!("{:.digits$}", sample.median())
        })
}

/// The K-sweep table: one row per (share, K), medians over the runs.
pub fn render_sweep(summaries: &[ConfigSummary], cores: usize) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:>6} {:>6} {:>3} {:>5} {:>11} {:>10} {:>8} {:>6} {:>6} {:>8} {:>9} {:>6} {:>8}",
        "target",
        "comm",
        "K",
        "ranks",
        "grid",
        "time s",
        "speedup",
        "TLP_1",
        "TLP_2",
        "sys s",
        "ctx sw",
        "idle",
        "verified"
    );
    for summary in summaries {
        let configuration = &summary.configuration;
        let nx = summary.runs.first().map_or(0, |run| run.report.nx);
        let verified = if summary.runs.is_empty() {
            "-".to_string()
        } else if summary.verified() {
            "yes".to_string()
        } else {
            format!("NO {:.1e}", summary.max_abs_diff())
        };
        let _ =
            writeln!(
            text,
            "{:>5.0}% {:>6} {:>3} {:>5} {:>11} {:>10} {:>8} {:>6} {:>6} {:>8} {:>9} {:>6} {:>8}",
            configuration.share * 100.0,
            median_text(summary, |run| Some(run.report.comm_share * 100.0), 0) + "%",
            configuration.ranks_per_core,
            configuration.ranks,
            format!("{nx}x{}", summary.ny),
            median_text(summary, |run| Some(run.report.time_s), 4),
            summary.speedup.map_or("-".to_string(), |s| format!("{s:.2}")),
            median_text(summary, |run| Some(run.monitor.tlp_1), 2),
            median_text(summary, |run| Some(run.monitor.tlp_2), 2),
            median_text(summary, |run| Some(run.report.system_s), 3),
            median_text(summary, |run| Some(run.report.context_switches), 0),
            median_text(summary, |run| run.report.idle_share(cores), 2),
            verified
        );
    }
    let unreachable: Vec<String> = summaries
        .iter()
        .filter(|summary| summary.configuration.ranks_per_core == 1 && !summary.size.reachable)
        .map(|summary| format!("{:.0}%", summary.configuration.share * 100.0))
        .collect();
    if !unreachable.is_empty() {
        let _ = writeln!(
            text,
            "not achieved: target share {} (the grid was clamped, or one rank per core exchanged nothing): 'comm' is the share measured at each K",
            unreachable.join(", ")
        );
    }
    text
}
