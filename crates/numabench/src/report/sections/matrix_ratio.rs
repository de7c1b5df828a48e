//! The second view of a node matrix: each cell divided by its row's local
//! cell (memory on the node the row's threads run on), as MLC's and the
//! terminal's "x local" grid. A CPU-less memory node has no CPUs, so it is
//! never a row: its column is relative to the initiator row's own local
//! memory. Drawn as its own heatmap under the measured one.

use super::matrix::{matrix_table, Matrix};
use crate::report::html::{self, figure};
use crate::report::plot::hatched_heatmap;

/// The matrix of ratios to each row's local cell; rows without a measured
/// local cell are '-'. None when no row has one (nothing to divide by).
/// A ratio rests on two cells: it is hatched when either was inferred.
pub fn ratio_to_local(m: &Matrix) -> Option<Matrix> {
    let mut values = Vec::with_capacity(m.rows.len());
    let mut inferred = Vec::with_capacity(m.rows.len());
    let mut any = false;
    for (r, row) in m.values.iter().enumerate() {
        let local = m.local.get(r).copied().flatten();
        let base = local
            .and_then(|c| row.get(c).copied().flatten())
            .filter(|v| *v > 0.0);
        any |= base.is_some();
        values.push(
            row.iter()
                .map(|cell| Some((*cell)? / base?))
                .collect::<Vec<_>>(),
        );
        let hatched = |c: usize| m.inferred.get(r).and_then(|i| i.get(c)).copied() == Some(true);
        inferred.push(
            (0..row.len())
                .map(|c| hatched(c) || local.is_some_and(hatched))
                .collect(),
        );
    }
    any.then(|| Matrix {
        title: format!("{}, ratio to local", m.title),
        unit: "x".into(),
        rows: m.rows.clone(),
        columns: m.columns.clone(),
        values,
        inferred,
        local: m.local.clone(),
    })
}

/// What a ratio above one means for the matrix's unit.
fn reading(unit: &str) -> &'static str {
    if unit.ends_with("/s") {
        "below 1: less bandwidth than local memory gives"
    } else {
        "above 1: slower than local memory"
    }
}

/// The ratio heatmap with its caption and data, or None (see
/// [`ratio_to_local`]).
pub fn figure_of(m: &Matrix) -> Option<String> {
    let ratio = ratio_to_local(m)?;
    let svg = hatched_heatmap(
        &ratio.rows,
        &ratio.columns,
        &ratio.values,
        &ratio.inferred,
        "threads on",
        "memory on",
        &ratio.unit,
    );
    let caption = format!(
        "{}: each cell divided by its row's local cell, memory on the node the row's \
         threads run on (1 = local; {}). A CPU-less memory node is never a row: its \
         column is relative to the initiator's own local node. '-': the row's local \
         cell or the cell was not measured.{}",
        ratio.title,
        reading(&m.unit),
        match ratio.inferred.iter().flatten().any(|&i| i) {
            true => " Hatched: the cell or its local cell was inferred, not measured.",
            false => "",
        }
    );
    Some(format!(
        "<h4>{}</h4>{}",
        html::escape(&ratio.title),
        figure(&svg, &caption, &matrix_table(&ratio))
    ))
}
