//! The slowest CPU against the other CPUs of its node (`per-cpu`
//! measurements) and the slowest node pair against the pairs at the same
//! SLIT distance (`matrix-latency`, measured cells only: never an
//! inferred one), said only when the gap is beyond the noise
//! ([`super::noise`]): more than [`MARGIN`] and more than `z` times the
//! larger of the figures' own repetition noise and their peers' spread.

use super::figures::{coverage_text, figure, matrix_records, of, param_u64};
use super::noise::{median, median_error, robust_spread, stands_out, z_for};
use super::{FindingKind, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use numabench_schema::params::findings::{SlowCpuParams, SlowNodePairParams};
use numabench_schema::params::to_params;
use std::collections::BTreeMap;

/// The smallest gap named as an outlier (10%).
pub const MARGIN: f64 = 0.10;

/// The fewest measured CPUs whose gaps' spread estimates the CPUs' own
/// variation.
const ESTIMATE_CPUS: usize = 16;

/// The CPUs' own variation where fewer are measured (1%).
const CPU_VARIATION_ASSUMED: f64 = 0.01;

/// The least variation between CPUs assumed where it is estimated.
const CPU_VARIATION_FLOOR: f64 = 0.005;

/// The relative spread of a record's repetitions (their coefficient of
/// variation; 0 when there was one).
fn spread(record: &Record) -> f64 {
    record.stats.cv.abs()
}

/// One CPU's figure against the median of the other measured CPUs of its
/// node: (cpu, node, gap, record), gap positive where slower.
type CpuGap<'a> = (u64, u64, f64, f64, &'a Record);

/// Every measured CPU's gap to its node's other CPUs (leave-one-out, so
/// a node of two CPUs still tells the slow one: the other is faster,
/// not slower); nodes with one measured CPU have nothing to compare.
fn cpu_gaps<'a>(
    records: &'a [Record],
    measured: &'a str,
    slower_is_higher: bool,
) -> Vec<CpuGap<'a>> {
    let mut by_node: BTreeMap<u64, Vec<(u64, &Record)>> = BTreeMap::new();
    for record in of(records, benchmark::PER_CPU, measured) {
        let (Some(cpu), Some(node)) = (record.typed_params().cpu(), param_u64(record, "cpu_node"))
        else {
            continue;
        };
        by_node.entry(node).or_default().push((cpu, record));
    }
    let mut gaps = Vec::new();
    for (node, cpus) in &by_node {
        for &(cpu, record) in cpus {
            let others: Vec<f64> = cpus
                .iter()
                .filter(|(other, _)| *other != cpu)
                .map(|(_, other)| other.stats.median)
                .collect();
            let Some(peers) = median(&others).filter(|peers| *peers > 0.0) else {
                continue;
            };
            let ratio = record.stats.median / peers;
            let gap = if slower_is_higher {
                ratio - 1.0
            } else {
                1.0 - ratio
            };
            gaps.push((cpu, *node, gap, peers, record));
        }
    }
    gaps
}

