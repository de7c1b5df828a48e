//! The figures the findings read from records: node x node matrices,
//! params by name, and the nodes a run touched.

use crate::output::Record;
use numabench_schema::params::key;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// (cpu_node, mem_node) -> value of one matrix.
pub(super) type Matrix = BTreeMap<(u64, u64), f64>;

/// A param as an unsigned integer.
pub(super) fn param_u64(record: &Record, name: &str) -> Option<u64> {
    record.params.get(name).and_then(Value::as_u64)
}

/// A param as a number.
pub(super) fn param_f64(record: &Record, name: &str) -> Option<f64> {
    record.params.get(name).and_then(Value::as_f64)
}

/// A param as text.
pub(super) fn param_str<'a>(record: &'a Record, name: &str) -> Option<&'a str> {
    record.params.get(name).and_then(Value::as_str)
}

/// The records of `benchmark`'s `metric`.
pub(super) fn of<'a>(
    records: &'a [Record],
    benchmark: &'a str,
    metric: &'a str,
) -> impl Iterator<Item = &'a Record> + 'a {
    records
        .iter()
        .filter(move |record| record.benchmark == benchmark && record.metric == metric)
}

/// Whether a matrix cell's record is inferred (a sampled matrix's cell
/// that was not measured: its class representative's figure, `cell:
/// "inferred"`). No finding rests on one.
pub(super) fn is_inferred(record: &Record) -> bool {
    record.params.get("cell").and_then(Value::as_str) == Some("inferred")
}

/// The node-to-node cells of `benchmark`'s `metric` that were measured
/// (per-CPU rows and inferred cells left out), of one `mode`
/// (`matrix-bandwidth`: the first seen), with the records behind them.
pub(super) fn matrix_records<'a>(
    records: &'a [Record],
    benchmark: &'a str,
    metric: &'a str,
) -> BTreeMap<(u64, u64), &'a Record> {
    let mode = node_cells(records, benchmark, metric)
        .next()
        .and_then(|record| record.params.get(key::MODE));
    matrix_records_of_mode(records, benchmark, metric, mode)
}

/// The node-to-node cell records of `benchmark`'s `metric`, inferred ones
/// included (per-CPU rows left out).
fn node_cells<'a>(
    records: &'a [Record],
    benchmark: &'a str,
    metric: &'a str,
) -> impl Iterator<Item = &'a Record> + 'a {
    of(records, benchmark, metric).filter(|record| record.params.get(key::PER_CPU).is_none())
}

/// [`matrix_records`] of the given `mode` (`None`: cells without one).
pub(super) fn matrix_records_of_mode<'a>(
    records: &'a [Record],
    benchmark: &'a str,
    metric: &'a str,
    mode: Option<&Value>,
) -> BTreeMap<(u64, u64), &'a Record> {
    node_cells(records, benchmark, metric)
        .filter(|record| record.params.get(key::MODE) == mode && !is_inferred(record))
        .filter_map(|record| {
            Some((
                (
                    record.typed_params().cpu_node()?,
                    record.typed_params().mem_node()?,
                ),
                record,
            ))
        })
        .collect()
}

/// The modes of `benchmark`'s `metric` cells, in the order first seen
/// (`None` for cells without one).
pub(super) fn matrix_modes<'a>(
    records: &'a [Record],
    benchmark: &'a str,
    metric: &'a str,
) -> Vec<Option<&'a Value>> {
    let mut modes: Vec<Option<&Value>> = Vec::new();
    for record in node_cells(records, benchmark, metric) {
        let mode = record.params.get(key::MODE);
        if !modes.contains(&mode) {
            modes.push(mode);
        }
    }
    modes
}

/// How many of a sampled matrix's cells were measured, of how many
/// (first mode): `None` where every cell was measured.
pub(super) fn coverage(
    records: &[Record],
    benchmark: &str,
    metric: &str,
) -> Option<(usize, usize)> {
    let mode = node_cells(records, benchmark, metric)
        .next()
        .and_then(|record| record.params.get(key::MODE));
    let cells: Vec<&Record> = node_cells(records, benchmark, metric)
        .filter(|record| record.params.get(key::MODE) == mode)
        .collect();
    let inferred = cells.iter().filter(|record| is_inferred(record)).count();
    (inferred > 0).then(|| (cells.len() - inferred, cells.len()))
}

/// ", k of n cells measured" where a matrix was sampled, else nothing:
/// what every sentence resting on a matrix says.
pub(super) fn coverage_text(records: &[Record], benchmark: &str, metric: &str) -> String {
    match coverage(records, benchmark, metric) {
        Some((measured, total)) => format!("; {measured} of {total} cells measured"),
        None => String::new(),
    }
}

/// The values of [`matrix_records`].
pub(super) fn matrix(records: &[Record], benchmark: &str, metric: &str) -> Matrix {
    matrix_records(records, benchmark, metric)
        .into_iter()
        .map(|(cell, record)| (cell, record.value))
        .collect()
}

/// Remote over local for row `cpu_node` and column `mem_node`.
pub(super) fn ratio(matrix: &Matrix, cpu_node: u64, mem_node: u64) -> Option<f64> {
    let local = matrix.get(&(cpu_node, cpu_node))?;
    let remote = matrix.get(&(cpu_node, mem_node))?;
    (*local > 0.0).then(|| remote / local)
}

/// The rows (CPU nodes) of a matrix.
pub(super) fn rows(matrix: &Matrix) -> BTreeSet<u64> {
    matrix.keys().map(|(row, _)| *row).collect()
}

/// One cell of a matrix: (row, column, value).
pub(super) type Cell = (u64, u64, f64);

/// The local cells (a CPU node's own memory) and the remote ones between
/// CPU nodes (CPU-less columns left out).
pub(super) fn local_and_remote(matrix: &Matrix) -> (Vec<Cell>, Vec<Cell>) {
    let rows = rows(matrix);
    let cells = matrix
        .iter()
        .filter(|((_, column), _)| rows.contains(column))
        .map(|(&(row, column), &value)| (row, column, value));
    cells.partition(|(row, column, _)| row == column)
}

/// Every node a record names as the CPUs' or the memory's.
pub(super) fn nodes_seen(records: &[Record]) -> BTreeSet<u64> {
    records
        .iter()
        .flat_map(|record| {
            ["cpu_node", "mem_node", "node_a", "node_b"]
                .into_iter()
                .filter_map(|name| param_u64(record, name))
        })
        .collect()
}

/// The smallest and largest of some values.
pub(super) fn span(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values.into_iter().fold(None, |span, value| match span {
        None => Some((value, value)),
        Some((low, high)) => Some((low.min(value), high.max(value))),
    })
}

/// A value with three significant digits and its unit: `95.0 ns`, `1.13 ns`,
/// `279 ns`.
pub(super) fn figure(value: f64, unit: &str) -> String {
    format!("{} {unit}", significant(value))
}

/// `low-high unit`, or one figure when they round alike.
pub(super) fn figure_span((low, high): (f64, f64), unit: &str) -> String {
    let (low_text, high_text) = (significant(low), significant(high));
    if low_text == high_text {
        format!("{low_text} {unit}")
    } else {
        format!("{low_text}-{high_text} {unit}")
    }
}

/// Three significant digits (no exponent): `279`, `95.0`, `1.13`, `0.482`.
pub(super) fn significant(value: f64) -> String {
    let magnitude = value.abs();
    if !value.is_finite() || magnitude >= 100.0 {
        format!("{value:.0}")
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else if magnitude >= 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}
