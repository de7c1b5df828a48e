//! Core-to-core latency: a CPU x CPU grid up to [`GRID_CPUS`] CPUs, else
//! the pairs summarised by relation (same core, same cache, same node, ...).

use crate::output::tables::cells::{distinct, placement_note};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use crate::units::format_value;
use numabench_schema::params::C2cParams;

/// Most CPUs drawn as a grid; beyond it the grid would not fit a screen.
pub const GRID_CPUS: usize = 16;

/// A measured pair: its record, both CPUs and its params.
struct Pair<'a> {
    record: &'a Record,
    cpus: (u32, u32),
    params: C2cParams,
}

impl<'a> Pair<'a> {
    /// `record` as a pair, when it is a `c2c_latency` naming both CPUs.
    fn of(record: &'a Record) -> Option<Self> {
        let params: C2cParams = record.params_or_default();
        Some(Pair {
            record,
            cpus: (params.cpu_a?, params.cpu_b?),
            params,
        })
        .filter(|_| record.metric == "c2c_latency")
    }
}

/// The grid or the relation table, then any other metric.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let pairs: Vec<Pair> = records
        .iter()
        .filter_map(|record| Pair::of(record))
        .collect();
    let others: Vec<&Record> = records
        .iter()
        .copied()
        .filter(|record| Pair::of(record).is_none())
        .collect();
    let mut cpus = distinct(pairs.iter().flat_map(|pair| [pair.cpus.0, pair.cpus.1]));
    cpus.sort_unstable();
    let mut tables = Vec::new();
    if !pairs.is_empty() {
        let mut table = if cpus.len() <= GRID_CPUS {
            grid(&pairs, &cpus)
        } else {
            by_relation(&pairs)
        };
        let measured: Vec<&Record> = pairs.iter().map(|pair| pair.record).collect();
        table.notes.extend(placement_note(&measured));
        tables.push(table);
    }
    tables.extend(generic::tables(&others));
    tables
}

/// Rows and columns are CPUs; a pair measured one way fills both cells.
fn grid(pairs: &[Pair], cpus: &[u32]) -> TableModel {
    let mut header = vec!["cpu".to_string()];
    header.extend(cpus.iter().map(u32::to_string));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = TableModel::new("Core-to-core latency, ns (a modified line moving)", &header);
    for &a in cpus {
        let mut row = vec![a.to_string()];
        for &b in cpus {
            let found = pairs
                .iter()
                .find(|pair| pair.cpus == (a, b) || pair.cpus == (b, a));
            // Whole ns: 16 CPUs' columns then fit 100 characters.
            row.push(match found {
                Some(pair) => format!("{:.0}", pair.record.value),
                None => "-".into(),
            });
        }
        table.push(row);
    }
    let relations = distinct(pairs.iter().filter_map(|pair| pair.params.relation.clone()));
    if !relations.is_empty() {
        table.note(format!("relations measured: {}", relations.join(", ")));
    }
    table
}

/// One row per relation: how many pairs, the fastest, median and slowest.
fn by_relation(pairs: &[Pair]) -> TableModel {
    let mut table = TableModel::new(
        "Core-to-core latency by relation, ns",
        &["relation", "pairs", "min", "median", "max", "slowest pair"],
    );
    for relation in distinct(pairs.iter().map(|pair| pair.params.relation.clone())) {
        let mut of: Vec<&Pair> = pairs
            .iter()
            .filter(|pair| pair.params.relation == relation)
            .collect();
        of.sort_by(|a, b| a.record.value.total_cmp(&b.record.value));
        let slowest = of[of.len() - 1];
        table.push(vec![
            relation.unwrap_or_else(|| "-".into()),
            of.len().to_string(),
            format_value(of[0].record.value),
            format_value(of[of.len() / 2].record.value),
            format_value(slowest.record.value),
            format!("{}-{}", slowest.cpus.0, slowest.cpus.1),
        ]);
    }
    table
}
