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

/// The node-to-node cells of `benchmark`'s `metric` (per-CPU rows left
/// out), of one `mode` (`matrix-bandwidth`: the first seen), with the
/// records behind them.
pub(super) fn matrix_records<'a>(
    records: &'a [Record],
    benchmark: &'a str,
    metric: &'a str,
) -> BTreeMap<(u64, u64), &'a Record> {
    let cells = || {
        of(records, benchmark, metric).filter(|record| record.params.get(key::PER_CPU).is_none())
    };
    let mode = cells()
        .next()
        .and_then(|record| record.params.get(key::MODE));
    cells()
        .filter(|record| record.params.get(key::MODE) == mode)
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
