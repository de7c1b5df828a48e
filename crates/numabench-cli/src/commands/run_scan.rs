//! `numabench run --param NAME=LIST ...`: the parameter scan's part of the
//! `run` command (validation, plan, running, the efficiency note).

use crate::args::RunCommandArgs;
use crate::exit::CliError;
use numabench::output::Pipeline;
use numabench::runner::{
    parse_scan, run_scan, scan_points, Executor, PolicySummary, RunPolicy, RunStudyConfig,
    ScanConfig, ScanParam, StudyError,
};
use numabench::topology::Machine;

/// The scan's parameters, checked against the command (None without
/// `--param`); a bad one is a usage error naming it.
pub fn parse(args: &RunCommandArgs) -> Result<Option<Vec<ScanParam>>, CliError> {
    if args.params.is_empty() {
        return Ok(None);
    }
    parse_scan(&args.params, &args.command)
        .map(Some)
        .map_err(CliError::usage)
}

/// The distinct programs the runs will start (a placeholder may name one).
pub fn programs(params: Option<&[ScanParam]>, command: &[String]) -> Vec<String> {
    let mut programs: Vec<String> = match params {
        Some(params) => scan_points(params, command)
            .into_iter()
            .map(|point| point.command[0].clone())
            .collect(),
        None => command.first().cloned().into_iter().collect(),
    };
    let mut seen = std::collections::BTreeSet::new();
    programs.retain(|program| seen.insert(program.clone()));
    programs
}

/// How many configurations run: the policies, times the points of a scan.
pub fn configurations(params: Option<&[ScanParam]>, config: &RunStudyConfig) -> usize {
    let points = params.map_or(1, |params| {
        params.iter().map(|param| param.values.len()).product()
    });
    points * config.policies.len()
}

/// The plan of a scan: the plan of `run` for each configuration, labelled
/// with its values, in the order the configurations run.
pub fn plan(
    topology: &Machine,
    args: &RunCommandArgs,
    params: &[ScanParam],
    policies: &[RunPolicy],
) -> serde_json::Value {
    let mut merged = serde_json::Value::Null;
    let mut steps = Vec::new();
    for point in scan_points(params, &args.command) {
        let plan =
            crate::plan::run_plan(topology, &point.command, policies, args.repeat, args.warmup);
        for mut step in plan["steps"].as_array().cloned().unwrap_or_default() {
            step["label"] = format!(
                "{} | {}",
                point.label(),
                step["label"].as_str().unwrap_or("")
            )
            .into();
            steps.push(step);
        }
        merged = plan;
    }
    merged["steps"] = steps.into();
    merged
}

/// Runs the scan; returns the summaries for the comparison table and a note
/// with speedup and parallel efficiency (empty when not computed).
pub fn execute(
    executor: &mut dyn Executor,
    study: RunStudyConfig,
    params: Vec<ScanParam>,
    topology: &Machine,
    pipeline: &mut Pipeline,
    progress: &mut dyn FnMut(&str),
) -> (Result<Vec<PolicySummary>, StudyError>, String) {
    let config = ScanConfig { study, params };
    match run_scan(executor, &config, topology, pipeline, progress) {
        Ok(result) => {
            let mut note = String::new();
            if !result.efficiencies.is_empty() {
                note.push_str(&format!(
                    "\nparallel efficiency (speedup against the smallest {} / ({} / smallest), taking it as a worker count):\n",
                    config.params[0].name, config.params[0].name
                ));
                for efficiency in &result.efficiencies {
                    note.push_str(&format!(
                        "  {}: speedup {:.3}x, efficiency {:.1}%\n",
                        efficiency.configuration,
                        efficiency.speedup,
                        efficiency.efficiency * 100.0
                    ));
                }
            }
            (Ok(result.summaries), note)
        }
        Err(error) => (Err(error), String::new()),
    }
}
