//! Core-to-core latency: a CPU x CPU grid up to [`GRID_CPUS`] CPUs, else
//! the pairs summarised by relation (same core, same cache, same node, ...).

use crate::output::tables::cells::{distinct, placement_note, text_param, u64_param};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use crate::units::format_value;

/// Most CPUs drawn as a grid; beyond it the grid would not fit a screen.
pub const GRID_CPUS: usize = 16;

/// The grid or the relation table, then any other metric.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let (pairs, others): (Vec<&Record>, Vec<&Record>) = records.iter().partition(|record| {
        record.metric == "c2c_latency"
            && u64_param(record, "cpu_a").is_some()
            && u64_param(record, "cpu_b").is_some()
    });
    let mut cpus = distinct(
        pairs
            .iter()
            .flat_map(|record| [u64_param(record, "cpu_a"), u64_param(record, "cpu_b")])
            .flatten(),
    );
    cpus.sort_unstable();
    let mut tables = Vec::new();
    if !pairs.is_empty() {
        let mut table = if cpus.len() <= GRID_CPUS {
            grid(&pairs, &cpus)
        } else {
            by_relation(&pairs)
        };
        table.notes.extend(placement_note(&pairs));
        tables.push(table);
    }
    tables.extend(generic::tables(&others));
    tables
}

/// Rows and columns are CPUs; a pair measured one way fills both cells.
fn grid(pairs: &[&Record], cpus: &[u64]) -> TableModel {
    let mut header = vec!["cpu".to_string()];
    header.extend(cpus.iter().map(u64::to_string));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = TableModel::new("Core-to-core latency, ns (a modified line moving)", &header);
    for a in cpus {
        let mut row = vec![a.to_string()];
        for b in cpus {
            let found = pairs.iter().find(|record| {
                let pair = (u64_param(record, "cpu_a"), u64_param(record, "cpu_b"));
                pair == (Some(*a), Some(*b)) || pair == (Some(*b), Some(*a))
            });
            // Whole ns: 16 CPUs' columns then fit 100 characters.
            row.push(match found {
                Some(record) => format!("{:.0}", record.value),
                None => "-".into(),
            });
        }
        table.push(row);
    }
    let relations = distinct(
        pairs
            .iter()
            .filter_map(|record| text_param(record, "relation")),
    );
    if !relations.is_empty() {
        table.note(format!("relations measured: {}", relations.join(", ")));
    }
    table
}

/// One row per relation: how many pairs, the fastest, median and slowest.
fn by_relation(pairs: &[&Record]) -> TableModel {
    let mut table = TableModel::new(
        "Core-to-core latency by relation, ns",
        &["relation", "pairs", "min", "median", "max", "slowest pair"],
    );
    for relation in distinct(pairs.iter().map(|record| text_param(record, "relation"))) {
        let mut of: Vec<&Record> = pairs
            .iter()
            .copied()
            .filter(|record| text_param(record, "relation") == relation)
            .collect();
        of.sort_by(|a, b| a.value.total_cmp(&b.value));
        let slowest = of[of.len() - 1];
        table.push(vec![
            relation.unwrap_or_else(|| "-".into()),
            of.len().to_string(),
            format_value(of[0].value),
            format_value(of[of.len() / 2].value),
            format_value(slowest.value),
            format!(
                "{}-{}",
                text_param(slowest, "cpu_a").unwrap_or_default(),
                text_param(slowest, "cpu_b").unwrap_or_default()
            ),
        ]);
    }
    table
}
