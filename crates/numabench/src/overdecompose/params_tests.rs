//! The over-decomposition records' params keep their text (keys, order,
//! value types, absent and null) as the map writers wrote them: a
//! configuration's summary, one run, and the calibration.

use super::*;
use serde_json::Value;

/// A study on two hosts (a hostfile): its records name the host count.
fn two_host_study() -> StudyConfig {
    let mut config = study(vec![1, 2], 2);
    config.launcher.hosts =
        Hosts::from_hostfile_text(std::path::Path::new("hosts"), "h0 slots=2\nh1 slots=2\n")
            .unwrap();
    config
}

fn summary(config: &StudyConfig, runs: Vec<RunResult>) -> ConfigSummary {
    ConfigSummary {
        configuration: config.configurations()[1].clone(),
        size: choose_rows(&calibration(), 0.25, 2, 1 << 20),
        ny: 8,
        iterations: 5,
        runs,
        speedup: None,
    }
}

fn text(params: serde_json::Map<String, Value>) -> String {
    Value::Object(params).to_string()
}

#[test]
fn a_configurations_records_keep_their_params_text() {
    let config = study(vec![1, 2], 2);
    let verified = summary(&config, vec![run_with(1.0, true), run_with(2.0, true)]);
    let records = verified.records(&config);
    assert!(records
        .iter()
        .all(|record| record.params == records[0].params));
    assert_eq!(
        text(records[0].params.clone()),
        r#"{"target_comm_share":0.25,"predicted_comm_share":0.25,"share_reachable":true,"ranks_per_core":2,"cores":2,"ranks":4,"nx":128,"ny":8,"rows_per_core":120,"iterations":5,"omega":1.5,"repetitions":2,"verified":true,"threads_off_cpu":0,"max_abs_diff":0.0}"#
    );
    // A run without a check: no difference to name, off-CPU threads
    // unknown; several hosts are counted.
    let config = two_host_study();
    let mut unchecked = run_with(1.0, false);
    unchecked.report.verification = None;
    unchecked.report.threads_off_cpu = None;
    let unchecked = summary(&config, vec![unchecked]);
    assert_eq!(
        text(unchecked.params(&config)),
        r#"{"target_comm_share":0.25,"predicted_comm_share":0.25,"share_reachable":true,"ranks_per_core":2,"cores":2,"hosts":2,"ranks":8,"nx":128,"ny":8,"rows_per_core":120,"iterations":5,"omega":1.5,"repetitions":1,"verified":false,"threads_off_cpu":null,"max_abs_diff":null}"#
    );
}

#[test]
fn a_runs_record_keeps_its_params_text() {
    let config = study(vec![1, 2], 2);
    let runs = vec![run_with(1.0, true), run_with(2.0, false)];
    let summary = summary(&config, runs.clone());
    assert_eq!(
        text(summary.run_params(&config, &runs[1], 1)),
        r#"{"target_comm_share":0.25,"predicted_comm_share":0.25,"share_reachable":true,"ranks_per_core":2,"cores":2,"ranks":4,"nx":128,"ny":8,"rows_per_core":120,"iterations":5,"omega":1.5,"max_abs_diff":0.001,"verified":false,"threads_off_cpu":0,"repetition":1}"#
    );
    let config = two_host_study();
    assert_eq!(
        text(summary.run_params(&config, &runs[0], 0)),
        r#"{"target_comm_share":0.25,"predicted_comm_share":0.25,"share_reachable":true,"ranks_per_core":2,"cores":2,"hosts":2,"ranks":4,"nx":128,"ny":8,"rows_per_core":120,"iterations":5,"omega":1.5,"max_abs_diff":0.0,"verified":true,"threads_off_cpu":0,"repetition":0}"#
    );
}

#[test]
fn calibration_records_keep_their_params_text() {
    let records = calibration_records(&study(vec![1], 2), &calibration());
    assert_eq!(
        text(records[0].params.clone()),
        r#"{"phase":"calibration","ranks_per_core":1,"cores":2,"ranks":2,"nx":100,"rows_per_rank":32,"iterations":300}"#
    );
    let records = calibration_records(&two_host_study(), &calibration());
    assert_eq!(
        text(records[1].params.clone()),
        r#"{"phase":"calibration","ranks_per_core":1,"cores":2,"hosts":2,"ranks":4,"nx":100,"rows_per_rank":32,"iterations":300}"#
    );
}
