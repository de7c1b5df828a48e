//! The scan loop with a fake executor whose run time follows the command's
//! worker count: order of runs, failures, speedup and efficiency.

use super::*;
use crate::output::{CollectRunMetadata, Pipeline, RunMetadata};
use crate::topology::discover_this_system;

/// Runs take 1 / sqrt(workers) seconds (the command's last word), or fail
/// with status 3 for the worker count `fail`.
struct FakeExecutor {
    calls: Vec<String>,
    fail: Option<String>,
}

impl Executor for FakeExecutor {
    fn execute(
        &mut self,
        invocation: &Invocation,
        _node_of_cpu: &(dyn Fn(u32) -> Option<u32> + Sync),
    ) -> Result<RunOutcome, RunError> {
        let last = invocation.command.last().unwrap().clone();
        self.calls.push(format!(
            "{} {}",
            invocation.command.join(" "),
            invocation.policy.label
        ));
        let workers: f64 = last.parse().unwrap();
        Ok(RunOutcome {
            wall_seconds: 1.0 / workers.sqrt(),
            exit_code: Some(if self.fail.as_ref() == Some(&last) {
                3
            } else {
                0
            }),
            ..RunOutcome::default()
        })
    }
}

/// Runs `config` on this machine's topology with a fake executor whose
/// worker count `fail` fails: the scan's result and the commands run.
fn run_fake_scan(
    config: &ScanConfig,
    fail: Option<&str>,
) -> (Result<ScanResult, StudyError>, Vec<String>) {
    let mut executor = FakeExecutor {
        calls: Vec::new(),
        fail: fail.map(str::to_string),
    };
    let topology = discover_this_system().unwrap();
    let result = run_scan(
        &mut executor,
        config,
        &topology,
        &mut pipeline(),
        &mut |_| {},
    );
    (result, executor.calls)
}

fn scan(policies: &[&str], params: &[&str], repeat: usize) -> ScanConfig {
    let topology = discover_this_system().unwrap();
    let command = vec!["prog".to_string(), "{t}".to_string()];
    let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
    ScanConfig {
        params: parse_scan(&params, &command).unwrap(),
        study: RunStudyConfig {
            command,
            policies: policies
                .iter()
                .map(|text| parse_policy(text, &topology).unwrap())
                .collect(),
            repeat,
            warmup: 1,
            show_output: false,
            ignore_failure: false,
            observe: None,
            pin_library: None,
            kill_leftovers: false,
        },
    }
}

fn pipeline() -> Pipeline {
    let topology = discover_this_system().unwrap();
    Pipeline::with_sinks(
        Vec::new(),
        &RunMetadata::collect(vec!["test".into()], &topology),
    )
    .unwrap()
}

#[test]
fn configurations_interleave_and_efficiency_follows_the_times() {
    let config = scan(&["as-is", "pin-compact"], &["t=4,1"], 2);
    let (result, calls) = run_fake_scan(&config, None);
    let result = result.unwrap();
    let round = [
        "prog 4 as-is",
        "prog 4 pin-compact",
        "prog 1 as-is",
        "prog 1 pin-compact",
    ];
    // One warm-up round in grid order, then two timed rounds, the second
    // starting with the second configuration.
    let rotated = [&round[1..], &round[..1]].concat();
    assert_eq!(calls, [&round[..], &round[..], &rotated[..]].concat());
    let labels: Vec<&str> = result
        .summaries
        .iter()
        .map(|summary| summary.policy.as_str())
        .collect();
    assert_eq!(
        labels,
        [
            "t=4 | as-is",
            "t=4 | pin-compact",
            "t=1 | as-is",
            "t=1 | pin-compact"
        ]
    );
    // Baseline t=1 (the smallest, not the first): 1 s; t=4: 0.5 s.
    assert_eq!(result.efficiencies.len(), 4);
    let four = &result.efficiencies[0];
    assert_eq!(four.configuration, "t=4 | as-is");
    assert!((four.speedup - 2.0).abs() < 1e-12, "{four:?}");
    assert!((four.efficiency - 0.5).abs() < 1e-12, "{four:?}");
    let one = &result.efficiencies[2];
    assert!((one.speedup - 1.0).abs() < 1e-12 && (one.efficiency - 1.0).abs() < 1e-12);
}

#[test]
fn several_parameters_give_no_efficiency() {
    let command = vec!["prog".to_string(), "{n}".to_string(), "{t}".to_string()];
    let params = vec!["n=a,b".to_string(), "t=1,2".to_string()];
    let mut config = scan(&["as-is"], &["t=1"], 1);
    config.study.command = command.clone();
    config.params = parse_scan(&params, &command).unwrap();
    let result = run_fake_scan(&config, None).0.unwrap();
    let labels: Vec<&str> = result.summaries.iter().map(|s| s.policy.as_str()).collect();
    assert_eq!(labels, ["n=a, t=1", "n=a, t=2", "n=b, t=1", "n=b, t=2"]);
    assert!(result.efficiencies.is_empty());
}

#[test]
fn a_failing_configuration_is_named_and_stops_the_scan() {
    let config = scan(&["as-is"], &["t=1,2,4"], 3);
    let (result, calls) = run_fake_scan(&config, Some("2"));
    let error = result.unwrap_err().to_string();
    assert_eq!(
        error,
        "'prog 2' failed under policy as-is with t=2 (exit status 3); use --ignore-failure to go on"
    );
    // Stopped at the first timed failure (warm-ups are not checked).
    assert_eq!(calls.len(), 3 + 2);
}

