//! Terminal tables shaped per measurement: records in, a [`TableModel`]
//! out, one pure function per shape (a latency sweep, bandwidth by kernel,
//! a node matrix, CPUs by deviation, ...). Nothing here prints: the
//! command line renders the models to the terminal's width.
//!
//! Records are grouped as they come, by benchmark: each run of records of
//! one benchmark becomes that benchmark's tables (so `characterize` prints
//! one table per part). Summary sentences are not figures and are left out.

mod apps;
mod bandwidth;
mod c2c;
mod cache;
mod cells;
mod contention;
mod generic;
mod interference;
mod latency;
mod levels;
mod loaded_latency;
mod matrix;
mod mlp;
mod model;
mod per_cpu;
mod scaling;
mod scan;
mod tiers;

#[cfg(test)]
mod tests;

pub use cells::inferred_note;
pub use levels::CacheLadder;
pub use model::TableModel;

use crate::output::Record;

/// The tables of one benchmark's records (all records given share one
/// benchmark, as [`group_by_benchmark`] cuts them).
pub fn shape(records: &[Record], caches: &CacheLadder) -> Vec<TableModel> {
    let records: Vec<&Record> = records
        .iter()
        .filter(|record| record.benchmark != crate::summary::BENCHMARK)
        .collect();
    let Some(first) = records.first() else {
        return Vec::new();
    };
    if records
        .iter()
        .any(|record| cells::flag_param(record, "each_cpu"))
    {
        return per_cpu::tables(&records, caches);
    }
    match first.benchmark.as_str() {
        "latency" => latency::tables(&records, caches),
        "bandwidth" => bandwidth::tables(&records, caches),
        "matrix-latency" | "matrix-bandwidth" => matrix::tables(&records),
        "stream" | "cg" | "mg" => apps::tables(&records),
        "cache" => cache::tables(&records),
        "contention" => contention::tables(&records),
        "loaded-latency" => loaded_latency::tables(&records),
        "scaling" => scaling::tables(&records),
        "mlp" => mlp::tables(&records),
        "c2c" => c2c::tables(&records),
        "tiers" => tiers::tables(&records),
        "interference" => interference::tables(&records),
        "scan" => scan::tables(&records),
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
