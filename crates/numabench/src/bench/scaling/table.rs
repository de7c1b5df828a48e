//! Scaling: threads against bandwidth, the bandwidth per thread and the
//! parallel efficiency (over the one-thread figure times the threads).

use crate::output::tables::cells::{
    distinct, figure, percent, placement_note, text_param, u64_param,
};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use crate::units::format_value;

/// Which series a record belongs to: CPU node, memory node, locality.
fn series(record: &Record) -> String {
    let node = |key| text_param(record, key).unwrap_or_else(|| "-".into());
    match text_param(record, "locality") {
        Some(locality) => format!(
            "node {} <- mem {} ({locality})",
            node("cpu_node"),
            node("mem_node")
        ),
        None => format!("node {} <- mem {}", node("cpu_node"), node("mem_node")),
    }
}

/// The scaling table, then any other metric.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let (points, others): (Vec<&Record>, Vec<&Record>) = records.iter().partition(|record| {
        record.metric.ends_with("_bandwidth") && u64_param(record, "threads").is_some()
    });
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
            .find(|record| u64_param(record, "threads") == Some(1))
            .map(|record| record.value);
        let peak = line.iter().map(|record| record.value).fold(0.0, f64::max);
        for (index, point) in line.iter().enumerate() {
            let threads = u64_param(point, "threads").unwrap_or(1).max(1);
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
    if let Some(kernel) = crate::output::tables::cells::shared_text(&points, "kernel") {
        table.note(format!("kernel: {kernel}"));
    }
    table.notes.extend(placement_note(&points));
    generic::followed_by_others((!points.is_empty()).then_some(table), &others)
}
