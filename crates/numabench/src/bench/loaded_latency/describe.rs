//! loaded-latency's entry in the registry: its name, what `numabench list` says
//! of it, its `characterize` steps and its report section.

use crate::bench::registry::BenchmarkInfo;
use crate::report::sections::{every, SectionKind};

/// `loaded-latency` as the registry lists it.
pub(in crate::bench) const BENCHMARK: BenchmarkInfo = BenchmarkInfo {
    name: "loaded-latency",
    summary: "latency under increasing memory traffic from the other cores: latency vs bandwidth curve, ns",
    description: "One thread chases a random pointer cycle (as the latency benchmark) while every other allowed CPU streams through its own buffer on the same memory node, waiting a number of spin iterations (the delay) between cache-line requests. Delays go from light load to none, plus an idle point with no traffic. Each record gives the chaser's median latency in ns and, in params.traffic_gbs, the bandwidth the generators achieved meanwhile (64 bytes per request), so latency can be plotted against bandwidth as Intel MLC's loaded latency and the Mess benchmark do. --mix sets the generators' read:write ratio: reads, 3:1, 2:1, 1:1, writes, and the same with non-temporal (streaming) writes (3:1-nt, 2:1-nt, 1:1-nt, nt-writes); a list of mixes and of --mem-node nodes (CPU-less ones included) draws one curve per node and mix. --curve takes 24 delays (25 points with the idle one), idle to saturation, as Mess draws its curves. Each point also gives the tail of the chase's latency under that load (params.tail: p50 to max of batches timed one by one). Bandwidth is the generators' own count of the lines they requested, not a memory-controller counter.",
    plan: super::plan::characterize,
    tables: Some(super::table::tables),
    roles: super::compare::roles,
    report: Some(SectionKind {
        benchmarks: &["loaded-latency"],
        build: super::report::build,
        shows: every,
    }),
    calibration: None,
};
