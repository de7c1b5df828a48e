//! The node matrices' entries in the registry (`matrix-latency` and
//! `matrix-bandwidth`): their names, what `numabench list` says of them,
//! their `characterize` steps and their report section (one for both,
//! with the report's other matrices in `report/sections/matrix.rs`).

use crate::bench::registry::BenchmarkInfo;
use crate::report::sections::{self, not_cycles, SectionKind};

/// `matrix-latency` as the registry lists it, with the section that draws
/// both matrices.
pub(in crate::bench) const LATENCY: BenchmarkInfo = BenchmarkInfo {
    name: "matrix-latency",
    summary: "N x N idle latency matrix: a thread on each CPU node, memory on each node (CPU-less ones too), ns",
    description: "For every node with CPUs this process may use, a thread pinned to its first allowed CPU chases a random pointer cycle through a DRAM-sized buffer (twice the last-level cache, at least 256 MiB, at most a quarter of the smallest node's free memory) bound to each memory node in turn, CPU-less memory nodes (CXL, HBM) included as targets. Each cell is the median ns per load, as the latency benchmark measures it, with the buffer's placement verified. The diagonal is local latency; off-diagonal cells show what remote access costs, to set beside the SLIT distances and HMAT values of `numabench topo`. With --per-cpu the rows are every allowed CPU instead, one thread on each (params.per_cpu, params.cpu): a CPU that differs from its node shows in its own row.",
    plan: super::plan::characterize_latency,
    tables: Some(super::table::tables),
    roles: super::compare::latency_roles,
    report: Some(SectionKind {
        benchmarks: &["matrix-latency", "matrix-bandwidth"],
        build: sections::matrix::build,
        shows: not_cycles,
    }),
    calibration: None,
};

/// `matrix-bandwidth` as the registry lists it: its records are drawn by
/// `matrix-latency`'s section.
pub(in crate::bench) const BANDWIDTH: BenchmarkInfo = BenchmarkInfo {
    name: "matrix-bandwidth",
    summary: "N x N read-bandwidth matrix, one thread (serial) or all cores of the CPU node (parallel), GB/s",
    description: "For every node with CPUs and every memory node (CPU-less included), the read kernel streams through a DRAM-sized buffer bound to the memory node: with --mode serial one thread (the first allowed CPU of the CPU node) reads, with --mode parallel every allowed CPU of the CPU node reads its share at once. Cells are the best repetition in GB/s (10^9 bytes/s), 8 bytes counted per element loaded. Serial cells show what one core can pull across each link; parallel cells show what the node's memory controller and the interconnect deliver. With --per-cpu (serial only) the rows are every allowed CPU, one thread on each (params.per_cpu, params.cpu).",
    plan: super::plan::characterize_bandwidth,
    tables: Some(super::table::tables),
    roles: super::compare::bandwidth_roles,
    report: None,
    calibration: None,
};
