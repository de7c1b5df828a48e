//! latency's entry in the registry: its name, what `numabench list` says
//! of it, its `characterize` steps and its report section.

use crate::bench::registry::BenchmarkInfo;
use crate::report::sections::{not_cycles, SectionKind};

/// `latency` as the registry lists it.
pub(in crate::bench) const BENCHMARK: BenchmarkInfo = BenchmarkInfo {
    name: "latency",
    summary: "load-to-use latency of dependent loads (pointer chase), ns and cycles per load",
    description: "One thread, pinned to --cpu (or the first CPU of --cpu-node), follows a chain of pointers laid through every cache line of a buffer in one cycle, so each load depends on the one before. By default (--order tlb-block) the cycle is random within blocks the L1 data TLB maps (its entries for the page size, read from CPUID, rounded down to a power of two; 64 pages when the CPU does not say) and visits the blocks in random order: almost no TLB misses and nothing the prefetchers can follow, the idle memory latency as MLC and multichase report it. --order random is one random cycle over the whole buffer, so once it outgrows the TLB most loads also pay a page walk. --order page-local reads each page's lines in random order, pages in random order: one TLB miss per page, but with 4 KiB pages the adjacent-line and stream prefetchers help (its figure is below the idle latency). The time per load is the latency of the level the buffer fits in (L1, L2, L3, DRAM). The buffer's pages are placed (--mem-node binds them; by default the chasing thread touches them first) and the kernel is asked where they landed. Records name the order, what it measures and its block (params.order, order_measures, block_bytes, block_source). Reports the median over samples (each sample is at least 20 ms of loads, and the samples together walk the whole chain once, so a DRAM-sized buffer is measured over all its pages) in ns, and in TSC cycles when the TSC is invariant; the stats carry p90 and p99 of the per-sample averages. Bytes are not counted: one 8-byte load per cache line.",
    plan: super::plan::characterize,
    tables: Some(super::table::tables),
    roles: super::compare::roles,
    report: Some(SectionKind {
        benchmarks: &["latency"],
        build: super::report::build,
        shows: not_cycles,
    }),
    calibration: None,
};
