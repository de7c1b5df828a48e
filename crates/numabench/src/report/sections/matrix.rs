//! Node x node (and CPU x node) latency and bandwidth matrices as annotated
//! heatmaps.

use super::{matrix_ratio, section, Section};
use crate::output::ReadRecord;
use crate::report::html::{self, figure, Table};
use crate::report::load::Dataset;
use crate::report::plot::hatched_heatmap;
use numabench_schema::benchmark;
use numabench_schema::params::{ClusterLabels, MatrixCellParams};
use std::collections::BTreeMap;

/// A matrix: row labels, column labels, values[row][column].
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    pub title: String,
    pub unit: String,
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    pub values: Vec<Vec<Option<f64>>>,
    /// Cells inferred from their symmetry class's representative
    /// (`params.cell` `inferred`), not measured: drawn hatched.
    pub inferred: Vec<Vec<bool>>,
    /// Each row's local column: memory on the node its threads run on
    /// (`params.cpu_node`), when the matrix has that column. Empty for
    /// matrices that are not CPU x memory (distances, c2c).
    pub local: Vec<Option<usize>>,
}

/// A cell's labels (what it lacks reads as `None`).
fn labels(r: &ReadRecord) -> MatrixCellParams {
    r.params_or_default()
}

/// A row's or column's node or CPU as a sort key (-1 where absent).
fn number(value: Option<u32>) -> f64 {
    value.map_or(-1.0, f64::from)
}

/// A row's or column's node or CPU as text (empty where absent).
fn text(value: Option<u32>) -> String {
    value.map(|value| value.to_string()).unwrap_or_default()
}

/// Groups matrix records (by benchmark, metric, mode, per-CPU or not, file,
/// and for `cluster` records host and rank) into matrices: rows are CPU
/// nodes (or CPUs), columns memory nodes. A cluster file gets one heatmap
/// per host (per rank with `--per rank`): its hosts' cells are never
/// merged or overwritten.
pub fn matrices(data: &Dataset) -> Vec<Matrix> {
    let mut groups: BTreeMap<String, Vec<&ReadRecord>> = BTreeMap::new();
    for r in data.records.iter().filter(|r| {
        (r.benchmark == benchmark::MATRIX_LATENCY && r.metric == "latency")
            || (r.benchmark == benchmark::MATRIX_BANDWIDTH && r.metric.ends_with("_bandwidth"))
    }) {
        let labels = labels(r);
        let per_cpu = labels.per_cpu.unwrap_or(false);
        let mode = labels.mode.map(|m| format!(", {m}")).unwrap_or_default();
        let cluster = r.params_or_default::<ClusterLabels>();
        let host = cluster
            .host
            .map(|host| format!(", host {host}"))
            .unwrap_or_default();
        let rank = cluster
            .rank
            .map(|rank| format!(", rank {rank}"))
            .unwrap_or_default();
        let title = format!(
            "{} {}{mode}{} ({}{host}{rank})",
            r.benchmark,
            r.metric,
            if per_cpu { ", per CPU" } else { "" },
            r.file
        );
        groups.entry(title).or_default().push(r);
    }
    groups
        .into_iter()
        .map(|(title, records)| {
            let row_of = |r: &ReadRecord| {
                let labels = labels(r);
                match labels.per_cpu {
                    Some(true) => (number(labels.cpu), format!("CPU {}", text(labels.cpu))),
                    _ => (
                        number(labels.cpu_node),
                        format!("node {}", text(labels.cpu_node)),
                    ),
                }
            };
            let mut rows: Vec<(f64, String)> = records.iter().map(|r| row_of(r)).collect();
            rows.sort_by(|a, b| a.0.total_cmp(&b.0));
            rows.dedup();
            let mut columns: Vec<(f64, String)> = records
                .iter()
                .map(|r| {
                    let mem_node = labels(r).mem_node;
                    (number(mem_node), format!("node {}", text(mem_node)))
                })
                .collect();
            columns.sort_by(|a, b| a.0.total_cmp(&b.0));
            columns.dedup();
            let mut values = vec![vec![None; columns.len()]; rows.len()];
            let mut inferred = vec![vec![false; columns.len()]; rows.len()];
            for r in &records {
                let row = rows.iter().position(|x| *x == row_of(r));
                let column = columns
                    .iter()
                    .position(|c| c.0 == number(labels(r).mem_node));
                if let (Some(row), Some(column)) = (row, column) {
                    values[row][column] = Some(r.value);
                    inferred[row][column] = labels(r).cell.as_deref() == Some("inferred");
                }
            }
            let local = records_local(&records, &rows, &columns, row_of);
            Matrix {
                title,
                unit: records[0].unit.as_str().to_string(),
                rows: rows.into_iter().map(|r| r.1).collect(),
                columns: columns.into_iter().map(|c| c.1).collect(),
                values,
                inferred,
                local,
            }
        })
        .collect()
}

/// The local column of each row: the column of the row's records'
/// `cpu_node` (a per-CPU row's node, a node row's own node).
fn records_local(
    records: &[&ReadRecord],
    rows: &[(f64, String)],
    columns: &[(f64, String)],
    row_of: impl Fn(&ReadRecord) -> (f64, String),
) -> Vec<Option<usize>> {
    rows.iter()
        .map(|row| {
            let node = records
                .iter()
                .find(|r| row_of(r) == *row)
                .and_then(|r| labels(r).cpu_node)
                .map(f64::from)?;
            columns.iter().position(|c| c.0 == node)
        })
        .collect()
}

/// The matrix as a data table.
pub fn matrix_table(m: &Matrix) -> Table {
    let mut header = vec!["from \\ memory".to_string()];
    header.extend(m.columns.iter().cloned());
    let mut table = Table {
        header,
        ..Table::default()
    };
    // Matrices with nothing inferred (distances, c2c) have no `inferred` rows.
    for (r, (label, row)) in m.rows.iter().zip(&m.values).enumerate() {
        let mut cells = vec![label.clone()];
        cells.extend(row.iter().enumerate().map(|(c, v)| {
            let text = v.map(html::number).unwrap_or_else(|| "-".into());
            match m.inferred.get(r).and_then(|i| i.get(c)) == Some(&true) {
                true => format!("{text} (inferred)"),
                false => text,
            }
        }));
        table.push(cells);
    }
    table
}

pub fn build(data: &Dataset) -> Option<Section> {
    let all = matrices(data);
    if all.is_empty() {
        return None;
    }
    let mut body = String::new();
    for m in &all {
        let svg = hatched_heatmap(
            &m.rows,
            &m.columns,
            &m.values,
            &m.inferred,
            "threads on",
            "memory on",
            &m.unit,
        );
        let ratio = matrix_ratio::figure_of(m).unwrap_or_default();
        let hatched = match m.inferred.iter().flatten().any(|&inferred| inferred) {
            true => " Hatched: inferred from its symmetry class's representative cell, not measured (characterize's time budget; --full-matrix measures every cell).",
            false => "",
        };
        body.push_str(&format!("<h3>{}</h3>", html::escape(&m.title)));
        body.push_str(&figure(
            &svg,
            &format!(
                "{} in {}; colour: viridis, lighter = higher; '-' not measured.{hatched}",
                m.title, m.unit
            ),
            &matrix_table(m),
        ));
        body.push_str(&ratio);
    }
    if all.iter().any(|m| m.title.contains(", host ")) {
        body.insert_str(
            0,
            "<p>Cluster files: one heatmap per host (and per rank with <code>--per rank</code>), \
             never merged.</p>",
        );
    }
    Some(section("matrices", "Node matrices", body))
}
