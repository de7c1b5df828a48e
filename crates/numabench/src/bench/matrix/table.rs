//! A node matrix: CPU nodes as rows, memory nodes as columns, each cell's
//! figure; then the same grid as each cell's ratio to its row's local cell.

use crate::output::tables::cells::{
    distinct, figure, flag_param, inferred_note, placement_note, ratio, text_param, u64_param,
};
use crate::output::tables::{generic, CacheLadder, TableModel};
use crate::output::Record;

/// Two grids (figures, ratios to local) per metric and mode.
pub fn tables(records: &[&Record], _caches: &CacheLadder) -> Vec<TableModel> {
    let (cells, others): (Vec<&Record>, Vec<&Record>) = records.iter().partition(|record| {
        u64_param(record, "cpu_node").is_some()
            && u64_param(record, "mem_node").is_some()
            && (record.metric == "latency" || record.metric.ends_with("_bandwidth"))
    });
    let kinds = distinct(
        cells
            .iter()
            .map(|record| (record.metric.clone(), text_param(record, "mode"))),
    );
    let mut tables = Vec::new();
    for (metric, mode) in kinds {
        let grid: Vec<&Record> = cells
            .iter()
            .copied()
            .filter(|record| record.metric == metric && text_param(record, "mode") == mode)
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
    text_param(record, "cell").as_deref() == Some("inferred")
}

/// The figure grid and the ratio-to-local grid of one metric. Rows are
/// CPU nodes, or CPUs for a per-CPU matrix (`params.per_cpu`), whose local
/// cell is their node's.
fn node_grids(grid: &[&Record], what: &str) -> (TableModel, TableModel) {
    let per_cpu = grid.iter().any(|record| flag_param(record, "per_cpu"));
    let row_key = if per_cpu { "cpu" } else { "cpu_node" };
    let mut rows = distinct(grid.iter().filter_map(|record| u64_param(record, row_key)));
    let mut columns = distinct(
        grid.iter()
            .filter_map(|record| u64_param(record, "mem_node")),
    );
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
    let cell = |row: u64, mem: u64| {
        grid.iter().copied().find(|record| {
            u64_param(record, row_key) == Some(row) && u64_param(record, "mem_node") == Some(mem)
        })
    };
    for row in &rows {
        let node = match per_cpu {
            true => grid
                .iter()
                .find(|record| u64_param(record, "cpu") == Some(*row))
                .and_then(|record| u64_param(record, "cpu_node")),
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
