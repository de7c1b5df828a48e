//! One thread on each CPU in turn (`--each-cpu`, `per-cpu`): CPUs sorted
//! by how far they are from their node's median, outliers marked.

use super::cells::{distinct, figure, percent, placement_note};
use super::{generic, CacheLadder, TableModel};
use crate::output::Record;
use numabench_schema::params::{EachCpuParams, NodeMedianRatioParams, NODE_MEDIAN_SUFFIX};

/// A CPU's record's labels (what it lacks reads as `None`).
fn labels(record: &Record) -> EachCpuParams {
    record.params_or_default()
}

/// A CPU further than this from its node's median (either way) is marked.
pub const OUTLIER: f64 = 0.10;

/// The measure a ratio record compares (`latency`, `read_bandwidth`).
fn measure_of_ratio(metric: &str) -> Option<&str> {
    metric.strip_suffix(NODE_MEDIAN_SUFFIX)
}

/// The per-CPU table, then any other metric in a plain table.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let measures = distinct(
        records
            .iter()
            .filter_map(|record| measure_of_ratio(&record.metric).map(str::to_string)),
    );
    let figures: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| measures.contains(&record.metric))
        .collect();
    let others: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| {
            !measures.contains(&record.metric)
                && measure_of_ratio(&record.metric).is_none()
                && !record.metric.ends_with("_cycles")
        })
        .collect();
    let mut tables = Vec::new();
    // Two measures (characterize's latency and read bandwidth) share a
    // table; more (`bandwidth --each-cpu` with every kernel) get one each,
    // so the table stays narrow.
    let groups: Vec<Vec<String>> = if measures.len() <= 2 {
        vec![measures.clone()]
    } else {
        measures
            .iter()
            .map(|measure| vec![measure.clone()])
            .collect()
    };
    for group in groups.iter().filter(|group| !group.is_empty()) {
        tables.push(cpu_table(records, &figures, group));
    }
    tables.extend(generic::tables(&others));
    tables
}

/// CPUs as rows, furthest from their node's median first, with each of
/// `measures` and its deviation.
fn cpu_table(records: &[&Record], figures: &[&Record], measures: &[String]) -> TableModel {
    let cpus = distinct(
        figures
            .iter()
            .filter(|record| measures.contains(&record.metric))
            .filter_map(|record| labels(record).cpu),
    );
    let mut header = vec!["cpu".to_string(), "node".to_string()];
    for measure in measures {
        let unit = figures
            .iter()
            .find(|record| record.metric == *measure)
            .map_or("", |record| record.unit.as_str());
        header.push(format!("{measure} {unit}"));
        header.push("vs median".to_string());
    }
    header.push("".to_string());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = TableModel::new(
        "Each CPU against its node's median, furthest first",
        &header,
    );
    let mut rows: Vec<(f64, Vec<String>)> = Vec::new();
    for cpu in cpus {
        let of_cpu = |metric: &str| {
            records
                .iter()
                .copied()
                .find(|record| record.metric == metric && labels(record).cpu == Some(cpu))
        };
        let node = figures
            .iter()
            .find(|record| labels(record).cpu == Some(cpu))
            .and_then(|record| labels(record).cpu_node)
            .map_or("-".to_string(), |node| node.to_string());
        let mut row = vec![cpu.to_string(), node];
        let mut furthest: f64 = 0.0;
        for measure in measures {
            row.push(of_cpu(measure).map_or("-".to_string(), figure));
            let deviation = of_cpu(&format!("{measure}{NODE_MEDIAN_SUFFIX}")).and_then(|record| {
                record
                    .params_or_default::<NodeMedianRatioParams>()
                    .deviation
                    .deviation_from_node_median
            });
            row.push(deviation.map_or("-".to_string(), signed_percent));
            furthest = furthest.max(deviation.unwrap_or(0.0).abs());
        }
        row.push(if furthest > OUTLIER {
            "outlier".into()
        } else {
            String::new()
        });
        rows.push((furthest, row));
    }
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (_, row) in rows {
        table.push(row);
    }
    table.note(format!(
        "vs median: the CPU's figure over its node's median, minus one; outlier: beyond {}",
        percent(OUTLIER)
    ));
    let shown: Vec<&Record> = figures
        .iter()
        .copied()
        .filter(|record| measures.contains(&record.metric))
        .collect();
    table.notes.extend(placement_note(&shown));
    table
}

/// A deviation as `+3.1%` or `-12.0%`.
fn signed_percent(deviation: f64) -> String {
    let sign = if deviation >= 0.0 { "+" } else { "-" };
    format!("{sign}{}", percent(deviation.abs()))
}
