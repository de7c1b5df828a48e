//! `numabench run --param ...`: a parameter scan. Every configuration
//! (parameter values x policy) runs N times, interleaved and rotated as the
//! policies of a plain `run` are; one record per run as it finishes, then a
//! summary per configuration and, for one numeric parameter (a worker count),
//! speedup and parallel efficiency against its smallest value.

use super::compare_policies::{
    comparison, policy_summaries, resource_means, PolicySummary, RunStudyConfig, StudyError,
};
use super::executor::{Executor, RunOutcome};
use super::policy::RunPolicy;
use super::rounds::{run_rounds, Runnable};
use super::scan_params::{numeric_values, scan_points, ScanParam, ScanPoint};
use crate::output::{OutputError, Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::topology::Machine;
use numabench_schema::benchmark;
use numabench_schema::params::{
    to_params, RunSummaryParams, ScanLabels, ScanRatioParams, ScanSummaryParams, RUN_SUMMARY,
    SCAN_RATIOS,
};
use serde_json::{json, Map, Value};

/// A validated scan: the study (its command with placeholders) and the
/// parameters.
#[derive(Debug, Clone)]
pub struct ScanConfig {
    pub study: RunStudyConfig,
    pub params: Vec<ScanParam>,
}

/// One configuration: parameter values and a policy.
#[derive(Debug, Clone)]
pub struct ScanConfiguration {
    pub point: ScanPoint,
    pub policy: RunPolicy,
    /// `t=4` (one policy) or `t=4 | pin-compact` (several).
    pub label: String,
    /// The parameter's value as a worker count (one numeric parameter).
    pub workers: Option<f64>,
}

/// Speedup and parallel efficiency of one configuration against the one
/// with the smallest worker count (same policy).
#[derive(Debug, Clone, PartialEq)]
pub struct Efficiency {
    pub configuration: String,
    pub speedup: f64,
    /// speedup / (workers / smallest workers).
    pub efficiency: f64,
}

/// What a scan adds up to.
#[derive(Debug, Clone)]
pub struct ScanResult {
    /// One per configuration, `policy` holding its label.
    pub summaries: Vec<PolicySummary>,
    pub efficiencies: Vec<Efficiency>,
}

impl ScanConfig {
    /// Every configuration: each point (first parameter slowest) under each
    /// policy in turn.
    pub fn configurations(&self) -> Vec<ScanConfiguration> {
        let workers = numeric_values(&self.params);
        let several = self.study.policies.len() > 1;
        scan_points(&self.params, &self.study.command)
            .into_iter()
            .enumerate()
            .flat_map(|(index, point)| {
                let workers = workers.as_ref().map(|values| values[index]);
                self.study
                    .policies
                    .iter()
                    .map(move |policy| ScanConfiguration {
                        label: if several {
                            format!("{} | {}", point.label(), policy.label)
                        } else {
                            point.label()
                        },
                        point: point.clone(),
                        policy: policy.clone(),
                        workers,
                    })
            })
            .collect()
    }
}

/// Parameter name -> value, as records carry it (`params.scan`).
fn scan_object(point: &ScanPoint) -> Value {
    Value::Object(
        point
            .values
            .iter()
            .map(|(name, value)| (name.clone(), json!(value)))
            .collect(),
    )
}

/// Runs the scan. `progress` is told about each run before it starts.
pub fn run_scan(
    executor: &mut dyn Executor,
    config: &ScanConfig,
    topology: &Machine,
    pipeline: &mut Pipeline,
    progress: &mut dyn FnMut(&str),
) -> Result<ScanResult, StudyError> {
    let configurations = config.configurations();
    let runnables: Vec<Runnable> = configurations
        .iter()
        .map(|configuration| Runnable {
            command: &configuration.point.command,
            policy: &configuration.policy,
            label: &configuration.label,
            extra: Map::from_iter([
                ("scan".to_string(), scan_object(&configuration.point)),
                ("configuration".to_string(), json!(configuration.label)),
            ]),
            failure_name: format!(
                "{} with {}",
                configuration.policy.label,
                configuration.point.label()
            ),
        })
        .collect();
    let rounds = run_rounds(
        executor,
        &config.study,
        &runnables,
        topology,
        pipeline,
        progress,
    )?;
    let result = summarise_and_emit(config, &configurations, rounds.outcomes, pipeline)?;
    match rounds.failure {
        Some(failure) => Err(failure),
        None => Ok(result),
    }
}

/// The configuration with the smallest worker count under the same policy.
fn baseline_of(configurations: &[ScanConfiguration], index: usize) -> Option<usize> {
    let policy = &configurations[index].policy.label;
    configurations
        .iter()
        .enumerate()
        .filter(|(_, other)| other.policy.label == *policy)
        .filter_map(|(position, other)| Some((position, other.workers?)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(position, _)| position)
}

fn ratio_record(metric: &str, value: f64, per_run: &[f64], params: &Map<String, Value>) -> Record {
    Record {
        benchmark: benchmark::RUN.into(),
        metric: metric.into(),
        value,
        unit: Unit::Ratio,
        params: params.clone(),
        placement: Placement::default(),
        stats: Sample::new(per_run.iter().copied())
            .or_else(|_| Sample::new([value]))
            .expect("finite ratio")
            .summary(),
    }
}

fn summarise_and_emit(
    config: &ScanConfig,
    configurations: &[ScanConfiguration],
    outcomes: Vec<Vec<RunOutcome>>,
    pipeline: &mut Pipeline,
) -> Result<ScanResult, OutputError> {
    let baselines: Vec<Option<usize>> = (0..configurations.len())
        .map(|index| baseline_of(configurations, index))
        .collect();
    let labels = configurations.iter().map(|c| c.label.clone());
    let summaries = policy_summaries(labels, outcomes, |index| baselines[index]);
    let mut efficiencies = Vec::new();
    for (index, (configuration, summary)) in configurations.iter().zip(&summaries).enumerate() {
        let Some(wall) = &summary.wall else { continue };
        let successful: Vec<&RunOutcome> = summary.successful().collect();
        let labels = ScanLabels {
            scan: scan_object(&configuration.point),
            configuration: Some(configuration.label.clone()),
            policy: Some(configuration.policy.label.clone()),
            cpu_order: configuration
                .policy
                .cpu_order
                .map(|order| order.name().to_string()),
            command: Some(configuration.point.command.join(" ")),
        };
        let summary_params = to_params(&RunSummaryParams::Scan(ScanSummaryParams {
            labels: labels.clone(),
            failures: Some(summary.failures as u64),
            means: resource_means(&successful),
            comparison: comparison(summary),
        }));
        pipeline.emit(&Record {
            benchmark: benchmark::RUN.into(),
            metric: RUN_SUMMARY.into(),
            value: wall.median(),
            unit: Unit::Seconds,
            params: summary_params,
            placement: Placement::default(),
            stats: wall.summary(),
        })?;
        let Some(baseline) = baselines[index] else {
            continue;
        };
        let (Some(base), Some(workers), Some(base_workers)) = (
            &summaries[baseline].wall,
            configuration.workers,
            configurations[baseline].workers,
        ) else {
            continue;
        };
        let speedup = base.median() / wall.median();
        let workers_ratio = workers / base_workers;
        let efficiency = speedup / workers_ratio;
        let params = to_params(&ScanRatioParams {
            labels,
            parameter: Some(config.params[0].name.clone()),
            workers: Some(workers),
            baseline_workers: Some(base_workers),
            baseline_median_seconds: Some(base.median()),
            median_seconds: Some(wall.median()),
        });
        let per_run: Vec<f64> = wall.values().iter().map(|w| base.median() / w).collect();
        pipeline.emit(&ratio_record(SCAN_RATIOS[0], speedup, &per_run, &params))?;
        let per_run: Vec<f64> = per_run.iter().map(|s| s / workers_ratio).collect();
        pipeline.emit(&ratio_record(SCAN_RATIOS[1], efficiency, &per_run, &params))?;
        efficiencies.push(Efficiency {
            configuration: configuration.label.clone(),
            speedup,
            efficiency,
        });
    }
    Ok(ScanResult {
        summaries,
        efficiencies,
    })
}
