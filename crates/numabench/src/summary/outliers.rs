//! The slowest CPU against the others of its node (`per-cpu` records'
//! ratio to their node's median) and the slowest node pair against the
//! pairs at the same SLIT distance (`matrix-latency`), said only when the
//! gap is beyond the noise: more than [`MARGIN`] and more than three times
//! the spread of the measurement's own repetitions.

use super::figures::{matrix_records, of, param_u64};
use super::Sentence;
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use serde_json::{json, Map};

/// The smallest gap named as an outlier (10%).
pub const MARGIN: f64 = 0.10;

/// The relative spread of a record's repetitions (their coefficient of
/// variation; 0 when there was one).
fn spread(record: &Record) -> f64 {
    record.stats.cv.abs()
}

fn beyond_noise(gap: f64, record: &Record) -> bool {
    gap > MARGIN && gap > 3.0 * spread(record)
}

fn slow_cpus(records: &[Record]) -> Vec<Sentence> {
    let mut sentences = Vec::new();
    for (metric, measured, slower_is_higher, what) in [
        ("latency_vs_node_median", "latency", true, "latency"),
        (
            "read_bandwidth_vs_node_median",
            "read_bandwidth",
            false,
            "read bandwidth",
        ),
    ] {
        let worst = of(records, benchmark::PER_CPU, metric)
            .filter_map(|record| {
                let gap = if slower_is_higher {
                    record.value - 1.0
                } else {
                    1.0 - record.value
                };
                Some((record.typed_params().cpu()?, gap, record))
            })
            .reduce(|a, b| if b.1 > a.1 { b } else { a });
        let Some((cpu, gap, ratio_record)) = worst else {
            continue;
        };
        let Some(measurement) = of(records, benchmark::PER_CPU, measured)
            .find(|record| record.typed_params().cpu() == Some(cpu))
        else {
            continue;
        };
        if !beyond_noise(gap, measurement) {
            continue;
        }
        let node = param_u64(ratio_record, "cpu_node").unwrap_or(0);
        let mut params = Map::new();
        params.insert("cpu".into(), json!(cpu));
        params.insert("cpu_node".into(), json!(node));
        params.insert("metric".into(), json!(measured));
        params.insert("spread".into(), json!(spread(measurement)));
        sentences.push(Sentence {
            kind: "slow_cpu",
            text: format!(
                "CPU {cpu} is the slowest of node {node} in {what}: {:.0}% {} its node's median (its own repetitions spread {:.1}%)",
                gap * 100.0,
                if slower_is_higher { "above" } else { "below" },
                spread(measurement) * 100.0
            ),
            value: ratio_record.value,
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
    let mut groups: std::collections::BTreeMap<Option<u64>, Vec<Pair>> = Default::default();
    for (&(row, column), &record) in &cells {
        if row != column && cells.contains_key(&(column, column)) {
            groups
                .entry(record.typed_params().slit_distance())
                .or_default()
                .push(((row, column), record));
        }
    }
    // (gap, pair, median of its group, SLIT distance of its group)
    let mut worst: Option<(f64, Pair, f64, Option<u64>)> = None;
    for (distance, group) in &groups {
        if group.len() < 3 {
            continue;
        }
        let mut values: Vec<f64> = group.iter().map(|(_, record)| record.value).collect();
        values.sort_by(f64::total_cmp);
        let median = values[values.len() / 2];
        for &pair in group {
            let gap = pair.1.value / median - 1.0;
            if beyond_noise(gap, pair.1) && worst.is_none_or(|w| gap > w.0) {
                worst = Some((gap, pair, median, *distance));
            }
        }
    }
    let (gap, ((row, column), record), median, distance) = worst?;
    let peers = match distance {
        Some(distance) => format!("the pairs at SLIT distance {distance}"),
        None => "the other remote pairs".to_string(),
    };
    let mut params = Map::new();
    params.insert("cpu_node".into(), json!(row));
    params.insert("mem_node".into(), json!(column));
    params.insert("peers_median_ns".into(), json!(median));
    Some(Sentence {
        kind: "slow_node_pair",
        text: format!(
            "node {row}'s CPUs reading node {column} are the slowest pair: {:.0} ns, {:.0}% above the median of {peers} ({median:.0} ns)",
            record.value,
            gap * 100.0
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
