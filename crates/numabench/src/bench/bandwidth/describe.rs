//! bandwidth's entry in the registry: its name, what `numabench list` says
//! of it, its `characterize` steps and its report section.

use crate::bench::registry::BenchmarkInfo;
use crate::report::sections::{every, SectionKind};

/// `bandwidth` as the registry lists it.
pub(in crate::bench) const BENCHMARK: BenchmarkInfo = BenchmarkInfo {
    name: "bandwidth",
    summary: "memory bandwidth of read/write/copy/triad kernels (and -nt streaming-store variants), GB/s",
    description: "Threads pinned to --cpus (or the first --threads allowed CPUs in --cpu-order, cores-first by default: one thread of every core, spread over L3 domains, before any SMT sibling) run one kernel over their own contiguous share of the arrays, started together by a spin barrier; the time of a repetition runs from the barrier to the last thread's finish. Kernels: read (s += a[i]), write (a[i] = s), copy (a[i] = b[i]), triad (a[i] = b[i] + s*c[i]) and write-nt, copy-nt, triad-nt with non-temporal (streaming) stores. Vector loads and stores use the fastest instruction set of AVX-512, AVX2, SSE2 and scalar that the CPU has, found by a short calibration on the placed arrays before the timed repetitions (--simd to force one); records give params.simd and each level's calibration rate. --size is the whole working set (all arrays together), as likwid-bench's -w. Bytes counted are 8 per array element read or written, as STREAM and likwid-bench count them: the write-allocate read caused by ordinary stores is NOT counted, so copy and triad under-report bus traffic by one stream (the -nt variants cause no such read). Reports the best repetition (peak bandwidth, as STREAM does) in GB/s (10^9 bytes/s); stats carry all repetitions.",
    plan: super::plan::characterize,
    tables: Some(super::table::tables),
    roles: super::compare::roles,
    report: Some(SectionKind {
        benchmarks: &["bandwidth"],
        build: super::report::build,
        shows: every,
    }),
    calibration: None,
};
