//! `numabench run` compares its policies: every policy, N times,
//! interleaved (the order rotated every repetition) so drift in the
//! machine's speed does not favour one policy; one record per run as it
//! finishes, then one summary record per policy, compared with the
//! baseline (p-values Holm-adjusted together).

use super::executor::{Executor, RunError, RunOutcome};
use super::observe::Observation;
use super::policy::RunPolicy;
use super::rounds::{run_rounds, Runnable};
use crate::output::{OutputError, Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::study::{against_baselines, SIGNIFICANCE};
use crate::topology::Machine;
use numabench_schema::benchmark;
use numabench_schema::params::{
    to_params, Comparison, CountsParams, LeftoverParams, ObservationParams, ObservedMeans,
    PolicySummaryParams, RunMeans, RunParams, RunSummaryParams, RUN_SUMMARY, RUN_WALL_TIME,
};
use numabench_schema::{RequestedMemory, RequestedMemoryPolicy, RequestedPlacement};
use serde_json::Map;
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

/// A validated `numabench run`.
#[derive(Debug, Clone)]
pub struct RunStudyConfig {
    pub command: Vec<String>,
    pub policies: Vec<RunPolicy>,
    pub repeat: usize,
    pub warmup: usize,
    pub show_output: bool,
    pub ignore_failure: bool,
    pub observe: Option<Duration>,
    pub pin_library: Option<PathBuf>,
    /// End what each run leaves running after its program ended.
    pub kill_leftovers: bool,
}

/// Why a study stopped.
///
/// Fault: the user's when their program fails (`Failed`); what the run or
/// the outputs say otherwise.
#[derive(Debug, Error)]
pub enum StudyError {
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("'{command}' failed under policy {policy} ({status}); use --ignore-failure to go on")]
    Failed {
        command: String,
        policy: String,
        status: String,
    },
}

impl crate::error::Faulty for StudyError {
    fn fault(&self) -> crate::error::Fault {
        use crate::error::Fault;
        match self {
            StudyError::Run(error) => error.fault(),
            StudyError::Output(error) => error.fault(),
            StudyError::Failed { .. } => Fault::Usage,
        }
    }
}

/// What one policy's runs add up to.
#[derive(Debug, Clone)]
pub struct PolicySummary {
    pub policy: String,
    pub outcomes: Vec<RunOutcome>,
    pub failures: usize,
    /// Wall times of the successful runs.
    pub wall: Option<Sample>,
    /// Median of the baseline / median of this policy.
    pub speedup: Option<f64>,
    /// Mann-Whitney p-value against the baseline.
    pub p_value: Option<f64>,
    /// `p_value` adjusted by Holm's method for every configuration
    /// compared with a baseline in this study ([`against_baselines`]).
    pub adjusted_p_value: Option<f64>,
}

impl PolicySummary {
    /// Whether this configuration differs from its baseline: Holm-adjusted
    /// p below [`SIGNIFICANCE`]; `None` when it was not compared.
    pub fn significant(&self) -> Option<bool> {
        self.adjusted_p_value.map(|p| p < SIGNIFICANCE)
    }
}

impl PolicySummary {
    /// The runs that succeeded (exit status 0), in run order.
    pub fn successful(&self) -> impl Iterator<Item = &RunOutcome> {
        self.outcomes.iter().filter(|outcome| outcome.succeeded())
    }
}

/// How a run ended, in words: its exit status, the signal that killed it,
/// or the signal that stopped it.
pub fn status_text(outcome: &RunOutcome) -> String {
    if let Some(stop) = outcome.stop_signal {
        let name = nix::sys::signal::Signal::try_from(stop).map_or("a signal", |s| s.as_str());
        let why = match name {
            "SIGTTOU" | "SIGTTIN" => {
                ": it used a terminal its process group did not hold (with --show-output, numabench hands over its own terminal when it holds it)"
            }
            _ => "",
        };
        return format!("stopped by {name}{why}; its process group was killed");
    }
    match (outcome.exit_code, outcome.signal) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => "unknown status".to_string(),
    }
}

