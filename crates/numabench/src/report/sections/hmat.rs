//! What the firmware declares (ACPI HMAT, `topo --json`'s
//! `memory_attributes`) against what was measured: one heatmap of the
//! declared values per attribute, initiators by target nodes, and beside it
//! the measured/declared ratio of the cells a `matrix` run measured (the
//! same initiator node's threads on the same target node's memory).

use super::matrix::{matrix_table, Matrix};
use crate::output::ReadRecord;
use crate::report::diagram::cpu_ranges;
use crate::report::html::{self, figure};
use crate::report::load::Dataset;
use crate::report::plot::heatmap;
use crate::topology::{Machine, MemoryAttributeValue};
use numabench_schema::benchmark;
use numabench_schema::params::MatrixCellParams;

/// One declared attribute as a matrix: rows the initiators (`node N`, or
/// `CPUs a-b` when no node has exactly the initiator's CPUs), columns the
/// target nodes; `rows_node` the initiator node of each row.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    pub name: String,
    pub matrix: Matrix,
    pub rows_node: Vec<Option<u64>>,
    pub columns_node: Vec<u64>,
}

/// Every attribute of a `topo --json` document, in the order hwloc names
/// them first.
pub fn declared(t: &Machine) -> Vec<Declared> {
    let mut names: Vec<&str> = Vec::new();
    for item in &t.memory_attributes {
        if !names.contains(&item.name.as_str()) {
            names.push(&item.name);
        }
    }
    names
        .into_iter()
        .map(|name| declared_one(name, &t.memory_attributes))
        .collect()
}

fn declared_one(name: &str, items: &[MemoryAttributeValue]) -> Declared {
    // (row key, row label, initiator node), (target), value, unit
    let mut cells: Vec<((Option<u64>, String), u64, f64)> = Vec::new();
    let mut unit = String::new();
    for item in items.iter().filter(|i| i.name == name) {
        unit = item.unit.clone();
        let node = item.initiator_node.map(u64::from);
        let label = match node {
            Some(node) => format!("node {node}"),
            None => format!("CPUs {}", cpu_ranges(&item.initiator_cpus)),
        };
        cells.push((
            (node, label),
            u64::from(item.target_node),
            item.value as f64,
        ));
    }
    let mut rows: Vec<(Option<u64>, String)> = cells.iter().map(|c| c.0.clone()).collect();
    // Initiator nodes in order, then CPU sets that are no node.
    rows.sort_by_key(|(node, label)| (node.is_none(), *node, label.clone()));
    rows.dedup();
    let mut columns: Vec<u64> = cells.iter().map(|c| c.1).collect();
    columns.sort_unstable();
    columns.dedup();
    let mut values = vec![vec![None; columns.len()]; rows.len()];
    for (row, target, value) in &cells {
        let r = rows.iter().position(|x| x == row).unwrap_or(0);
        let c = columns.iter().position(|x| x == target).unwrap_or(0);
        values[r][c] = Some(*value);
    }
    Declared {
        name: name.to_string(),
        matrix: Matrix {
            title: format!("HMAT {name}"),
            unit,
            rows: rows.iter().map(|r| r.1.clone()).collect(),
            columns: columns.iter().map(|c| format!("node {c}")).collect(),
            values,
            inferred: Vec::new(),
            local: Vec::new(),
        },
        rows_node: rows.iter().map(|r| r.0).collect(),
        columns_node: columns,
    }
}

/// The measured figure a declared attribute is compared with: benchmark,
/// metric, the matrix mode preferred (HMAT declares a node's peak: all
/// threads of the initiator node), and the factor from the declared unit
/// to the measured one (hwloc's MiB/s to GB/s).
fn counterpart(name: &str) -> Option<(&'static str, &'static str, Option<&'static str>, f64)> {
    const MIB_TO_GB: f64 = 1_048_576.0 / 1e9;
    match name {
        "latency" | "read_latency" => Some((benchmark::MATRIX_LATENCY, "latency", None, 1.0)),
        "bandwidth" | "read_bandwidth" => Some((
            benchmark::MATRIX_BANDWIDTH,
            "read_bandwidth",
            Some("parallel"),
            MIB_TO_GB,
        )),
        "write_bandwidth" => Some((
            benchmark::MATRIX_BANDWIDTH,
            "write_bandwidth",
            Some("parallel"),
            MIB_TO_GB,
        )),
        _ => None,
    }
}

