//! Read bandwidth findings: one thread and all threads of a node, local
//! and remote (`matrix-bandwidth` cells, `scaling` curves), with ratios.

use super::figures::{coverage_text, figure_span, local_and_remote, matrix, of, span};
use super::{factor_range, FindingKind, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use numabench_schema::params::findings::MemoryBandwidthParams;
use numabench_schema::params::to_params;
use std::collections::BTreeMap;

/// The highest figure of each (cpu_node, mem_node) curve of `scaling`'s
/// read bandwidth, with the thread count it took: all threads of a node.
fn all_threads(records: &[Record]) -> BTreeMap<(u64, u64), (f64, u64)> {
    let mut best: BTreeMap<(u64, u64), (f64, u64)> = BTreeMap::new();
    for record in of(records, benchmark::SCALING, "read_bandwidth") {
        let Some((cpu_node, mem_node, threads)) = record.typed_params().node_pair_threads() else {
            continue;
        };
        let entry = best.entry((cpu_node, mem_node)).or_insert((0.0, 0));
        if threads > entry.1 {
            *entry = (record.value, threads);
        }
    }
    best
}

/// One thread's read bandwidth per (cpu_node, mem_node): the serial
/// matrix, else scaling's one-thread points.
fn one_thread(records: &[Record]) -> BTreeMap<(u64, u64), f64> {
    let serial = of(records, benchmark::MATRIX_BANDWIDTH, "read_bandwidth").any(|record| {
        record
            .typed_params()
            .mode()
            .is_none_or(|mode| mode == "serial")
    });
    if serial {
        return matrix(records, benchmark::MATRIX_BANDWIDTH, "read_bandwidth");
    }
    of(records, benchmark::SCALING, "read_bandwidth")
        .filter(|record| record.typed_params().threads() == Some(1))
        .filter_map(|record| {
            Some((
                (
                    record.typed_params().cpu_node()?,
                    record.typed_params().mem_node()?,
                ),
                record.value,
            ))
        })
        .collect()
}

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    let one = one_thread(records);
    let all = all_threads(records);
    let (local, remote) = local_and_remote(&one);
    let Some(local_span) = span(local.iter().map(|cell| cell.2)) else {
        return Vec::new();
    };
    let mut params = MemoryBandwidthParams {
        one_thread_local_gbs: Some([local_span.0, local_span.1]),
        ..Default::default()
    };
    let mut text = format!(
        "read bandwidth, one thread: local {}",
        figure_span(local_span, "GB/s")
    );
    let remote_ratios: Vec<f64> = remote
        .iter()
        .filter_map(|&(row, _, value)| Some(value / one.get(&(row, row))?))
        .collect();
    if let Some(remote_span) = span(remote.iter().map(|cell| cell.2)) {
        text.push_str(&format!(
            ", remote {} ({} local{})",
            figure_span(remote_span, "GB/s"),
            factor_range(&remote_ratios),
            coverage_text(records, benchmark::MATRIX_BANDWIDTH, "read_bandwidth")
        ));
        params.one_thread_remote_gbs = Some([remote_span.0, remote_span.1]);
        // Each remote cell over its own row's local cell: the ratios the
        // text and the advice quote (never one row's remote over another
        // row's local).
        params.one_thread_remote_ratio = span(remote_ratios.iter().copied()).map(|r| [r.0, r.1]);
    }
    let all_local: Vec<(u64, f64, u64)> = all
        .iter()
        .filter(|((cpu_node, mem_node), _)| cpu_node == mem_node)
        .map(|(&(node, _), &(value, threads))| (node, value, threads))
        .collect();
    let mut value = local_span.1;
    if let Some(&(_, peak, threads)) = all_local.first() {
        if threads > 1 {
            let all_span = span(all_local.iter().map(|cell| cell.1)).unwrap_or((peak, peak));
            text.push_str(&format!(
                "; all {threads} threads of a node: local {}",
                figure_span(all_span, "GB/s")
            ));
            // Against the reading node's own local figure, else (scaling
            // reads one node's memory from its node and the farthest) the
            // memory node's local figure: the same memory read locally.
            let all_remote: Vec<f64> = all
                .iter()
                .filter(|((cpu_node, mem_node), _)| cpu_node != mem_node)
                .filter_map(|(&(row, column), &(value, _))| {
                    let local = all
                        .get(&(row, row))
                        .or_else(|| all.get(&(column, column)))?
                        .0;
                    (local > 0.0).then(|| value / local)
                })
                .collect();
            if let Some(remote_all) = span(
                all.iter()
                    .filter(|((cpu_node, mem_node), _)| cpu_node != mem_node)
                    .map(|(_, (value, _))| *value),
            ) {
                text.push_str(&format!(", remote {}", figure_span(remote_all, "GB/s")));
                if !all_remote.is_empty() {
                    text.push_str(&format!(" ({} local)", factor_range(&all_remote)));
                }
            }
            params.all_threads = Some(threads);
            params.all_threads_local_gbs = Some([all_span.0, all_span.1]);
            value = all_span.1;
        }
    }
    vec![Sentence {
        kind: FindingKind::MemoryBandwidth,
        text,
        value,
        unit: Unit::GigabytesPerSecond,
        params: to_params(&params),
    }]
}
