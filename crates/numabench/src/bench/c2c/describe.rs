//! c2c's entry in the registry: its name, what `numabench list` says of
//! it, its characterize steps and its report section.

use crate::bench::registry::BenchmarkInfo;
use crate::report::sections::{every, SectionKind};

/// `c2c` as the registry lists it.
pub(in crate::bench) const BENCHMARK: BenchmarkInfo = BenchmarkInfo {
    name: "c2c",
    summary: "cache-to-cache transfer latency of a modified line between two cores, for each CPU pair, ns",
    description: "Two threads pinned to two CPUs bounce one 128-byte-aligned cache line: one writes it (the line goes Modified in its cache) and waits until the other has written it back. Half a round trip is the one-way latency of moving a modified line between the two cores, as Intel MLC's c2c latency and multichase's pingpong measure. Every CPU pair is measured on machines with up to 16 allowed CPUs; on larger ones the first CPU with one partner for each relation found (its SMT sibling sharing the L1, a CPU sharing only its L2, only its L3, only its node, only its package, another package) and the first CPUs of every node pair. params.relation says same-node or other-node, params.shared_cache the lowest cache level the two share (L1, L2, L3 or null), params.same_package whether they sit in one package. No memory placement is involved, so placement.verified is null.",
    plan: super::plan::characterize,
    tables: Some(super::table::tables),
    roles: super::compare::roles,
    report: Some(SectionKind {
        benchmarks: &["c2c"],
        build: super::report::build,
        shows: every,
    }),
    calibration: Some(super::calibrate::CALIBRATION),
};
