//! loaded-latency's entry in the registry: its name, what `numabench list` says
//! of it, its `characterize` steps and its report section.

use crate::bench::registry::BenchmarkInfo;
use crate::report::sections::{every, SectionKind};

/// `loaded-latency` as the registry lists it.
pub(in crate::bench) const BENCHMARK: BenchmarkInfo = BenchmarkInfo {
    name: "loaded-latency",
    summary: "latency under increasing memory traffic from the other cores: latency vs bandwidth curve, ns",
    description: "One thread chases a random pointer cycle (as the latency benchmark) while every other allowed CPU streams through its own buffer on the same memory node, waiting a number of spin iterations (the delay) between cache-line requests. Delays go from light load to none, plus an idle point with no traffic. Each record gives the chaser's median latency in ns and, in params.traffic_gbs, the bandwidth the generators achieved meanwhile (64 bytes per request), so latency can be plotted against bandwidth as Intel MLC's loaded latency and the Mess benchmark do. --mix sets the generators' read:write ratio: reads, 3:1, 2:1, 1:1.",
    plan: super::plan::characterize,
    report: Some(SectionKind {
        benchmarks: &["loaded-latency"],
        build: super::report::build,
        shows: every,
    }),
};