pub(super) fn run_record(
    command: &[String],
    policy: &RunPolicy,
    repetition: usize,
    outcome: &RunOutcome,
) -> Record {
    let params = to_params(&RunParams {
        policy: Some(policy.label.clone()),
        cpu_order: policy.cpu_order.map(|order| order.name().to_string()),
        command: Some(command.join(" ")),
        repetition: Some(repetition as u64),
        exit_code: outcome.exit_code,
        signal: outcome.signal,
        interrupted: Some(outcome.interrupted),
        stop_signal: outcome.stop_signal,
        leftovers: outcome.leftovers.as_ref().map(|leftovers| LeftoverParams {
            leftover_processes: leftovers.count as u64,
            leftover_commands: Some(leftovers.names.clone()),
            leftovers_killed: Some(leftovers.killed),
        }),
        user_seconds: Some(outcome.user_seconds),
        system_seconds: Some(outcome.system_seconds),
        max_rss_kib: Some(outcome.max_rss_kib),
        voluntary_switches: Some(outcome.voluntary_switches),
        involuntary_switches: Some(outcome.involuntary_switches),
        observation: outcome.observation.as_ref().map(ObservationParams::from),
        pin_warnings: outcome.pin_warnings.clone(),
        counts: outcome.counts.as_ref().map(CountsParams::from),
        // A scan adds its two after the counts (`Runnable::extra`).
        configuration: None,
        scan: None,
    });
    let weighted = |memory: &crate::memory::MemoryPolicy| !memory.weights.is_empty();
    let requested = to_params(&RequestedPlacement {
        policy: Some(policy.label.clone()),
        pin_order: Some(policy.pin_order.clone()),
        affinity: Some(policy.affinity.clone()),
        memory: Some(
            policy
                .memory
                .as_ref()
                .map_or(RequestedMemory::Unset, |memory| {
                    RequestedMemory::Policy(RequestedMemoryPolicy {
                        mode: memory.mode.mpol(),
                        nodes: memory.nodes.clone(),
                        weights: weighted(memory).then(|| memory.weights.clone()),
                        // Weighted interleave runs in the kernel's mode only (validated).
                        weighted_mode: weighted(memory).then(|| "kernel".to_string()),
                    })
                }),
        ),
        ..RequestedPlacement::default()
    });
    Record {
        benchmark: benchmark::RUN.into(),
        metric: RUN_WALL_TIME.into(),
        value: outcome.wall_seconds,
        unit: Unit::Seconds,
        params,
        placement: Placement {
            requested,
            verified: None,
        },
        stats: Sample::new([outcome.wall_seconds])
            .expect("finite")
            .summary(),
    }
}

