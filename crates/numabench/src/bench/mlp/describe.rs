//! mlp's entry in the registry: its name, what `numabench list` says
//! of it, its `characterize` steps and its report section.

use crate::bench::registry::BenchmarkInfo;
use crate::report::sections::SectionKind;

/// `mlp` as the registry lists it.
pub(in crate::bench) const BENCHMARK: BenchmarkInfo = BenchmarkInfo {
    name: "mlp",
    summary: "memory-level parallelism: k = 1..16 independent chases in one thread, ns per load and speed-up",
    description: "One pinned thread follows k independent pointer chains (k = 1 to 16) through one DRAM-sized buffer, starting at points spread evenly around a single cycle (in --order tlb-block, random or page-local, as for latency); each chain continues where it stopped, sample after sample, so together the samples read every line of the buffer once and nothing is re-read from the caches. One chain is latency's own chase. With one chain every load waits for the previous one; with k chains the core can keep up to k misses in flight, so the time per load falls until the core's miss-handling resources (line fill buffers) are exhausted. Records ns per load and mlp = (ns per load with 1 chain) / (ns per load with k chains): the number of misses the core effectively overlaps.",
    plan: super::plan::characterize,
    tables: Some(super::table::tables),
    roles: super::compare::roles,
    report: Some(SectionKind {
        benchmarks: &["mlp"],
        build: super::report::build,
        shows: super::report::shows,
    }),
    calibration: None,
};
