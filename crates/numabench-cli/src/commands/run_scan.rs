//! `numabench run --param NAME=LIST ...`: the parameter scan's part of the
//! `run` command's flags (validation, plan); the library runs it
//! (`numabench::runner::run_command`).

use crate::args::RunCommandArgs;
use crate::exit::CliError;
use numabench::runner::{parse_scan, scan_points, RunPolicy, ScanParam};
use numabench::topology::Machine;

/// The scan's parameters, checked against the command (None without
/// `--param`); a bad one is a usage error naming it.
pub fn parse(args: &RunCommandArgs) -> Result<Option<Vec<ScanParam>>, CliError> {
    if args.params.is_empty() {
        return Ok(None);
    }
    Ok(Some(parse_scan(&args.params, &args.command)?))
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
