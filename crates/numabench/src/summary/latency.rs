//! Latency findings: the idle latency of each cache level and of memory
//! (the `latency` sweep, each size's `cache_level`), and memory latency
//! local against remote over every pair of CPU nodes (`matrix-latency`).

use super::figures::{coverage_text, figure, figure_span, local_and_remote, matrix, of, span};
use super::{factor_range, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use serde_json::{json, Map};

/// Per cache level, the first size of the sweep that the level holds (and
/// the level below does not): the level's own figure, least mixed with the
/// next. Levels in the sweep's order, `memory` last.
fn levels(records: &[Record]) -> Vec<(String, f64, u64)> {
    let mut sweep: Vec<&Record> = of(records, benchmark::LATENCY, "latency")
        .filter(|record| record.typed_params().cache_level().is_some())
        .collect();
    // One CPU's sweep: the first record's.
    let cpu = sweep.first().and_then(|record| record.typed_params().cpu());
    sweep.retain(|record| record.typed_params().cpu() == cpu);
    sweep.sort_by_key(|record| record.typed_params().size_bytes());
    let mut levels: Vec<(String, f64, u64)> = Vec::new();
    for record in sweep {
        let level = record.typed_params().cache_level().unwrap_or_default();
        if !levels.iter().any(|(seen, _, _)| seen == level) {
            let size = record.typed_params().size_bytes().unwrap_or(0);
            levels.push((level.to_string(), record.value, size));
        }
    }
    levels
}

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    let mut sentences = Vec::new();
    let levels = levels(records);
    if let Some((_, memory_ns, _)) = levels.last() {
        let cpu = of(records, benchmark::LATENCY, "latency")
            .find_map(|record| record.typed_params().cpu())
            .unwrap_or(0);
        let parts: Vec<String> = levels
            .iter()
            .map(|(level, ns, _)| format!("{level} {}", figure(*ns, "ns")))
            .collect();
        let mut params = Map::new();
        params.insert("cpu".into(), json!(cpu));
        for (level, ns, size) in &levels {
            let name = level.replace([' ', '-'], "_").to_lowercase();
            params.insert(format!("{name}_ns"), json!(ns));
            params.insert(format!("{name}_size_bytes"), json!(size));
        }
        sentences.push(Sentence {
            kind: "idle_latency",
            text: format!("idle latency from CPU {cpu}: {}", parts.join(", ")),
            value: *memory_ns,
            unit: Unit::Nanoseconds,
            params,
        });
    }
    let latency = matrix(records, benchmark::MATRIX_LATENCY, "latency");
    let (local, remote) = local_and_remote(&latency);
    if let (Some(local_span), Some(remote_span)) = (
        span(local.iter().map(|cell| cell.2)),
        span(remote.iter().map(|cell| cell.2)),
    ) {
        let ratios: Vec<(u64, u64, f64)> = remote
            .iter()
            .filter_map(|&(row, column, value)| {
                let own = latency.get(&(row, row))?;
                Some((row, column, value / own))
            })
            .collect();
        let worst = ratios
            .iter()
            .copied()
            .reduce(|a, b| if b.2 > a.2 { b } else { a });
        let values: Vec<f64> = ratios.iter().map(|cell| cell.2).collect();
        let mut params = Map::new();
        params.insert("local_ns".into(), json!([local_span.0, local_span.1]));
        params.insert("remote_ns".into(), json!([remote_span.0, remote_span.1]));
        let mut text = format!(
            "memory latency: local {}, remote {}",
            figure_span(local_span, "ns"),
            figure_span(remote_span, "ns")
        );
        if let Some((row, column, ratio)) = worst {
            text.push_str(&format!(
                " ({} local; worst node {row}'s CPUs reading node {column}{})",
                factor_range(&values),
                coverage_text(records, benchmark::MATRIX_LATENCY, "latency")
            ));
            params.insert("worst_cpu_node".into(), json!(row));
            params.insert("worst_mem_node".into(), json!(column));
            params.insert("value_is".into(), json!("worst remote latency over local"));
            sentences.push(Sentence {
                kind: "memory_latency",
                text,
                value: ratio,
                unit: Unit::Ratio,
                params,
            });
        }
    }
    sentences
}