/// The measured/declared ratio of every cell a node matrix measured (not
/// per CPU; the preferred mode when measured, else any); None when no cell
/// was measured or the attribute has no measured counterpart.
pub fn measured_ratio(d: &Declared, data: &Dataset) -> Option<(Matrix, String)> {
    let (benchmark, metric, mode, factor) = counterpart(&d.name)?;
    let candidates: Vec<(&ReadRecord, MatrixCellParams)> = data
        .of(benchmark)
        .filter(|r| r.metric == metric)
        .map(|r| (r, r.params_or_default::<MatrixCellParams>()))
        .filter(|(_, labels)| labels.per_cpu != Some(true))
        .collect();
    let measured_mode = mode.filter(|m| {
        candidates
            .iter()
            .any(|(_, labels)| labels.mode.as_deref() == Some(*m))
    });
    let mut values = d.matrix.values.clone();
    let mut any = false;
    for (r, row) in values.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            let found = d.rows_node[r].and_then(|initiator| {
                candidates.iter().find(|(_, labels)| {
                    labels.cpu_node.map(u64::from) == Some(initiator)
                        && labels.mem_node.map(u64::from) == Some(d.columns_node[c])
                        && measured_mode.is_none_or(|m| labels.mode.as_deref() == Some(m))
                })
            });
            *cell = match (found, *cell) {
                (Some((rec, _)), Some(declared)) if declared > 0.0 => {
                    any = true;
                    Some(rec.value / (declared * factor))
                }
                _ => None,
            };
        }
    }
    // Without the preferred mode, say which one stands in (fewer threads
    // than the node's peak HMAT declares).
    let stand_in = candidates
        .iter()
        .find_map(|(_, labels)| labels.mode.clone());
    let what = format!(
        "{benchmark} {metric}{}",
        match (measured_mode, mode, stand_in) {
            (Some(m), _, _) => format!(", {m} mode (all threads of the initiator node)"),
            (None, Some(wanted), Some(used)) => format!(
                ", {used} mode: no {wanted} run, so below the node's peak that HMAT declares"
            ),
            _ => String::new(),
        }
    );
    any.then(|| {
        (
            Matrix {
                title: format!("{}: measured / declared", d.matrix.title),
                unit: "x".into(),
                values,
                ..d.matrix.clone()
            },
            what,
        )
    })
}

/// The declared heatmaps, each with its measured/declared ratio beside it
/// when measured; empty when the document declares nothing.
pub fn hmat_html(t: &Machine, data: &Dataset) -> String {
    let mut out = String::new();
    for d in declared(t) {
        let m = &d.matrix;
        let declared_figure = figure(
            &heatmap(
                &m.rows,
                &m.columns,
                &m.values,
                "initiator",
                "target node",
                &m.unit,
            ),
            &format!(
                "{} the firmware declares (ACPI HMAT, as hwloc reads it), in {}; '-' not declared.",
                m.title, m.unit
            ),
            &matrix_table(m),
        );
        let beside = match measured_ratio(&d, data) {
            Some((ratio, what)) => figure(
                &heatmap(
                    &ratio.rows,
                    &ratio.columns,
                    &ratio.values,
                    "initiator",
                    "target node",
                    "x",
                ),
                &format!(
                    "{}: what was measured ({what}) divided by the declared value, \
                     units made equal (1 = as declared; '-' not measured or not declared).",
                    ratio.title
                ),
                &matrix_table(&ratio),
            ),
            None => match counterpart(&d.name) {
                Some((benchmark, metric, _, _)) => format!(
                    "<p>No {benchmark} {metric} record of a node matrix measured these \
                     cells: <code>numabench matrix</code> measures them.</p>"
                ),
                None => "<p>numabench measures no counterpart of this attribute.</p>".into(),
            },
        };
        out.push_str(&format!(
            "<h5>{}</h5><div class=\"pair\">{declared_figure}{beside}</div>",
            html::escape(&m.title)
        ));
    }
    out
}