/// Runs every policy and compares them (the study engine schedules the
/// runs). `progress` is told about each run before it starts.
pub fn run_policies(
    executor: &mut dyn Executor,
    config: &RunStudyConfig,
    topology: &Machine,
    pipeline: &mut Pipeline,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<PolicySummary>, StudyError> {
    let runnables: Vec<Runnable> = config
        .policies
        .iter()
        .map(|policy| Runnable {
            command: &config.command,
            policy,
            label: &policy.label,
            extra: Map::new(),
            failure_name: policy.label.clone(),
        })
        .collect();
    let rounds = run_rounds(executor, config, &runnables, topology, pipeline, progress)?;
    let summaries = summarise_and_emit(config, rounds.outcomes, pipeline)?;
    match rounds.failure {
        Some(failure) => Err(failure),
        None => Ok(summaries),
    }
}

/// One summary per configuration (`labels`), each compared with its
/// baseline's (`baseline_of`): the median speedup and the Mann-Whitney
/// p-value of the successful runs' wall times, and that p-value adjusted
/// by Holm's method for all of them ([`against_baselines`]).
pub(super) fn policy_summaries(
    labels: impl Iterator<Item = String>,
    outcomes: Vec<Vec<RunOutcome>>,
    baseline_of: impl Fn(usize) -> Option<usize>,
) -> Vec<PolicySummary> {
    let mut summaries: Vec<PolicySummary> = labels
        .zip(outcomes)
        .map(|(policy, outcomes)| PolicySummary {
            policy,
            failures: outcomes.iter().filter(|o| !o.succeeded()).count(),
            wall: Sample::new(
                outcomes
                    .iter()
                    .filter(|outcome| outcome.succeeded())
                    .map(|outcome| outcome.wall_seconds),
            )
            .ok(),
            outcomes,
            speedup: None,
            p_value: None,
            adjusted_p_value: None,
        })
        .collect();
    let walls: Vec<Option<Sample>> = summaries.iter().map(|s| s.wall.clone()).collect();
    for (summary, comparison) in summaries
        .iter_mut()
        .zip(against_baselines(&walls, baseline_of))
    {
        summary.speedup = comparison.map(|c| c.ratio);
        summary.p_value = comparison.map(|c| c.p_value);
        summary.adjusted_p_value = comparison.map(|c| c.adjusted_p_value);
    }
    summaries
}

/// The resources of a configuration's successful runs, as summary
/// parameters: mean user and system seconds and context switches, the
/// largest peak RSS.
pub(super) fn resource_means(successful: &[&RunOutcome]) -> RunMeans {
    let mean = |value: &dyn Fn(&RunOutcome) -> f64| {
        successful.iter().map(|outcome| value(outcome)).sum::<f64>() / successful.len() as f64
    };
    RunMeans {
        user_seconds: Some(mean(&|outcome| outcome.user_seconds)),
        system_seconds: Some(mean(&|outcome| outcome.system_seconds)),
        max_rss_kib: successful.iter().map(|outcome| outcome.max_rss_kib).max(),
        voluntary_switches: Some(mean(&|outcome| outcome.voluntary_switches as f64)),
        involuntary_switches: Some(mean(&|outcome| outcome.involuntary_switches as f64)),
    }
}

/// What a policy's or configuration's summary says against its baseline.
pub(super) fn comparison(summary: &PolicySummary) -> Comparison {
    Comparison {
        speedup: summary.speedup,
        p_value: summary.p_value,
        p_value_holm: summary.adjusted_p_value,
        significant: summary.significant(),
    }
}

/// The means of what `--observe` counted over the successful runs (a run
/// not observed counts 0).
fn observed_means(successful: &[&RunOutcome]) -> ObservedMeans {
    let mean = |figure: fn(&Observation) -> u64| {
        successful
            .iter()
            .map(|outcome| {
                outcome
                    .observation
                    .as_ref()
                    .map_or(0.0, |o| figure(o) as f64)
            })
            .sum::<f64>()
            / successful.len() as f64
    };
    ObservedMeans {
        thread_migrations: mean(|observation| observation.thread_migrations),
        // "cpu-changes-between-samples" sorts first: named so if any run lacked the kernel's count.
        thread_migrations_source: successful
            .iter()
            .filter_map(|outcome| outcome.observation.as_ref())
            .map(|observation| observation.thread_migrations_source)
            .min()
            .map(str::to_string),
        cpu_changes_between_samples: mean(|observation| observation.cpu_changes_between_samples),
        node_changes_between_samples: mean(|observation| observation.node_changes_between_samples),
    }
}

fn summarise_and_emit(
    config: &RunStudyConfig,
    outcomes: Vec<Vec<RunOutcome>>,
    pipeline: &mut Pipeline,
) -> Result<Vec<PolicySummary>, OutputError> {
    let baseline = config
        .policies
        .iter()
        .position(|policy| policy.label == "as-is")
        .unwrap_or(0);
    let labels = config.policies.iter().map(|policy| policy.label.clone());
    let summaries = policy_summaries(labels, outcomes, |_| Some(baseline));
    let thread_warning = super::team::thread_count_warning(&summaries);
    for summary in &summaries {
        let Some(wall) = &summary.wall else { continue };
        let successful: Vec<&RunOutcome> = summary.successful().collect();
        let params = to_params(&RunSummaryParams::Policies(PolicySummaryParams {
            policy: Some(summary.policy.clone()),
            command: Some(config.command.join(" ")),
            baseline: Some(config.policies[baseline].label.clone()),
            comparison: comparison(summary),
            failures: Some(summary.failures as u64),
            threads_seen: super::team::policy_threads(summary).map(|threads| threads as u64),
            team_threads: super::team::policy_team(summary).map(|threads| threads as u64),
            thread_count_warning: thread_warning.clone(),
            means: resource_means(&successful),
            observed: config.observe.map(|_| observed_means(&successful)),
        }));
        pipeline.emit(&Record {
            benchmark: benchmark::RUN.into(),
            metric: RUN_SUMMARY.into(),
            value: wall.median(),
            unit: Unit::Seconds,
            params,
            placement: Placement::default(),
            stats: wall.summary(),
        })?;
    }
    Ok(summaries)
}

/// The comparison table; `markdown` selects GitHub-flavoured markdown.
pub fn render_comparison(summaries: &[PolicySummary], markdown: bool) -> String {
    let header = [
        "policy",
        "median s",
        "mean ± σ s",
        "cv",
        "min … max s",
        "user s",
        "sys s",
        "max RSS",
        "ctx sw",
        "speedup",
        "p-value",
        "Holm p",
        "failed",
    ];
    let mut rows: Vec<Vec<String>> = Vec::new();
    for summary in summaries {
        let successful: Vec<&RunOutcome> = summary.successful().collect();
        let count = successful.len().max(1) as f64;
        let mean = |value: &dyn Fn(&RunOutcome) -> f64| {
            successful.iter().map(|outcome| value(outcome)).sum::<f64>() / count
        };
        let (median, spread, cv, range) = match &summary.wall {
            Some(wall) => (
                format!("{:.4}", wall.median()),
                format!("{:.4} ± {:.4}", wall.mean(), wall.stddev()),
                format!("{:.1}%", wall.cv() * 100.0),
                format!("{:.4} … {:.4}", wall.min(), wall.max()),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        let p_value = summary.p_value.map_or("-".into(), |p| format!("{p:.3}"));
        let significance = match (summary.adjusted_p_value, summary.significant()) {
            (Some(p), Some(true)) => format!("{p:.3} *"),
            (Some(p), _) => format!("{p:.3}"),
            _ => "-".into(),
        };
        rows.push(vec![
            summary.policy.clone(),
            median,
            spread,
            cv,
            range,
            format!("{:.3}", mean(&|outcome| outcome.user_seconds)),
            format!("{:.3}", mean(&|outcome| outcome.system_seconds)),
            crate::units::format_bytes(
                successful
                    .iter()
                    .map(|outcome| outcome.max_rss_kib)
                    .max()
                    .unwrap_or(0)
                    .max(0) as u64
                    * 1024,
            ),
            format!(
                "{:.0}",
                mean(&|outcome| (outcome.voluntary_switches + outcome.involuntary_switches) as f64)
            ),
            summary
                .speedup
                .map_or("-".into(), |speedup| format!("{speedup:.3}x")),
            p_value,
            significance,
            format!("{}/{}", summary.failures, summary.outcomes.len()),
        ]);
    }
    let mut out = String::new();
    if markdown {
        out.push_str(&format!("| {} |\n", header.join(" | ")));
        out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
        for row in rows {
            out.push_str(&format!("| {} |\n", row.join(" | ")));
        }
    } else {
        let widths: Vec<usize> = (0..header.len())
            .map(|column| {
                rows.iter()
                    .map(|row| row[column].chars().count())
                    .chain([header[column].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: Vec<String>| -> String {
            cells
                .iter()
                .zip(&widths)
                .map(|(cell, width)| format!("{cell:<width$}"))
                .collect::<Vec<_>>()
                .join("  ")
                + "\n"
        };
        out.push_str(&line(header.iter().map(|cell| cell.to_string()).collect()));
        for row in rows {
            out.push_str(&line(row));
        }
    }
    out.push_str(&format!("\nspeedup: median of the baseline / median of the policy; p-value: Mann-Whitney U against the baseline; Holm p: that p adjusted by Holm's method for every policy compared with the baseline (* significant at {}%)\n", SIGNIFICANCE * 100.0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::parse_policy;

    /// A run record's params keep their text: keys, order, value types,
    /// absent and null as the map writer wrote them.
    #[test]
    fn a_run_record_keeps_its_params_text() {
        let topology = crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
        let command = vec!["prog".to_string(), "-x".to_string()];
        let plain = RunOutcome {
            wall_seconds: 1.5,
            user_seconds: 1.0,
            system_seconds: 0.25,
            max_rss_kib: 2048,
            voluntary_switches: 3,
            involuntary_switches: 4,
            exit_code: Some(0),
            ..RunOutcome::default()
        };
        let as_is = parse_policy("as-is", &topology).unwrap();
        let record = run_record(&command, &as_is, 2, &plain);
        assert_eq!(
            serde_json::Value::Object(record.params).to_string(),
            r#"{"policy":"as-is","command":"prog -x","repetition":2,"exit_code":0,"signal":null,"interrupted":false,"stop_signal":null,"user_seconds":1.0,"system_seconds":0.25,"max_rss_kib":2048,"voluntary_switches":3,"involuntary_switches":4}"#
        );
        let stopped = RunOutcome {
            exit_code: None,
            signal: Some(9),
            interrupted: true,
            stop_signal: Some(19),
            pin_warnings: Some(vec!["a warning".into()]),
            leftovers: Some(crate::runner::leftovers::LeftoverReport {
                count: 2,
                names: vec!["child".into()],
                killed: true,
                survivors: 0,
            }),
            observation: Some(Observation {
                interval_ms: 10,
                thread_migrations: 1,
                thread_migrations_source: "kernel",
                ..Observation::default()
            }),
            ..plain
        };
        let pinned = parse_policy("pin-scatter", &topology).unwrap();
        let record = run_record(&command, &pinned, 0, &stopped);
        let text = serde_json::Value::Object(record.params).to_string();
        let observation = serde_json::to_string(stopped.observation.as_ref().unwrap()).unwrap();
        assert_eq!(
            text,
            format!(
                r#"{{"policy":"pin-scatter","cpu_order":"scatter","command":"prog -x","repetition":0,"exit_code":null,"signal":9,"interrupted":true,"stop_signal":19,"leftover_processes":2,"leftover_commands":["child"],"leftovers_killed":true,"user_seconds":1.0,"system_seconds":0.25,"max_rss_kib":2048,"voluntary_switches":3,"involuntary_switches":4,"observation":{observation},"pin_warnings":["a warning"]}}"#
            )
        );
    }

    /// Each policy's `placement.requested` text, key order included: the
    /// policy, its pin order and affinity (null when not pinned or not
    /// restricted), and its memory policy (null for none).
    #[test]
    fn a_run_records_requested_keeps_its_text() {
        let topology = crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
        let outcome = RunOutcome {
            wall_seconds: 1.0,
            exit_code: Some(0),
            ..RunOutcome::default()
        };
        let texts: Vec<String> = ["as-is", "pin-scatter", "bind:1", "weighted:0=3,1=1"]
            .into_iter()
            .map(|text| {
                let policy = parse_policy(text, &topology).unwrap();
                let record = run_record(&["prog".to_string()], &policy, 0, &outcome);
                serde_json::Value::Object(record.placement.requested).to_string()
            })
            .collect();
        assert_eq!(
            texts,
            [
                r#"{"policy":"as-is","pin_order":null,"affinity":null,"memory":null}"#,
                r#"{"policy":"pin-scatter","pin_order":[0,2,1,3],"affinity":null,"memory":null}"#,
                r#"{"policy":"bind:1","pin_order":null,"affinity":[2,3],"memory":{"mode":2,"nodes":[1]}}"#,
                r#"{"policy":"weighted:0=3,1=1","pin_order":null,"affinity":null,"memory":{"mode":6,"nodes":[0,1],"weights":[3,1],"weighted_mode":"kernel"}}"#,
            ]
        );
    }

    /// A run record's requested memory policy carries the kernel's MPOL_*
    /// number for its mode, as docs/results.md says.
    #[test]
    fn run_records_name_the_memory_policy_by_its_mpol_mode() {
        let topology = crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
        let config = RunStudyConfig {
            command: vec!["prog".into()],
            policies: Vec::new(),
            repeat: 1,
            warmup: 0,
            show_output: false,
            ignore_failure: false,
            observe: None,
            pin_library: None,
            kill_leftovers: false,
        };
        let outcome = RunOutcome {
            wall_seconds: 1.0,
            exit_code: Some(0),
            ..RunOutcome::default()
        };
        for (text, mode) in [
            ("membind:1", libc::MPOL_BIND),
            ("pin-scatter+interleave:all", libc::MPOL_INTERLEAVE),
            ("preferred:0", libc::MPOL_PREFERRED),
        ] {
            let policy = parse_policy(text, &topology).unwrap();
            let record = run_record(&config.command, &policy, 0, &outcome);
            assert_eq!(
                record.placement.requested_as().unwrap().memory,
                Some(RequestedMemory::Policy(RequestedMemoryPolicy {
                    mode,
                    nodes: policy.memory.unwrap().nodes,
                    weights: None,
                    weighted_mode: None,
                })),
                "{text}"
            );
        }
        let as_is = parse_policy("as-is", &topology).unwrap();
        let record = run_record(&config.command, &as_is, 0, &outcome);
        assert_eq!(
            record.placement.requested_as().unwrap().memory,
            Some(RequestedMemory::Unset)
        );
    }
}
