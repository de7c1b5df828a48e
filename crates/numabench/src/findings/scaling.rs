//! Sentences from `scaling` records: for each curve (kernel, CPU node,
//! memory node), the fewest threads that reach 90% of the curve's peak,
//! and the share of that peak one thread gets.

use super::{FindingKind, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use numabench_schema::params::findings::BandwidthSaturationParams;
use numabench_schema::params::to_params;
use std::collections::BTreeMap;

/// Share of the peak that counts as saturated.
pub const SATURATION: f64 = 0.9;

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    // (kernel, cpu_node, mem_node) -> (threads, GB/s) in record order.
    let mut curves: BTreeMap<(String, u64, u64), Vec<(u64, f64)>> = BTreeMap::new();
    for record in records
        .iter()
        .filter(|record| record.benchmark == benchmark::SCALING)
    {
        let Some((cpu_node, mem_node, threads)) = record.typed_params().node_pair_threads() else {
            continue;
        };
        let kernel = record
            .metric
            .strip_suffix("_bandwidth")
            .unwrap_or(&record.metric)
            .to_string();
        curves
            .entry((kernel, cpu_node, mem_node))
            .or_default()
            .push((threads, record.value));
    }
    curves
        .into_iter()
        .filter(|(_, points)| points.len() > 1)
        .filter_map(|((kernel, cpu_node, mem_node), points)| {
            let peak = points.iter().map(|point| point.1).fold(0.0, f64::max);
            let most = points.iter().map(|point| point.0).max()?;
            let one = points.iter().find(|point| point.0 == 1).map(|point| point.1);
            let saturated = points
                .iter()
                .filter(|point| point.1 >= SATURATION * peak)
                .map(|point| point.0)
                .min()?;
            let whose = if cpu_node == mem_node {
                format!("node {mem_node}'s local")
            } else {
                format!("node {mem_node}'s (from node {cpu_node})")
            };
            let mut counts: Vec<u64> = points.iter().map(|point| point.0).collect();
            counts.sort_unstable();
            counts.dedup();
            let one_share = one.filter(|_| peak > 0.0).map(|one| one / peak);
            let params = to_params(&BandwidthSaturationParams {
                kernel: Some(kernel.clone()),
                cpu_node: Some(cpu_node),
                mem_node: Some(mem_node),
                threads_measured: Some(most),
                counts_measured: Some(counts),
                peak_gbs: Some(peak),
                one_thread_share: one_share,
            });
            let one_text = one_share
                .map(|share| format!("; one thread gets {:.0}% of it", share * 100.0))
                .unwrap_or_default();
            Some(Sentence {
                kind: FindingKind::BandwidthSaturation,
                text: format!(
                    "{whose} {kernel} bandwidth saturates at {saturated} of {most} threads ({}% of its peak, {peak:.1} GB/s){one_text}",
                    SATURATION * 100.0
                ),
                value: saturated as f64,
                unit: Unit::Count,
                params,
            })
        })
        .collect()
}
