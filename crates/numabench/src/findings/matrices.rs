//! CPU-less nodes (a memory node that is never a matrix row): what each
//! costs against the local memory of the CPU node nearest to it, from the
//! node x node matrices (`matrix-latency`, `matrix-bandwidth` records;
//! per-CPU rows are left out).

use super::figures::{matrix, ratio, Matrix};
use super::{factor, FindingKind, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use numabench_schema::params::findings::CpulessNodeParams;
use numabench_schema::params::to_params;
use std::collections::BTreeSet;

pub(super) fn sentences(records: &[Record]) -> Vec<super::Sentence> {
    let latency = matrix(records, benchmark::MATRIX_LATENCY, "latency");
    let bandwidth = matrix(records, benchmark::MATRIX_BANDWIDTH, "read_bandwidth");
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
        let params = to_params(&CpulessNodeParams {
            mem_node: Some(column),
            cpu_node: Some(row),
        });
        sentences.push(Sentence {
            kind: FindingKind::CpulessNode,
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
