//! A latency sweep: working-set size against ns (and cycles), with the
//! cache level each size falls in.

use crate::output::tables::cells::{
    bytes, cv, distinct, figure, placement_note, shared_text, text_param, u64_param,
};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use crate::units::format_value;

/// Where a chase ran: its CPU and, when set, its memory node.
fn path(record: &Record) -> String {
    let cpu = text_param(record, "cpu").unwrap_or_else(|| "-".into());
    match text_param(record, "mem_node").filter(|node| node != "-") {
        Some(node) => format!("cpu {cpu} -> node {node}"),
        None => format!("cpu {cpu}"),
    }
}

/// The sweep table, then any other metric in a plain table.
pub fn tables(records: &[&Record], caches: &CacheLadder) -> Vec<TableModel> {
    let chases: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| record.metric == "latency")
        .collect();
    let paths = distinct(chases.iter().map(|record| path(record)));
    let several_paths = paths.len() > 1;
    // Percentiles of the batches timed one by one ([`crate::kernels::tail`]).
    let tails = chases
        .iter()
        .any(|record| record.params.contains_key("tail"));
    let mut header = vec!["size", "level", "ns", "cycles", "cv"];
    if tails {
        header.extend(["p50", "p99", "p99.9", "max"]);
    }
    if several_paths {
        header.insert(0, "where");
    }
    let title = match (several_paths, paths.first()) {
        (false, Some(path)) => format!("Latency by working-set size ({path}, idle)"),
        _ => "Latency by working-set size (idle)".to_string(),
    };
    let mut table = TableModel::new(title, &header);
    for chase in &chases {
        let size = u64_param(chase, "size_bytes");
        let cycles = records
            .iter()
            .find(|other| {
                other.metric == "latency_cycles"
                    && u64_param(other, "size_bytes") == size
                    && path(other) == path(chase)
            })
            .map_or("-".to_string(), |other| format_value(other.value));
        let mut row = vec![
            size.map_or("-".to_string(), bytes),
            caches.level_of(chase),
            figure(chase),
            cycles,
            cv(chase),
        ];
        if tails {
            let tail = chase.params.get("tail");
            for name in ["p50", "p99", "p99_9", "max"] {
                row.push(
                    tail.and_then(|tail| tail.get(name)?.as_f64())
                        .map_or("-".to_string(), format_value),
                );
            }
        }
        if several_paths {
            row.insert(0, path(chase));
        }
        table.push(row);
    }
    if let Some(order) = shared_text(&chases, "order_measures") {
        table.note(format!("chase: {order}"));
    }
    if tails {
        table.note(
            "p50..max: ns per load of batches of dependent loads timed one by one (params.tail.method)",
        );
    }
    table.notes.extend(placement_note(&chases));
    let others: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| record.metric != "latency" && record.metric != "latency_cycles")
        .collect();
    generic::followed_by_others((!chases.is_empty()).then_some(table), &others)
}
