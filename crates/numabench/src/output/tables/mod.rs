//! Terminal tables shaped per measurement: records in, a [`TableModel`]
//! out, one pure function per shape (a latency sweep, bandwidth by kernel,
//! a node matrix, CPUs by deviation, ...). Nothing here prints: the
//! command line renders the models to the terminal's width. A registry
//! benchmark's own tables are in its folder (`bench/<name>/table.rs`, its
//! entry's `tables`); here are the shared cells, the generic table, CPUs
//! by deviation and the tables of benchmarks outside the registry.
//!
//! Records are grouped as they come, by benchmark: each run of records of
//! one benchmark becomes that benchmark's tables (so `characterize` prints
//! one table per part). Summary sentences are not figures and are left out.

mod apps;
mod cache;
pub(crate) mod cells;
pub(crate) mod generic;
mod interference;
mod levels;
mod model;
mod per_cpu;
mod scan;
mod tiers;

#[cfg(test)]
mod tests;

pub use cells::inferred_note;
pub use levels::CacheLadder;
pub use model::TableModel;

use crate::output::Record;
use numabench_schema::benchmark;

/// The tables of one benchmark's records (all records given share one
/// benchmark, as [`group_by_benchmark`] cuts them): CPUs by deviation
/// where records carry `each_cpu`, else a registry benchmark's own tables
/// (its entry's `tables`, in its folder), else the tables of the
/// benchmarks outside the registry, else the generic table.
pub fn shape(records: &[Record], caches: &CacheLadder) -> Vec<TableModel> {
    let records: Vec<&Record> = records
        .iter()
        .filter(|record| record.benchmark != crate::findings::BENCHMARK)
        .collect();
    let Some(first) = records.first() else {
        return Vec::new();
    };
    if records
        .iter()
        .any(|record| record.typed_params().each_cpu())
    {
        return per_cpu::tables(&records, caches);
    }
    if let Some(tables) = crate::bench::find(&first.benchmark).and_then(|info| info.tables) {
        return tables(&records, caches);
    }
    match first.benchmark.as_str() {
        name if benchmark::APP_KERNELS.contains(&name) => apps::tables(&records),
        benchmark::CACHE => cache::tables(&records),
        benchmark::TIERS => tiers::tables(&records),
        benchmark::INTERFERENCE => interference::tables(&records),
        benchmark::SCAN => scan::tables(&records),
        _ => generic::tables(&records),
    }
}

/// Cuts records into runs of one benchmark, in order.
pub fn group_by_benchmark(records: &[Record]) -> Vec<&[Record]> {
    records
        .chunk_by(|a, b| a.benchmark == b.benchmark)
        .collect()
}

/// Every table of a list of records, benchmark after benchmark.
pub fn shape_all(records: &[Record], caches: &CacheLadder) -> Vec<TableModel> {
    group_by_benchmark(records)
        .into_iter()
        .flat_map(|group| shape(group, caches))
        .collect()
}
