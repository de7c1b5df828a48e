//! `numabench run --param`: substitution, cartesian product, interleaving,
//! speedup and parallel efficiency from the measured times, failures.

use super::plan::{read_plan, run_labels};
use super::records::params_of;
use super::run::{run_command, run_params};
use super::{numabench, succeeded, typed_jsonl, typed_stdout, with_metric};
use numabench::runner::RunPlan;
use numabench_schema::params::ScanRatioParams;
use numabench_schema::Unit;
use serde_json::Value;

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    }
}

/// The script appends its (substituted) arguments to a file: the file shows
/// every combination, in the order they ran, under every policy.
#[test]
fn every_combination_runs_interleaved_with_its_values_substituted() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let output = succeeded(
        run_command("2")
            .args([
                "--param",
                "a=x,y",
                "--param",
                "b=1,2",
                "--policy",
                "as-is",
                "--policy",
                "pin-compact",
                "--json",
                "--",
                "sh",
                "-c",
                "echo \"$1 $2\" >> \"$0\"",
            ])
            .arg(&log)
            .args(["{a}", "b{b}"]),
    );
    let written = std::fs::read_to_string(&log).unwrap();
    // First parameter slowest; each combination under both policies; then
    // round two, rotated: it starts with the second configuration and ends
    // with the first.
    let round: Vec<&str> = ["x b1", "x b2", "y b1", "y b2"]
        .iter()
        .flat_map(|line| [*line, *line])
        .collect();
    let second = [&round[1..], &round[..1]].concat();
    assert_eq!(
        written.lines().collect::<Vec<_>>(),
        [&round[..], &second[..]].concat()
    );
    let (_, records) = typed_stdout("run --param", &output.stdout);
    let runs = with_metric(&records, "run_wall_time");
    assert_eq!(runs.len(), 16);
    let labels: Vec<String> = runs[..8]
        .iter()
        .map(|record| run_params(record).configuration.expect("a configuration"))
        .collect();
    assert_eq!(
        labels,
        [
            "a=x, b=1 | as-is",
            "a=x, b=1 | pin-compact",
            "a=x, b=2 | as-is",
            "a=x, b=2 | pin-compact",
            "a=y, b=1 | as-is",
            "a=y, b=1 | pin-compact",
            "a=y, b=2 | as-is",
            "a=y, b=2 | pin-compact",
        ]
    );
    let seventh = run_params(runs[6]);
    assert_eq!(seventh.scan, Some(serde_json::json!({"a": "y", "b": "2"})));
    assert!(
        seventh
            .command
            .as_deref()
            .is_some_and(|command| command.ends_with(" y b2")),
        "{:?}",
        runs[6]
    );
    assert_eq!(run_params(runs[7]).cpu_order.as_deref(), Some("compact"));
    // Read strictly: a count of switches is an integer.
    assert!(runs
        .iter()
        .all(|record| run_params(record).voluntary_switches.is_some()));
    assert_eq!(with_metric(&records, "wall_time").len(), 8);
    // Two parameters: no worker count, no efficiency.
    assert!(with_metric(&records, "parallel_efficiency").is_empty());
}

/// The value of parameter `t` in a record's `scan` labels.
fn scan_value(scan: impl Into<Option<Value>>) -> String {
    let scan: Option<Value> = scan.into();
    let labels: std::collections::BTreeMap<String, String> =
        serde_json::from_value(scan.expect("scan labels")).expect("scan labels by name");
    labels.get("t").cloned().unwrap_or_default()
}

/// One numeric parameter: speedup and parallel efficiency against its
/// smallest value, recomputed here from the run records.
#[test]
fn efficiency_is_computed_from_the_measured_times() {
    let output = succeeded(run_command("3").args([
        "--param",
        "t=4,1",
        "--json",
        "--",
        "sh",
        "-c",
        "sleep 0.0$0",
        "{t}",
    ]));
    let (_, records) = typed_stdout("run --param t=4,1", &output.stdout);
    let times = |value: &str| -> f64 {
        let mut times: Vec<f64> = with_metric(&records, "run_wall_time")
            .iter()
            .filter(|record| scan_value(run_params(record).scan) == value)
            .map(|record| record.value)
            .collect();
        assert_eq!(times.len(), 3);
        median(&mut times)
    };
    let (one, four) = (times("1"), times("4"));
    let of = |metric: &str, value: &str| -> f64 {
        let found = with_metric(&records, metric);
        let record = found
            .iter()
            .find(|record| scan_value(params_of::<ScanRatioParams>(record).labels.scan) == value)
            .unwrap_or_else(|| panic!("no {metric} record for t={value}"));
        assert_eq!(
            params_of::<ScanRatioParams>(record).baseline_workers,
            Some(1.0)
        );
        assert_eq!(record.unit, Unit::Ratio);
        record.value
    };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
    assert!(close(of("speedup", "4"), one / four));
    assert!(close(of("parallel_efficiency", "4"), one / four / 4.0));
    assert!(close(of("speedup", "1"), 1.0));
    assert!(close(of("parallel_efficiency", "1"), 1.0));
    // t=4 sleeps 40 ms, t=1 10 ms: far below 1 (a scan that did not substitute would be near 1, or 0.25).
    assert!(
        of("parallel_efficiency", "4") < 0.2,
        "{}",
        of("parallel_efficiency", "4")
    );
}

/// A failing run names its configuration and exit status; the runs that
/// finished are kept in the output file.
#[test]
fn a_failing_configuration_is_named_and_finished_runs_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("scan.jsonl");
    let output = numabench()
        .args([
            "run", "--repeat", "2", "--warmup", "0", "--param", "code=0,3", "--jsonl",
        ])
        .arg(&jsonl)
        .args(["--", "sh", "-c", "exit $0", "{code}"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("'sh -c exit $0 3' failed under policy as-is with code=3 (exit status 3)"),
        "{stderr}"
    );
    let (_, records) = typed_jsonl(&jsonl);
    let runs = with_metric(&records, "run_wall_time");
    assert_eq!(runs.len(), 2);
    assert_eq!(run_params(runs[0]).exit_code, Some(0));
    assert_eq!(run_params(runs[1]).exit_code, Some(3));
}

/// `--plan` lists every configuration (values x policy) with its command, in
/// the order they run, and runs nothing.
#[test]
fn the_plan_of_a_scan_lists_every_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let output = succeeded(
        numabench()
            .args([
                "run",
                "--plan",
                "--json",
                "--param",
                "t=1,2",
                "--policy",
                "as-is",
                "--policy",
                "pin-scatter",
                "--",
                "sh",
                "-c",
                "touch \"$0\"",
            ])
            .arg(&marker)
            .arg("{t}"),
    );
    let plan: RunPlan = read_plan("run --plan --json --param t=1,2", &output.stdout);
    let steps = &plan.steps;
    assert_eq!(
        run_labels(steps),
        [
            "t=1 | as-is",
            "t=1 | pin-scatter",
            "t=2 | as-is",
            "t=2 | pin-scatter"
        ]
    );
    assert_eq!(steps[3].command.last().map(String::as_str), Some("2"));
    assert!(!marker.exists(), "the plan ran the program");
}
