//! Another core's caches (`numabench cache`): one table per line state, a
//! row per level, a column per measuring CPU (its relation), cells
//! `latency ns / read GB/s`; the DRAM references last.

use super::TableModel;
use crate::output::Record;
use numabench_schema::params::CacheStateParams;
use std::collections::BTreeMap;

/// One table per state: a row per level, a column per measuring CPU (its
/// relation), cells `latency ns / read GB/s`; the DRAM references last.
pub fn tables(records: &[&Record]) -> Vec<TableModel> {
    type Cell = (Option<f64>, Option<f64>);
    // state -> level -> column -> (latency, bandwidth)
    // Levels keyed by (rank, label): L1, L2, L3, then DRAM.
    type Level = (u8, String);
    let mut tables: BTreeMap<String, BTreeMap<Level, BTreeMap<String, Cell>>> = BTreeMap::new();
    let mut columns: Vec<String> = Vec::new();
    // Shared state: column -> the sharer's CPU and why it was chosen.
    let mut sharers: BTreeMap<String, String> = BTreeMap::new();
    for record in records.iter().filter(|r| r.benchmark == "cache") {
        let params: CacheStateParams = record.params_or_default();
        let cpu_text = |cpu: Option<u32>| cpu.map_or_else(String::new, |cpu| cpu.to_string());
        let relation = params.relation.clone().unwrap_or_default();
        let measurer = cpu_text(params.measurer_cpu);
        let mut column = format!("{relation} (CPU {measurer})");
        if let Some(distance) = params.distance {
            if relation.ends_with("package") {
                column = format!("{relation} d={distance} (CPU {measurer})");
            }
        }
        if !columns.contains(&column) {
            columns.push(column.clone());
        }
        let state = params.state.clone().unwrap_or_default();
        if state == "shared" {
            sharers.entry(column.clone()).or_insert_with(|| {
                format!(
                    "CPU {}: {}",
                    cpu_text(params.sharer_cpu),
                    params.sharer_reason.clone().unwrap_or_default()
                )
            });
        }
        let state = match state.as_str() {
            "flushed" => "flushed from every cache: local / remote DRAM".to_string(),
            other => other.to_string(),
        };
        let name = params.level.clone().unwrap_or_default();
        let rank = match name.as_str() {
            "DRAM" => u8::MAX,
            other => other.trim_start_matches('L').parse().unwrap_or(u8::MAX - 1),
        };
        let bytes = params.size_bytes.unwrap_or(0);
        let level = (
            rank,
            format!("{name} ({})", crate::units::format_bytes(bytes)),
        );
        let cell = tables
            .entry(state)
            .or_default()
            .entry(level)
            .or_default()
            .entry(column)
            .or_default();
        match record.metric.as_str() {
            "latency" => cell.0 = Some(record.value),
            "read_bandwidth" => cell.1 = Some(record.value),
            _ => {}
        }
    }
    let order = ["modified", "exclusive", "shared"];
    let mut states: Vec<&String> = tables.keys().collect();
    states.sort_by_key(|state| order.iter().position(|o| o == state).unwrap_or(order.len()));
    let mut header = vec!["level"];
    header.extend(columns.iter().map(String::as_str));
    let mut models = Vec::new();
    for state in states {
        let mut model = TableModel::new(
            format!("State {state}: latency ns / read bandwidth GB/s, measured from"),
            &header,
        );
        for ((_, level), cells) in &tables[state] {
            let mut row = vec![level.clone()];
            for column in &columns {
                row.push(match cells.get(column) {
                    Some((latency, bandwidth)) => format!(
                        "{} / {}",
                        latency.map_or("-".into(), |ns| format!("{ns:.1}")),
                        bandwidth.map_or("-".into(), |gbs| format!("{gbs:.1}"))
                    ),
                    None => "-".into(),
                });
            }
            model.push(row);
        }
        if state == "shared" {
            for column in &columns {
                if let Some(sharer) = sharers.get(column) {
                    model.note(format!("sharer for {column}: {sharer}"));
                }
            }
        }
        models.push(model);
    }
    let others: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| record.metric != "latency" && record.metric != "read_bandwidth")
        .collect();
    models.extend(super::generic::tables(&others));
    models
}
