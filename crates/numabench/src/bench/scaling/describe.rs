//! scaling's entry in the registry: its name, what `numabench list` says
//! of it, its `characterize` steps and its report section.

use crate::bench::registry::BenchmarkInfo;
use crate::report::sections::{every, SectionKind};

/// `scaling` as the registry lists it.
pub(in crate::bench) const BENCHMARK: BenchmarkInfo = BenchmarkInfo {
    name: "scaling",
    summary: "bandwidth of one node's memory as 1, 2, ... all cores read it, locally and from the farthest node, GB/s",
    description: "Memory is bound to one node (--mem-node, default the first); threads on the local node (if it has CPUs) and then on the most distant node by SLIT read it with 1, 2, ... all cores (one thread per physical core before SMT siblings). The curve shows where the memory controller saturates (local) and where the interconnect does (remote). Each point is the best repetition of the chosen kernel (default read) in GB/s.",
    plan: super::plan::characterize,
    tables: Some(super::table::tables),
    roles: super::compare::roles,
    report: Some(SectionKind {
        benchmarks: &["scaling"],
        build: super::report::build,
        shows: every,
    }),
    calibration: None,
};
