//! The per-rank summary table of a monitored run, and TLP per host.

use crate::output::Record;
use crate::units::{format_percent, format_value};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

fn param_text(record: &Record, key: &str) -> String {
    match record.params.get(key) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// One row per rank (wall time, MPI share, time per class, messages by
/// size class) and one per host (cores, TLP_1..TLP_4), from
/// `mpi-monitor` records; other records are ignored.
pub fn summary_table(records: &[Record]) -> String {
    let monitor = records
        .iter()
        .filter(|record| record.benchmark == super::BENCHMARK);
    let mut ranks: BTreeMap<i64, BTreeMap<&str, &Record>> = BTreeMap::new();
    let mut hosts: BTreeMap<String, BTreeMap<&str, &Record>> = BTreeMap::new();
    for record in monitor {
        if let Some(rank) = record.params.get("rank").and_then(Value::as_i64) {
            ranks
                .entry(rank)
                .or_default()
                .insert(record.metric.as_str(), record);
        } else if record.params.contains_key("cores") {
            hosts
                .entry(param_text(record, "host"))
                .or_default()
                .insert(record.metric.as_str(), record);
        }
    }
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:>5}  {:<16} {:>9} {:>7} {:>9} {:>9} {:>9}  {:>18}",
        "rank", "host", "wall s", "MPI", "p2p s", "wait s", "coll s", "msgs small/med/lg"
    );
    for (rank, metrics) in &ranks {
        let value = |metric: &str| metrics.get(metric).map(|record| record.value);
        let seconds = |metric: &str| value(metric).map_or("-".to_string(), format_value);
        let count = |metric: &str| value(metric).map_or("-".to_string(), |v| format!("{v:.0}"));
        let host = metrics
            .values()
            .next()
            .map(|record| param_text(record, "host"))
            .unwrap_or_default();
        let _ = writeln!(
            text,
            "{rank:>5}  {host:<16} {:>9} {:>7} {:>9} {:>9} {:>9}  {:>18}",
            seconds("wall_time"),
            value("mpi_share").map_or("-".to_string(), format_percent),
            seconds("p2p_time"),
            seconds("wait_time"),
            seconds("collective_time"),
            format!(
                "{}/{}/{}",
                count("small_messages"),
                count("medium_messages"),
                count("large_messages")
            ),
        );
    }
    for (host, metrics) in &hosts {
        let cores = metrics
            .values()
            .next()
            .map(|record| param_text(record, "cores"))
            .unwrap_or_default();
        let ranks_on_host = metrics
            .values()
            .next()
            .map(|record| param_text(record, "ranks_on_host"))
            .unwrap_or_default();
        let tlp: Vec<String> = (1..=4)
            .map(|n| {
                let figure = metrics
                    .get(format!("tlp_{n}").as_str())
                    .map_or("-".to_string(), |record| format_percent(record.value));
                format!("TLP_{n} {figure}")
            })
            .collect();
        let _ = writeln!(
            text,
            "host {host}: {ranks_on_host} rank(s) on {cores} core(s): {}",
            tlp.join(", ")
        );
    }
    if hosts.is_empty() && !ranks.is_empty() {
        text.push_str("no TLP figures: the monitor had no host table\n");
    }
    // POP efficiencies, the job's and each host's (the last run's, as the rows).
    let mut pop: BTreeMap<String, BTreeMap<&str, f64>> = BTreeMap::new();
    for record in records.iter().filter(|record| {
        record.benchmark == super::BENCHMARK && super::POP_METRICS.contains(&record.metric.as_str())
    }) {
        let scope = match record.params.get("scope").and_then(Value::as_str) {
            Some("host") => format!("host {}", param_text(record, "host")),
            _ => "job".to_string(),
        };
        pop.entry(scope)
            .or_default()
            .insert(record.metric.as_str(), record.value);
    }
    for (scope, metrics) in &pop {
        let figure = |metric: &str| {
            metrics
                .get(metric)
                .map_or("-".to_string(), |v| format_percent(*v))
        };
        let _ = writeln!(
            text,
            "POP {scope}: load balance {}, communication efficiency {}, parallel efficiency {}",
            figure("load_balance"),
            figure("communication_efficiency"),
            figure("parallel_efficiency")
        );
    }
    text
}
