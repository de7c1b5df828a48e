//! contention's entry in the registry: its name, what `numabench list` says
//! of it, its `characterize` steps and its report section.

use crate::bench::registry::BenchmarkInfo;
use crate::report::sections::{every, SectionKind};

/// `contention` as the registry lists it.
pub(in crate::bench) const BENCHMARK: BenchmarkInfo = BenchmarkInfo {
    name: "contention",
    summary: "all threads reading one node's memory (as after serial init) vs each reading its own node, GB/s and ratios",
    description: "The worst case a serially initialised program creates: all its pages on one node. Every allowed CPU reads memory bound to the target node (default the first node), first each thread alone in turn (serial: what one thread gets when nobody competes), then all at the same time (contended); then all threads read memory placed by first touch on their own nodes (local). Records the aggregate and per-thread bandwidth (params.per_thread_gbs) of each scenario, local_over_contended (the aggregate gained by local placement) and serial_over_contended_per_thread (how much each thread slows down when sharing one node). Bytes as the read kernel counts them.",
    plan: super::plan::characterize,
    tables: Some(super::table::tables),
    roles: super::compare::roles,
    report: Some(SectionKind {
        benchmarks: &["contention"],
        build: super::report::build,
        shows: every,
    }),
    calibration: None,
};
