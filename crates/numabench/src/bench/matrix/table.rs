//! A node matrix: CPU nodes as rows, memory nodes as columns, each cell's
//! figure; then the same grid as each cell's ratio to its row's local cell.

use crate::output::tables::cells::{distinct, figure, inferred_note, placement_note, ratio};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;
use numabench_schema::params::MatrixCellParams;

/// A cell's labels (what it lacks reads as `None`).
fn labels(record: &Record) -> MatrixCellParams {
    record.params_or_default()
}

/// Two grids (figures, ratios to local) per metric and mode.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let (cells, others): (Vec<&Record>, Vec<&Record>) = records.iter().partition(|record| {
        let labels = labels(record);
        labels.cpu_node.is_some()
            && labels.mem_node.is_some()
            && (record.metric == "latency" || record.metric.ends_with("_bandwidth"))
    });
    let kinds = distinct(
        cells
            .iter()
            .map(|record| (record.metric.clone(), labels(record).mode)),
    );
    let mut tables = Vec::new();
    for (metric, mode) in kinds {
        let grid: Vec<&Record> = cells
            .iter()
            .copied()
            .filter(|record| record.metric == metric && labels(record).mode == mode)
            .collect();
        let unit = grid[0].unit.as_str();
        let what = match &mode {
            Some(mode) => format!("{metric} ({mode}), {unit}"),
            None => format!("{metric}, {unit}"),
        };
        let (values, ratios) = node_grids(&grid, &what);
        tables.push(values);
        // One cell (one node) has nothing to compare with.
        if grid.len() > 1 {
            tables.push(ratios);
        }
    }
    // Cycle counts repeat the ns grid in another unit: --records has them.
    let others: Vec<&Record> = others
        .into_iter()
        .filter(|record| !record.metric.ends_with("_cycles"))
        .collect();
    tables.extend(generic::tables(&others));
    tables
}

/// Whether a cell's record was inferred, not measured (`params.cell`).
fn inferred(record: &&Record) -> bool {
    labels(record).cell.as_deref() == Some("inferred")
}

/// The figure grid and the ratio-to-local grid of one metric. Rows are
/// CPU nodes, or CPUs for a per-CPU matrix (`params.per_cpu`), whose local
/// cell is their node's.
fn node_grids(grid: &[&Record], what: &str) -> (TableModel, TableModel) {
    let per_cpu = grid
        .iter()
        .any(|record| labels(record).per_cpu == Some(true));
    let row_of = |labels: &MatrixCellParams| match per_cpu {
        true => labels.cpu,
        false => labels.cpu_node,
    };
    let mut rows = distinct(grid.iter().filter_map(|record| row_of(&labels(record))));
    let mut columns = distinct(grid.iter().filter_map(|record| labels(record).mem_node));
    rows.sort_unstable();
    columns.sort_unstable();
    let mut header = vec!["cpu \\ mem".to_string()];
    header.extend(columns.iter().map(|node| format!("node {node}")));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut values = TableModel::new(format!("Node matrix: {what}"), &header);
    let mut ratios = TableModel::new(
        format!("Node matrix: {what}, ratio to the row's local cell"),
        &header,
    );
    let cell = |row: u32, mem: u32| {
        grid.iter().copied().find(|record| {
            let labels = labels(record);
            row_of(&labels) == Some(row) && labels.mem_node == Some(mem)
        })
    };
    for row in &rows {
        let node = match per_cpu {
            true => grid
                .iter()
                .map(|record| labels(record))
                .find(|labels| labels.cpu == Some(*row))
                .and_then(|labels| labels.cpu_node),
            false => Some(*row),
        };
        let label = match (per_cpu, node) {
            (true, Some(node)) => format!("cpu {row} (node {node})"),
            (true, None) => format!("cpu {row}"),
            (false, _) => format!("node {row}"),
        };
        let local = node
            .and_then(|node| cell(*row, node))
            .map(|record| record.value);
        let mut value_row = vec![label.clone()];
        let mut ratio_row = vec![label];
        for mem in &columns {
            let found = cell(*row, *mem);
            // An inferred cell (a sampled matrix's, its class's
            // representative's figure) is marked, never shown as measured.
            let mark = match found.is_some_and(|record| inferred(&record)) {
                true => "*",
                false => "",
            };
            value_row.push(found.map_or("-".to_string(), |record| figure(record) + mark));
            ratio_row.push(match (found, local) {
                (Some(record), Some(local)) if local > 0.0 => ratio(record.value / local) + mark,
                _ => "-".to_string(),
            });
        }
        values.push(value_row);
        ratios.push(ratio_row);
    }
    values.notes.extend(placement_note(grid));
    let inferred_cells = grid.iter().filter(|record| inferred(record)).count();
    if inferred_cells > 0 {
        let note = inferred_note(inferred_cells, grid.len());
        values.note(&note);
        ratios.note(&note);
    }
    ratios.note("local = the row's own node; - where a row has no local cell (CPU-less node)");
    (values, ratios)
}
