//! Sentences from the node x node matrices (`matrix-latency`,
//! `matrix-bandwidth` records; per-CPU rows are left out): for each CPU
//! node, what its remote CPU nodes cost against its local node, and for
//! each CPU-less node (a memory node that is never a row) what it costs
//! against the local node of the CPU node nearest to it.

use super::{factor, factor_range, param_u64, Sentence};
use crate::output::{Record, Unit};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// (cpu_node, mem_node) -> value of one matrix.
type Matrix = BTreeMap<(u64, u64), f64>;

/// The cells of `benchmark`'s `metric` (of one `mode`, the first seen,
/// when the bandwidth matrix was measured in several).
fn matrix(records: &[Record], benchmark: &str, metric: &str) -> Matrix {
    let cells = || {
        records
            .iter()
            .filter(move |record| record.benchmark == benchmark && record.metric == metric)
            .filter(|record| record.params.get("per_cpu").is_none())
    };
    let mode = cells().next().and_then(|record| record.params.get("mode"));
    cells()
        .filter(|record| record.params.get("mode") == mode)
        .filter_map(|record| {
            Some((
                (
                    param_u64(record, "cpu_node")?,
                    param_u64(record, "mem_node")?,
                ),
                record.value,
            ))
        })
        .collect()
}

/// Remote over local for row `cpu_node` and column `mem_node`.
fn ratio(matrix: &Matrix, cpu_node: u64, mem_node: u64) -> Option<f64> {
    let local = matrix.get(&(cpu_node, cpu_node))?;
    let remote = matrix.get(&(cpu_node, mem_node))?;
    (*local > 0.0).then(|| remote / local)
}

fn node_list(nodes: &[u64]) -> String {
    let names: Vec<String> = nodes.iter().map(u64::to_string).collect();
    match names.len() {
        1 => format!("node {}", names[0]),
        _ => format!("nodes {}", names.join(", ")),
    }
}

pub(super) fn sentences(records: &[Record]) -> Vec<super::Sentence> {
    let latency = matrix(records, "matrix-latency", "latency");
    let bandwidth = matrix(records, "matrix-bandwidth", "read_bandwidth");
    let rows: BTreeSet<u64> = latency
        .keys()
        .chain(bandwidth.keys())
        .map(|(row, _)| *row)
        .collect();
    let columns: BTreeSet<u64> = latency
        .keys()
        .chain(bandwidth.keys())
        .map(|(_, column)| *column)
        .collect();
    let mut sentences = Vec::new();
    for &row in &rows {
        let remote: Vec<u64> = rows.iter().copied().filter(|&node| node != row).collect();
        let ratios = |matrix: &Matrix| -> Vec<f64> {
            remote
                .iter()
                .filter_map(|&node| ratio(matrix, row, node))
                .collect()
        };
        let (latency_ratios, bandwidth_ratios) = (ratios(&latency), ratios(&bandwidth));
        let mut parts = Vec::new();
        if !latency_ratios.is_empty() {
            parts.push(format!("{} local latency", factor_range(&latency_ratios)));
        }
        if !bandwidth_ratios.is_empty() {
            parts.push(format!("{} bandwidth", factor_range(&bandwidth_ratios)));
        }
        if parts.is_empty() {
            continue;
        }
        let (value, unit_ratios) = match latency_ratios.is_empty() {
            false => (max(&latency_ratios), "latency"),
            true => (min(&bandwidth_ratios), "bandwidth"),
        };
        let mut params = serde_json::Map::new();
        params.insert("cpu_node".into(), json!(row));
        params.insert("remote_nodes".into(), json!(remote));
        params.insert(
            "value_is".into(),
            json!(format!("worst remote {unit_ratios} over local")),
        );
        sentences.push(Sentence {
            kind: "remote_memory",
            text: format!(
                "remote memory ({}) costs {} from node {row}",
                node_list(&remote),
                parts.join(" and ")
            ),
            value,
            unit: Unit::Ratio,
            params,
        });
    }
    for &column in columns.difference(&rows) {
        // The CPU node nearest to the CPU-less node: the lowest latency
        // ratio, else the highest bandwidth ratio.
        let nearest = |matrix: &Matrix, lowest: bool| {
            rows.iter()
                .filter_map(|&row| Some((row, ratio(matrix, row, column)?)))
                .reduce(|a, b| if (b.1 < a.1) == lowest { b } else { a })
        };
        let by_latency = nearest(&latency, true);
        let by_bandwidth = nearest(&bandwidth, false);
        let Some((row, value)) = by_latency.or(by_bandwidth) else {
            continue;
        };
        let mut parts = Vec::new();
        if let Some((_, latency_ratio)) = by_latency {
            parts.push(format!("{} latency", factor(latency_ratio)));
        }
        if let Some(bandwidth_ratio) = ratio(&bandwidth, row, column) {
            parts.push(format!("{} bandwidth", factor(bandwidth_ratio)));
        }
        let mut params = serde_json::Map::new();
        params.insert("mem_node".into(), json!(column));
        params.insert("cpu_node".into(), json!(row));
        sentences.push(Sentence {
            kind: "cpuless_node",
            text: format!(
                "node {column} is CPU-less: {} of node {row}'s local memory, from node {row}",
                parts.join(" and ")
            ),
            value,
            unit: Unit::Ratio,
            params,
        });
    }
    sentences
}

fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

fn min(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}
