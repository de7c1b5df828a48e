//! Measured against declared: where the firmware's SLIT distances or HMAT
//! latencies order two memory nodes one way from a CPU node and the
//! latency matrix measured them the other way, or equal (within
//! [`EQUAL`]). Tools and runtimes place memory by these tables.

use super::figures::{matrix_records, param_f64};
use super::{FindingKind, Sentence};
use crate::output::{Record, Unit};
use numabench_schema::benchmark;
use numabench_schema::params::findings::{DeclaredMismatchParams, DeclaredRowParams};
use numabench_schema::params::to_params;

/// Measured latencies closer than this (5%) count as equal.
pub const EQUAL: f64 = 0.05;

/// One disagreement in a row: from `row`, the firmware declares `near`
/// nearer than `far`, but `far` measured at most [`EQUAL`] slower.
struct Disagreement {
    row: u64,
    /// (node, declared, measured, relative standard error of the measured).
    near: (u64, f64, f64, f64),
    far: (u64, f64, f64, f64),
}

/// The strongest disagreement per row between a declared param and the
/// measured latency: the pair whose measured ratio far/near is lowest.
fn disagreements(records: &[Record], declared: &str) -> Vec<Disagreement> {
    let cells = matrix_records(records, benchmark::MATRIX_LATENCY, "latency");
    let rows: std::collections::BTreeSet<u64> = cells.keys().map(|(row, _)| *row).collect();
    let mut found = Vec::new();
    for row in rows {
        let row_cells: Vec<(u64, f64, f64, f64)> = cells
            .iter()
            .filter(|((cell_row, _), _)| *cell_row == row)
            .filter_map(|(&(_, column), record)| {
                Some((
                    column,
                    param_f64(record, declared)?,
                    record.value,
                    super::noise::median_error(record),
                ))
            })
            .collect();
        let mut best: Option<Disagreement> = None;
        for near in &row_cells {
            for far in &row_cells {
                if near.1 < far.1 && far.2 <= near.2 * (1.0 + EQUAL) {
                    let ratio = far.2 / near.2;
                    if best.as_ref().is_none_or(|b| ratio < b.far.2 / b.near.2) {
                        best = Some(Disagreement {
                            row,
                            near: *near,
                            far: *far,
                        });
                    }
                }
            }
        }
        found.extend(best);
    }
    found
}

pub(super) fn sentences(records: &[Record]) -> Vec<Sentence> {
    let mut sentences = Vec::new();
    for (declared, what, unit) in [
        ("slit_distance", "SLIT distance", ""),
        ("declared_latency_ns", "HMAT latency", " ns"),
    ] {
        for found in disagreements(records, declared) {
            let ratio = found.far.2 / found.near.2;
            // Faster only beyond the margin and twice the two cells'
            // combined 95% interval; else the two cannot be told apart.
            let ci95 = 1.96 * (found.near.3.powi(2) + found.far.3.powi(2)).sqrt();
            let params = to_params(&DeclaredMismatchParams {
                row: DeclaredRowParams {
                    cpu_node: Some(found.row),
                    declared: Some(declared.to_string()),
                },
                near_node: Some(found.near.0),
                far_node: Some(found.far.0),
                declared_near: Some(found.near.1),
                declared_far: Some(found.far.1),
                ci95_rel: Some(ci95),
            });
            let measured = if 1.0 - ratio > EQUAL && 1.0 - ratio > 2.0 * ci95 {
                format!("it measured {:.2}x as fast", 1.0 / ratio)
            } else {
                format!("the two are not distinguishable by measurement ({ratio:.2}x)")
            };
            sentences.push(Sentence {
                kind: FindingKind::DeclaredMismatch,
                text: format!(
                    "from node {}, the {what} says node {} is farther than node {} ({}{unit} against {}{unit}), but {measured}",
                    found.row,
                    found.far.0,
                    found.near.0,
                    found.far.1,
                    found.near.1,
                ),
                value: ratio,
                unit: Unit::Ratio,
                params,
            });
        }
    }
    sentences
}
