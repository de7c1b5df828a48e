//! A latency sweep: working-set size against ns (and cycles), with the
//! cache level each size falls in.

use crate::output::tables::cells::{bytes, cv, distinct, figure, placement_note};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use crate::units::format_value;
use numabench_schema::params::{LatencyParams, TailParams};

/// A chase's record with its params read as `latency`'s.
struct Chase<'a> {
    record: &'a Record,
    params: LatencyParams,
}

impl<'a> Chase<'a> {
    fn of(record: &'a Record) -> Self {
        Chase {
            record,
            params: record.params_or_default(),
        }
    }

    /// Where it ran: its CPU and, when set, its memory node (a label of
    /// the caller's, not a latency parameter).
    fn path(&self) -> String {
        let cpu = self.params.cpu.map_or("-".into(), |cpu| cpu.to_string());
        match self.record.typed_params().mem_node() {
            Some(node) => format!("cpu {cpu} -> node {node}"),
            None => format!("cpu {cpu}"),
        }
    }

    fn size(&self) -> Option<u64> {
        self.params.working_set.size_bytes
    }
}

/// The sweep table, then any other metric in a plain table.
pub fn tables(records: &[&Record], caches: &CacheLadder) -> Vec<TableModel> {
    let chases: Vec<Chase> = records
        .iter()
        .filter(|record| record.metric == "latency")
        .map(|record| Chase::of(record))
        .collect();
    let cycles: Vec<Chase> = records
        .iter()
        .filter(|record| record.metric == "latency_cycles")
        .map(|record| Chase::of(record))
        .collect();
    let paths = distinct(chases.iter().map(Chase::path));
    let several_paths = paths.len() > 1;
    // Percentiles of the batches timed one by one ([`crate::kernels::tail`]).
    let tails = chases.iter().any(|chase| chase.params.tail.is_some());
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
        let size = chase.size();
        let cycles = cycles
            .iter()
            .find(|other| other.size() == size && other.path() == chase.path())
            .map_or("-".to_string(), |other| format_value(other.record.value));
        let mut row = vec![
            size.map_or("-".to_string(), bytes),
            caches.level_of(chase.record),
            figure(chase.record),
            cycles,
            cv(chase.record),
        ];
        if tails {
            let tail = chase.params.tail.as_ref();
            let figures: [fn(&TailParams) -> f64; 4] =
                [|t| t.p50, |t| t.p99, |t| t.p999, |t| t.max];
            for figure in figures {
                row.push(tail.map(figure).map_or("-".to_string(), format_value));
            }
        }
        if several_paths {
            row.insert(0, chase.path());
        }
        table.push(row);
    }
    let orders = distinct(
        chases
            .iter()
            .map(|chase| chase.params.chase.order_measures.clone()),
    );
    if let [Some(order)] = orders.as_slice() {
        table.note(format!("chase: {order}"));
    }
    if tails {
        table.note(
            "p50..max: ns per load of batches of dependent loads timed one by one (params.tail.method)",
        );
    }
    let chase_records: Vec<&Record> = chases.iter().map(|chase| chase.record).collect();
    table.notes.extend(placement_note(&chase_records));
    let others: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| record.metric != "latency" && record.metric != "latency_cycles")
        .collect();
    generic::followed_by_others((!chases.is_empty()).then_some(table), &others)
}
