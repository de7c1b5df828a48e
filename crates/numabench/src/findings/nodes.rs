//! A node whose own memory is slow: its local cell (its CPUs reading its
//! memory) against the other nodes' local cells, in latency
//! (`matrix-latency`) and in read bandwidth (`matrix-bandwidth`, the
//! serial and the parallel matrix as two measurements of the same
//! memory), and in what the node's CPUs measured one by one on it
//! (`per-cpu`). The slow-DIMM-channel case: a missing channel or DIMM costs a
//! node 8-10% of its bandwidth and shows nowhere else. Only measured cells
//! count (never an inferred one), and only a gap beyond the noise
//! ([`super::noise`]).

use super::figures::{figure, matrix_modes, matrix_records_of_mode, of, significant};
use super::noise::{median, robust_spread, stands_out, z_for};
use super::{FindingKind, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use numabench_schema::params::findings::{CpulessNodeParams, SlowNodeParams};
use numabench_schema::params::to_params;
use std::collections::BTreeMap;

/// The smallest gap in local latency named (3%: latency repeats within
/// about 1%).
pub const LATENCY_MARGIN: f64 = 0.03;
/// The smallest gap in local bandwidth named (4%: bandwidth repeats
/// within about 3%).
pub const BANDWIDTH_MARGIN: f64 = 0.04;

/// The fewest nodes a comparison needs: with two, neither is "the odd one".
const MIN_NODES: usize = 3;

/// The fewest nodes whose gaps' spread estimates the nodes' own variation
/// (a spread of fewer swings with one value).
const ESTIMATE_NODES: usize = 8;

/// The nodes' own variation where fewer than [`ESTIMATE_NODES`] are
/// compared (1%: healthy nodes' local figures differ by about that).
const NODE_VARIATION_ASSUMED: f64 = 0.01;

/// The least variation between nodes assumed where it is estimated.
const NODE_VARIATION_FLOOR: f64 = 0.005;

/// One matrix's local cells: each node's gap to the nodes' median
/// (positive: worse) with its uncertainty, and the figures.
struct Source {
    label: String,
    /// Node -> (gap, uncertainty of the gap).
    gaps: BTreeMap<u64, (f64, f64)>,
    median: f64,
    /// Node -> its figure (the mean of its repetitions, or of its CPUs').
    figures: BTreeMap<u64, f64>,
}

/// The local cells of one matrix (one `mode`), where at least
/// [`MIN_NODES`] were measured; `higher_is_worse` for latency. Each
/// node's figure is the mean of its repetitions; a gap's uncertainty is
/// the repetitions' noise (their coefficient of variation pooled over
/// every cell, steadier than one cell's of 3-5 values) over its count,
/// plus the nodes' own variation beyond that noise (from the robust
/// spread of the gaps).
fn source(
    cells: BTreeMap<(u64, u64), &Record>,
    higher_is_worse: bool,
    label: String,
) -> Option<Source> {
    let local: BTreeMap<u64, &Record> = cells
        .into_iter()
        .filter(|((row, column), _)| row == column)
        .map(|((row, _), record)| (row, record))
        .collect();
    if local.len() < MIN_NODES {
        return None;
    }
    let values: Vec<f64> = local.values().map(|record| record.stats.mean).collect();
    let middle = median(&values).filter(|middle| *middle > 0.0)?;
    // Against the median of the other nodes: a slow node does not pull
    // its own reference down (with 4 nodes it would, by a quarter).
    let others = |node: u64| {
        let rest: Vec<f64> = local
            .iter()
            .filter(|(other, _)| **other != node)
            .map(|(_, record)| record.stats.mean)
            .collect();
        median(&rest).unwrap_or(middle)
    };
    let gap_of = |node: u64, record: &Record| {
        let ratio = record.stats.mean / others(node);
        if higher_is_worse {
            ratio - 1.0
        } else {
            1.0 - ratio
        }
    };
    let variance = local
        .values()
        .map(|record| record.stats.cv.powi(2))
        .sum::<f64>()
        / local.len() as f64;
    let count = median(&local.values().map(|r| r.stats.n as f64).collect::<Vec<_>>())
        .unwrap_or(1.0)
        .max(1.0);
    // The nodes' own variation beyond the noise (no two healthy nodes
    // are equal).
    let between = between_nodes(
        &local
            .iter()
            .map(|(&node, r)| gap_of(node, r))
            .collect::<Vec<_>>(),
        variance / count,
    );
    let gaps = local
        .iter()
        .map(|(&node, record)| {
            let noise = variance / record.stats.n.max(1) as f64;
            (node, (gap_of(node, record), (noise + between).sqrt()))
        })
        .collect();
    Some(Source {
        label,
        gaps,
        median: middle,
        figures: local
            .iter()
            .map(|(&node, r)| (node, r.stats.mean))
            .collect(),
    })
}

/// The nodes' own variation beyond the noise, from the gaps of `count`
/// nodes whose noise variance is `noise`: estimated where there are
/// enough nodes, else assumed, never below a floor.
fn between_nodes(gaps: &[f64], noise: f64) -> f64 {
    if gaps.len() >= ESTIMATE_NODES {
        (robust_spread(gaps).powi(2) - noise).max(NODE_VARIATION_FLOOR.powi(2))
    } else {
        NODE_VARIATION_ASSUMED.powi(2)
    }
}

/// Each node's CPUs measured one by one on their own node's memory
/// (`per-cpu`, `metric`): a further measurement of the node's memory,
/// the node's figure the mean of its CPUs', its noise their spread
/// (pooled over the nodes) over their count. Where at least
/// [`MIN_NODES`] nodes were measured.
fn per_cpu_source(
    records: &[Record],
    metric: &str,
    higher_is_worse: bool,
    label: String,
) -> Option<Source> {
    let mut by_node: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for record in of(records, benchmark::PER_CPU, metric) {
        if record
            .params
            .get("mem_node")
            .is_some_and(|node| !node.is_null())
        {
            continue;
        }
        if let Some(node) = record.params.get("cpu_node").and_then(|node| node.as_u64()) {
            by_node.entry(node).or_default().push(record.stats.mean);
        }
    }
    if by_node.len() < MIN_NODES {
        return None;
    }
    let figures: BTreeMap<u64, f64> = by_node
        .iter()
        .map(|(&node, values)| (node, values.iter().sum::<f64>() / values.len() as f64))
        .collect();
    // The CPUs' spread within a node, relative, pooled over the nodes.
    let spreads: Vec<f64> = by_node
        .iter()
        .filter(|(_, values)| values.len() >= 2)
        .map(|(node, values)| {
            let mean = figures[node];
            values.iter().map(|v| (v / mean - 1.0).powi(2)).sum::<f64>() / (values.len() - 1) as f64
        })
        .collect();
    let within = match spreads.len() {
        0 => 0.03f64.powi(2),
        n => spreads.iter().sum::<f64>() / n as f64,
    };
    let middle = median(&figures.values().copied().collect::<Vec<_>>()).filter(|m| *m > 0.0)?;
    let gap_of = |node: u64| {
        let rest: Vec<f64> = figures
            .iter()
            .filter(|(other, _)| **other != node)
            .map(|(_, value)| *value)
            .collect();
        let ratio = figures[&node] / median(&rest).unwrap_or(middle);
        if higher_is_worse {
            ratio - 1.0
        } else {
            1.0 - ratio
        }
    };
    let all: Vec<f64> = figures.keys().map(|&node| gap_of(node)).collect();
    let typical =
        median(&by_node.values().map(|v| v.len() as f64).collect::<Vec<_>>()).unwrap_or(1.0);
    let between = between_nodes(&all, within / typical);
    let gaps = by_node
        .iter()
        .map(|(&node, values)| {
            (
                node,
                (
                    gap_of(node),
                    (within / values.len() as f64 + between).sqrt(),
                ),
            )
        })
        .collect();
    Some(Source {
        label,
        gaps,
        median: middle,
        figures,
    })
}

/// The slow nodes of one metric over its sources (their gaps averaged,
/// their uncertainties combined), the worst first.
fn slow_nodes(sources: &[Source], margin: f64, z: f64) -> Vec<(u64, f64, f64)> {
    let mut nodes: Vec<u64> = sources
        .iter()
        .flat_map(|s| s.gaps.keys().copied())
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    let mut slow: Vec<(u64, f64, f64)> = nodes
        .into_iter()
        .filter_map(|node| {
            let parts: Vec<(f64, f64)> = sources
                .iter()
                .filter_map(|s| s.gaps.get(&node).copied())
                .collect();
            let count = parts.len() as f64;
            let gap = parts.iter().map(|p| p.0).sum::<f64>() / count;
            let uncertainty = parts.iter().map(|p| p.1 * p.1).sum::<f64>().sqrt() / count;
            stands_out(gap, margin, uncertainty, z).then_some((node, gap, uncertainty))
        })
        .collect();
    slow.sort_by(|a, b| b.1.total_cmp(&a.1));
    slow
}

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    let mut latency: Vec<Source> = source(
        matrix_records_of_mode(records, benchmark::MATRIX_LATENCY, "latency", None),
        true,
        "latency".into(),
    )
    .into_iter()
    .collect();
    latency.extend(per_cpu_source(
        records,
        "latency",
        true,
        "per-CPU latency".into(),
    ));
    let bandwidth: Vec<Source> =
        matrix_modes(records, benchmark::MATRIX_BANDWIDTH, "read_bandwidth")
            .into_iter()
            .filter_map(|mode| {
                let label = match mode.and_then(|mode| mode.as_str()) {
                    Some(mode) => format!("read bandwidth ({mode})"),
                    None => "read bandwidth".into(),
                };
                source(
                    matrix_records_of_mode(
                        records,
                        benchmark::MATRIX_BANDWIDTH,
                        "read_bandwidth",
                        mode,
                    ),
                    false,
                    label,
                )
            })
            .collect();
    let mut bandwidth = bandwidth;
    bandwidth.extend(per_cpu_source(
        records,
        "read_bandwidth",
        false,
        "per-CPU read bandwidth".into(),
    ));
    let tested: usize = [&latency, &bandwidth]
        .iter()
        .filter_map(|sources| sources.first().map(|s| s.gaps.len()))
        .sum();
    let z = z_for(tested);
    let mut sentences = Vec::new();
    for (sources, margin, what, unit, above) in [
        (&latency, LATENCY_MARGIN, "latency", "ns", "above"),
        (
            &bandwidth,
            BANDWIDTH_MARGIN,
            "read bandwidth",
            "GB/s",
            "below",
        ),
    ] {
        for (node, gap, uncertainty) in slow_nodes(sources, margin, z) {
            let figures: Vec<String> = sources
                .iter()
                .filter_map(|s| {
                    let value = s.figures.get(&node)?;
                    Some(format!(
                        "{} {} against a median of {}",
                        s.label,
                        figure(*value, unit),
                        figure(s.median, unit)
                    ))
                })
                .collect();
            let compared = sources.iter().map(|s| s.gaps.len()).max().unwrap_or(0);
            let params = to_params(&SlowNodeParams {
                node: CpulessNodeParams {
                    mem_node: Some(node),
                    cpu_node: Some(node),
                },
                metric: Some(what.to_string()),
                gap: Some(gap),
                uncertainty: Some(uncertainty),
                nodes_compared: Some(compared as u64),
            });
            sentences.push(Sentence {
                kind: FindingKind::SlowNode,
                text: format!(
                    "node {node}'s own memory is slow in {what}: {:.0}% {above} the median of the {compared} nodes' local cells ({}; beyond the noise, which allows {}%)",
                    gap * 100.0,
                    figures.join(", "),
                    significant(z * uncertainty * 100.0)
                ),
                value: if above == "above" { 1.0 + gap } else { 1.0 - gap },
                unit: Unit::Ratio,
                params,
            });
        }
    }
    sentences
}