/// A scan's summary, speedup and efficiency records keep their params
/// text: keys, order, value types, null as the map writer wrote them.
#[test]
fn a_scans_records_keep_their_params_text() {
    let topology = discover_this_system().unwrap();
    let (mut pipeline, collected) = crate::output::CollectSink::pipeline(&topology);
    let mut executor = FakeExecutor {
        calls: Vec::new(),
        fail: None,
    };
    let config = scan(&["as-is", "pin-compact"], &["t=1,4"], 2);
    run_scan(
        &mut executor,
        &config,
        &topology,
        &mut pipeline,
        &mut |_| {},
    )
    .unwrap();
    let texts: Vec<String> = collected
        .records()
        .into_iter()
        .filter(|record| record.metric != "run_wall_time")
        .map(|record| {
            format!(
                "{} {}",
                record.metric,
                serde_json::Value::Object(record.params)
            )
        })
        .collect();
    assert_eq!(
        texts,
        [
            r#"wall_time {"scan":{"t":"1"},"configuration":"t=1 | as-is","policy":"as-is","command":"prog 1","failures":0,"user_seconds":0.0,"system_seconds":0.0,"max_rss_kib":0,"voluntary_switches":0.0,"involuntary_switches":0.0,"speedup":1.0,"p_value":1.0,"p_value_holm":1.0,"significant":false}"#,
            r#"speedup {"scan":{"t":"1"},"configuration":"t=1 | as-is","policy":"as-is","command":"prog 1","parameter":"t","workers":1.0,"baseline_workers":1.0,"baseline_median_seconds":1.0,"median_seconds":1.0}"#,
            r#"parallel_efficiency {"scan":{"t":"1"},"configuration":"t=1 | as-is","policy":"as-is","command":"prog 1","parameter":"t","workers":1.0,"baseline_workers":1.0,"baseline_median_seconds":1.0,"median_seconds":1.0}"#,
            r#"wall_time {"scan":{"t":"1"},"configuration":"t=1 | pin-compact","policy":"pin-compact","cpu_order":"compact","command":"prog 1","failures":0,"user_seconds":0.0,"system_seconds":0.0,"max_rss_kib":0,"voluntary_switches":0.0,"involuntary_switches":0.0,"speedup":1.0,"p_value":1.0,"p_value_holm":1.0,"significant":false}"#,
            r#"speedup {"scan":{"t":"1"},"configuration":"t=1 | pin-compact","policy":"pin-compact","cpu_order":"compact","command":"prog 1","parameter":"t","workers":1.0,"baseline_workers":1.0,"baseline_median_seconds":1.0,"median_seconds":1.0}"#,
            r#"parallel_efficiency {"scan":{"t":"1"},"configuration":"t=1 | pin-compact","policy":"pin-compact","cpu_order":"compact","command":"prog 1","parameter":"t","workers":1.0,"baseline_workers":1.0,"baseline_median_seconds":1.0,"median_seconds":1.0}"#,
            r#"wall_time {"scan":{"t":"4"},"configuration":"t=4 | as-is","policy":"as-is","command":"prog 4","failures":0,"user_seconds":0.0,"system_seconds":0.0,"max_rss_kib":0,"voluntary_switches":0.0,"involuntary_switches":0.0,"speedup":2.0,"p_value":0.19393085229131998,"p_value_holm":0.38786170458263997,"significant":false}"#,
            r#"speedup {"scan":{"t":"4"},"configuration":"t=4 | as-is","policy":"as-is","command":"prog 4","parameter":"t","workers":4.0,"baseline_workers":1.0,"baseline_median_seconds":1.0,"median_seconds":0.5}"#,
            r#"parallel_efficiency {"scan":{"t":"4"},"configuration":"t=4 | as-is","policy":"as-is","command":"prog 4","parameter":"t","workers":4.0,"baseline_workers":1.0,"baseline_median_seconds":1.0,"median_seconds":0.5}"#,
            r#"wall_time {"scan":{"t":"4"},"configuration":"t=4 | pin-compact","policy":"pin-compact","cpu_order":"compact","command":"prog 4","failures":0,"user_seconds":0.0,"system_seconds":0.0,"max_rss_kib":0,"voluntary_switches":0.0,"involuntary_switches":0.0,"speedup":2.0,"p_value":0.19393085229131998,"p_value_holm":0.38786170458263997,"significant":false}"#,
            r#"speedup {"scan":{"t":"4"},"configuration":"t=4 | pin-compact","policy":"pin-compact","cpu_order":"compact","command":"prog 4","parameter":"t","workers":4.0,"baseline_workers":1.0,"baseline_median_seconds":1.0,"median_seconds":0.5}"#,
            r#"parallel_efficiency {"scan":{"t":"4"},"configuration":"t=4 | pin-compact","policy":"pin-compact","cpu_order":"compact","command":"prog 4","parameter":"t","workers":4.0,"baseline_workers":1.0,"baseline_median_seconds":1.0,"median_seconds":0.5}"#,
        ]
    );
}
