//! per-cpu's entry in the registry: its name, what `numabench list` says
//! of it, its `characterize` steps and its report section.

use crate::bench::registry::BenchmarkInfo;
use crate::report::sections::{not_cycles, SectionKind};

/// `per-cpu` as the registry lists it.
pub(in crate::bench) const BENCHMARK: BenchmarkInfo = BenchmarkInfo {
    name: "per-cpu",
    summary: "local latency and read bandwidth of one thread on each CPU in turn, and each CPU's ratio to its node's median",
    description: "One thread, pinned to each CPU in turn, chases a random pointer cycle through a DRAM-sized buffer on its own node (as the latency benchmark, with at most 3 samples), then reads a DRAM-sized buffer there (as the read kernel of the bandwidth benchmark, one thread). Machines with at most 32 allowed CPUs have every CPU measured; larger ones a sample: the first CPU of every last-level-cache domain plus the first and last CPU of every node, named in params.sample_rule. Every record carries params.each_cpu, cpu, cpu_node and mem_node; after all CPUs, one ratio record per CPU (latency_vs_node_median, read_bandwidth_vs_node_median) gives its figure over the median of its node's CPUs, and params.deviation_from_node_median that ratio minus one: a slow core or cache slice stands out. `latency --each-cpu` and `bandwidth --each-cpu` measure any list of CPUs the same way.",
    plan: super::plan::characterize,
    tables: None,
    roles: super::compare::roles,
    report: Some(SectionKind {
        benchmarks: &["per-cpu"],
        build: super::report::build,
        shows: not_cycles,
    }),
    calibration: None,
};
