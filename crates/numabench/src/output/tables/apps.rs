//! Application runs (`stream`, `cg`, `mg`): each configuration (placement
//! and thread scheme) against its run time, Mop/s and verification; STREAM's
//! kernels against GB/s; the run's other facts in a note.

use super::cells::{distinct, figure, placement_note};
use super::{generic, TableModel};
use crate::output::{params_text, Record};
use crate::units::format_value;
use numabench_schema::params::{AppConfiguration, AppParams};
use serde_json::{Map, Value};

/// Params the configuration table shows as columns (the note leaves them out).
const SHOWN: &[&str] = &[
    "placement",
    "threads_placement",
    "threads",
    "verification",
    "run_seconds",
    "simd",
    "simd_chosen_by",
    "simd_calibration",
];

/// An app record's configuration (every app record names it with the same
/// keys).
fn app_configuration(record: &Record) -> AppConfiguration {
    record.params_or_default::<AppParams>().run.configuration
}

/// A record's configuration, as `placement + threads scheme`.
fn configuration(record: &Record) -> String {
    let app = app_configuration(record);
    let part = |text: Option<String>| text.unwrap_or_else(|| "-".into());
    let mut text = format!(
        "{} + {}",
        part(app.scheme.placement),
        part(app.threads_placement)
    );
    if let Some(per_cpu) = app.threads.threads_per_cpu.filter(|&k| k > 1) {
        text.push_str(&format!(" x{per_cpu}/cpu"));
    }
    text
}

/// `passed`, `FAILED` or `-` from `params.verification.passed`.
fn verified(record: &Record) -> String {
    match record.params_or_default::<AppParams>().run.verification {
        Some(verification) if verification.passed => "passed".into(),
        Some(_) => "FAILED".into(),
        None => "-".into(),
    }
}

/// The configuration table, STREAM's kernel table, then any other metric.
pub fn tables(records: &[&Record]) -> Vec<TableModel> {
    let times: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| record.metric == "time")
        .collect();
    let mut tables = Vec::new();
    if times.is_empty() {
        return generic::tables(records);
    }
    let benchmark = &times[0].benchmark;
    let mut table = TableModel::new(
        format!("{benchmark}: run time by configuration"),
        &[
            "configuration",
            "threads",
            "median s",
            "min s",
            "max s",
            "Mop/s",
            "verified",
        ],
    );
    for time in &times {
        let same_run = |metric: &str| {
            records.iter().copied().find(|record| {
                record.metric == metric
                    && configuration(record) == configuration(time)
                    && app_configuration(record).threads.threads
                        == app_configuration(time).threads.threads
            })
        };
        table.push(vec![
            configuration(time),
            app_configuration(time)
                .threads
                .threads
                .map_or("-".into(), |threads| threads.to_string()),
            figure(time),
            format_value(time.stats.min),
            format_value(time.stats.max),
            same_run("mops").map_or("-".into(), |mops| format_value(mops.value)),
            verified(time),
        ]);
    }
    for time in &times {
        let rest: Map<String, Value> = time
            .params
            .iter()
            .filter(|(key, _)| !SHOWN.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let prefix = match times.len() {
            1 => String::new(),
            _ => format!("{}: ", configuration(time)),
        };
        table.note(format!("{prefix}{}", params_text(&rest)));
    }
    table.notes.extend(placement_note(&times));
    tables.push(table);
    let kernels: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| record.metric.ends_with("_bandwidth"))
        .collect();
    if !kernels.is_empty() {
        let configurations = distinct(kernels.iter().map(|record| configuration(record)));
        let mut header = vec!["kernel".to_string()];
        header.extend(configurations.iter().map(|name| format!("{name} GB/s")));
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        let mut by_kernel = TableModel::new(format!("{benchmark}: bandwidth by kernel"), &header);
        for metric in distinct(kernels.iter().map(|record| record.metric.clone())) {
            let mut row = vec![metric.trim_end_matches("_bandwidth").to_string()];
            for name in &configurations {
                row.push(
                    kernels
                        .iter()
                        .find(|record| record.metric == metric && configuration(record) == *name)
                        .map_or("-".into(), |record| figure(record)),
                );
            }
            by_kernel.push(row);
        }
        tables.push(by_kernel);
    }
    let others: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| {
            !["time", "mops", "first_iteration_time"].contains(&record.metric.as_str())
                && !record.metric.ends_with("_bandwidth")
        })
        .collect();
    tables.extend(generic::tables(&others));
    tables
}
