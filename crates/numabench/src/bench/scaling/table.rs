//! Scaling: threads against bandwidth, the bandwidth per thread and the
//! parallel efficiency (over the one-thread figure times the threads).

use crate::output::tables::cells::{distinct, figure, percent, placement_note};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use crate::units::format_value;
use numabench_schema::params::ScalingParams;

/// A scaling record's params (what it lacks reads as `None`).
fn params_of(record: &Record) -> ScalingParams {
    record.params_or_default()
}

/// Which series a record belongs to: CPU node, memory node, locality.
fn series(record: &Record) -> String {
    let labels = params_of(record).labels;
    let node = |node: Option<u32>| node.map_or_else(|| "-".into(), |node| node.to_string());
    let (cpu_node, mem_node) = (node(labels.cpu_node), node(labels.mem_node));
    match labels.locality {
        Some(locality) => format!("node {cpu_node} <- mem {mem_node} ({locality})"),
        None => format!("node {cpu_node} <- mem {mem_node}"),
    }
}

/// The threads of a record, where it has them.
fn threads(record: &Record) -> Option<u64> {
    params_of(record).bandwidth.threads
}

/// The scaling table, then any other metric.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let (points, others): (Vec<&Record>, Vec<&Record>) = records
        .iter()
        .partition(|record| record.metric.ends_with("_bandwidth") && threads(record).is_some());
    let mut table = TableModel::new(
        "Scaling: bandwidth as threads are added",
        &[
            "series",
            "threads",
            "GB/s",
            "per thread",
            "efficiency",
            "of peak",
        ],
    );
    for name in distinct(points.iter().map(|record| series(record))) {
        let line: Vec<&Record> = points
            .iter()
            .copied()
            .filter(|record| series(record) == name)
            .collect();
        let one = line
            .iter()
            .find(|record| threads(record) == Some(1))
            .map(|record| record.value);
        let peak = line.iter().map(|record| record.value).fold(0.0, f64::max);
        for (index, point) in line.iter().enumerate() {
            let threads = threads(point).unwrap_or(1).max(1);
            table.push(vec![
                if index == 0 {
                    name.clone()
                } else {
                    String::new()
                },
                threads.to_string(),
                figure(point),
                format_value(point.value / threads as f64),
                match one {
                    Some(one) if one > 0.0 => percent(point.value / (one * threads as f64)),
                    _ => "-".into(),
                },
                if peak > 0.0 {
                    percent(point.value / peak)
                } else {
                    "-".into()
                },
            ]);
        }
    }
    table.note(
        "efficiency: GB/s over (one thread's GB/s x threads); of peak: over the series' best",
    );
    let kernels = distinct(
        points
            .iter()
            .map(|record| params_of(record).bandwidth.kernel),
    );
    if let [Some(kernel)] = kernels.as_slice() {
        table.note(format!("kernel: {kernel}"));
    }
    table.notes.extend(placement_note(&points));
    generic::followed_by_others((!points.is_empty()).then_some(table), &others)
}