fn slow_cpus(records: &[Record]) -> Vec<Sentence> {
    let mut sentences = Vec::new();
    for (measured, slower_is_higher, what, unit) in [
        ("latency", true, "latency", "ns"),
        ("read_bandwidth", false, "read bandwidth", "GB/s"),
    ] {
        let gaps = cpu_gaps(records, measured, slower_is_higher);
        if gaps.is_empty() {
            continue;
        }
        let peers_spread = robust_spread(&gaps.iter().map(|g| g.2).collect::<Vec<_>>());
        // The CPUs' repetition noise pooled over every CPU (one CPU's
        // three repetitions say little about its own spread: a slow CPU
        // with one noisy repetition escaped when judged by its own), for
        // a CPU against its peers; plus the CPUs' own variation beyond it,
        // estimated from the gaps' robust spread where there are enough
        // CPUs (a spread of 8 swings with one value: a slow CPU of an
        // 8-CPU machine escaped), else assumed.
        let pooled =
            gaps.iter().map(|g| median_error(g.4).powi(2)).sum::<f64>() / gaps.len() as f64 * 2.0;
        let variation = if gaps.len() >= ESTIMATE_CPUS {
            (peers_spread.powi(2) - pooled).max(CPU_VARIATION_FLOOR.powi(2))
        } else {
            CPU_VARIATION_ASSUMED.powi(2)
        };
        let uncertainty = (pooled + variation).sqrt();
        let z = z_for(gaps.len());
        let worst = gaps
            .iter()
            .filter(|(_, _, gap, _, _)| stands_out(*gap, MARGIN, uncertainty, z))
            .max_by(|a, b| a.2.total_cmp(&b.2));
        let Some(&(cpu, node, gap, peers, record)) = worst else {
            continue;
        };
        let params = to_params(&SlowCpuParams {
            cpu: Some(cpu),
            cpu_node: Some(node),
            metric: Some(measured.to_string()),
            spread: Some(spread(record)),
            peers_median: Some(peers),
        });
        let measured_cpus = gaps.iter().filter(|g| g.1 == node).count();
        sentences.push(Sentence {
            kind: FindingKind::SlowCpu,
            text: format!(
                "CPU {cpu} is the slowest of node {node} in {what}: {:.0}% {} the median of the node's other {} measured {} ({} against {}; its own repetitions spread {:.1}%)",
                gap * 100.0,
                if slower_is_higher { "above" } else { "below" },
                measured_cpus - 1,
                if measured_cpus == 2 { "CPU" } else { "CPUs" },
                figure(record.stats.median, unit),
                figure(peers, unit),
                spread(record) * 100.0
            ),
            value: if slower_is_higher { 1.0 + gap } else { 1.0 - gap },
            unit: Unit::Ratio,
            params,
        });
    }
    sentences
}

/// A remote cell: its (row, column) and its record.
type Pair<'a> = ((u64, u64), &'a Record);

fn slow_pair(records: &[Record]) -> Option<Sentence> {
    let cells = matrix_records(records, benchmark::MATRIX_LATENCY, "latency");
    // Remote pairs grouped by SLIT distance (all in one group without it).
    let mut groups: BTreeMap<Option<u64>, Vec<Pair>> = Default::default();
    for (&(row, column), &record) in &cells {
        if row != column && cells.contains_key(&(column, column)) {
            groups
                .entry(record.typed_params().slit_distance())
                .or_default()
                .push(((row, column), record));
        }
    }
    let tested: usize = groups.values().filter(|g| g.len() >= 3).map(Vec::len).sum();
    let z = z_for(tested);
    // (gap, pair, median of its group, SLIT distance of its group, group size)
    let mut worst: Option<(f64, Pair, f64, Option<u64>, usize)> = None;
    for (distance, group) in &groups {
        if group.len() < 3 {
            continue;
        }
        let values: Vec<f64> = group.iter().map(|(_, record)| record.value).collect();
        let Some(middle) = median(&values).filter(|m| *m > 0.0) else {
            continue;
        };
        let gaps: Vec<f64> = values.iter().map(|value| value / middle - 1.0).collect();
        let peers_spread = robust_spread(&gaps);
        for (&pair, gap) in group.iter().zip(gaps) {
            let uncertainty = peers_spread.max(median_error(pair.1));
            if stands_out(gap, MARGIN, uncertainty, z) && worst.is_none_or(|w| gap > w.0) {
                worst = Some((gap, pair, middle, *distance, group.len()));
            }
        }
    }
    let (gap, ((row, column), record), median, distance, peers) = worst?;
    let what = match distance {
        Some(distance) => format!("the {peers} measured pairs at SLIT distance {distance}"),
        None => format!("the {peers} measured remote pairs"),
    };
    let params = to_params(&SlowNodePairParams {
        cpu_node: Some(row),
        mem_node: Some(column),
        peers_median_ns: Some(median),
        pairs_compared: Some(peers as u64),
    });
    Some(Sentence {
        kind: FindingKind::SlowNodePair,
        text: format!(
            "node {row}'s CPUs reading node {column} are the slowest pair: {:.0} ns, {:.0}% above the median of {what} ({median:.0} ns{})",
            record.value,
            gap * 100.0,
            coverage_text(records, benchmark::MATRIX_LATENCY, "latency")
        ),
        value: record.value / median,
        unit: Unit::Ratio,
        params,
    })
}

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    let mut sentences = slow_cpus(records);
    sentences.extend(slow_pair(records));
    sentences
}
