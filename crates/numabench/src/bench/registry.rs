//! The benchmark registry: names, descriptions, what `characterize` runs
//! for each, and `--only`/`--skip` selection.

use super::characterize::{
    plan_bandwidth, plan_contention, plan_latency, plan_loaded_latency, plan_matrix_bandwidth,
    plan_matrix_latency, plan_mlp, plan_per_cpu, plan_scaling, Defaults, Steps,
};
use crate::report::sections::{self, every, not_cycles, SectionKind};
use thiserror::Error;

/// A registered benchmark. Its `characterize` steps are a field, so an
/// entry that `characterize` would not run cannot be written.
#[derive(Debug, Clone, Copy)]
pub struct BenchmarkInfo {
    /// Name as used on the command line and in records.
    pub name: &'static str,
    /// One line for `numabench list`.
    pub summary: &'static str,
    /// A paragraph for `numabench list --describe`: what it measures, how,
    /// what the numbers mean.
    pub description: &'static str,
    /// Adds this benchmark's `characterize` steps, derived from the topology.
    pub plan: fn(&Defaults, &mut Steps),
    /// Its section of `numabench report`, built from records alone;
    /// `None` where another entry's section draws its records too.
    pub report: Option<SectionKind>,
}

/// Entries are identified by name (names are unique).
impl PartialEq for BenchmarkInfo {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for BenchmarkInfo {}

const REGISTRY: &[BenchmarkInfo] = &[
    BenchmarkInfo {
        name: "latency",
        summary: "load-to-use latency of dependent loads (pointer chase), ns and cycles per load",
        description: "One thread, pinned to --cpu (or the first CPU of --cpu-node), follows a chain of pointers laid through every cache line of a buffer in one cycle, so each load depends on the one before. By default (--order tlb-block) the cycle is random within blocks the L1 data TLB maps (its entries for the page size, read from CPUID, rounded down to a power of two; 64 pages when the CPU does not say) and visits the blocks in random order: almost no TLB misses and nothing the prefetchers can follow, the idle memory latency as MLC and multichase report it. --order random is one random cycle over the whole buffer, so once it outgrows the TLB most loads also pay a page walk. --order page-local reads each page's lines in random order, pages in random order: one TLB miss per page, but with 4 KiB pages the adjacent-line and stream prefetchers help (its figure is below the idle latency). The time per load is the latency of the level the buffer fits in (L1, L2, L3, DRAM). The buffer's pages are placed (--mem-node binds them; by default the chasing thread touches them first) and the kernel is asked where they landed. Records name the order, what it measures and its block (params.order, order_measures, block_bytes, block_source). Reports the median over samples (each sample is at least 20 ms of loads, and the samples together walk the whole chain once, so a DRAM-sized buffer is measured over all its pages) in ns, and in TSC cycles when the TSC is invariant; the stats carry p90 and p99 of the per-sample averages. Bytes are not counted: one 8-byte load per cache line.",
        plan: plan_latency,
        report: Some(SectionKind {
            benchmarks: &["latency"],
            build: sections::latency::build,
            shows: not_cycles,
        }),
    },
    BenchmarkInfo {
        name: "bandwidth",
        summary: "memory bandwidth of read/write/copy/triad kernels (and -nt streaming-store variants), GB/s",
        description: "Threads pinned to --cpus (or the first --threads allowed CPUs in --cpu-order, cores-first by default: one thread of every core, spread over L3 domains, before any SMT sibling) run one kernel over their own contiguous share of the arrays, started together by a spin barrier; the time of a repetition runs from the barrier to the last thread's finish. Kernels: read (s += a[i]), write (a[i] = s), copy (a[i] = b[i]), triad (a[i] = b[i] + s*c[i]) and write-nt, copy-nt, triad-nt with non-temporal (streaming) stores. Vector loads and stores use the fastest instruction set of AVX-512, AVX2, SSE2 and scalar that the CPU has, found by a short calibration on the placed arrays before the timed repetitions (--simd to force one); records give params.simd and each level's calibration rate. --size is the whole working set (all arrays together), as likwid-bench's -w. Bytes counted are 8 per array element read or written, as STREAM and likwid-bench count them: the write-allocate read caused by ordinary stores is NOT counted, so copy and triad under-report bus traffic by one stream (the -nt variants cause no such read). Reports the best repetition (peak bandwidth, as STREAM does) in GB/s (10^9 bytes/s); stats carry all repetitions.",
        plan: plan_bandwidth,
        report: Some(SectionKind {
            benchmarks: &["bandwidth"],
            build: sections::bandwidth::build,
            shows: every,
        }),
    },
    BenchmarkInfo {
        name: "matrix-latency",
        summary: "N x N idle latency matrix: a thread on each CPU node, memory on each node (CPU-less ones too), ns",
        description: "For every node with CPUs this process may use, a thread pinned to its first allowed CPU chases a random pointer cycle through a DRAM-sized buffer (twice the last-level cache, at least 256 MiB, at most a quarter of the smallest node's free memory) bound to each memory node in turn, CPU-less memory nodes (CXL, HBM) included as targets. Each cell is the median ns per load, as the latency benchmark measures it, with the buffer's placement verified. The diagonal is local latency; off-diagonal cells show what remote access costs, to set beside the SLIT distances and HMAT values of `numabench topo`. With --per-cpu the rows are every allowed CPU instead, one thread on each (params.per_cpu, params.cpu): a CPU that differs from its node shows in its own row.",
        plan: plan_matrix_latency,
        report: Some(SectionKind {
            benchmarks: &["matrix-latency", "matrix-bandwidth"],
            build: sections::matrix::build,
            shows: not_cycles,
        }),
    },
    BenchmarkInfo {
        name: "matrix-bandwidth",
        summary: "N x N read-bandwidth matrix, one thread (serial) or all cores of the CPU node (parallel), GB/s",
        description: "For every node with CPUs and every memory node (CPU-less included), the read kernel streams through a DRAM-sized buffer bound to the memory node: with --mode serial one thread (the first allowed CPU of the CPU node) reads, with --mode parallel every allowed CPU of the CPU node reads its share at once. Cells are the best repetition in GB/s (10^9 bytes/s), 8 bytes counted per element loaded. Serial cells show what one core can pull across each link; parallel cells show what the node's memory controller and the interconnect deliver. With --per-cpu (serial only) the rows are every allowed CPU, one thread on each (params.per_cpu, params.cpu).",
        plan: plan_matrix_bandwidth,
        report: None,
    },
    BenchmarkInfo {
        name: "contention",
        summary: "all threads reading one node's memory (as after serial init) vs each reading its own node, GB/s and ratios",
        description: "The worst case a serially initialised program creates: all its pages on one node. Every allowed CPU reads memory bound to the target node (default the first node), first each thread alone in turn (serial: what one thread gets when nobody competes), then all at the same time (contended); then all threads read memory placed by first touch on their own nodes (local). Records the aggregate and per-thread bandwidth (params.per_thread_gbs) of each scenario, local_over_contended (the aggregate gained by local placement) and serial_over_contended_per_thread (how much each thread slows down when sharing one node). Bytes as the read kernel counts them.",
        plan: plan_contention,
        report: Some(SectionKind {
            benchmarks: &["contention"],
            build: sections::contention::build,
            shows: every,
        }),
    },
    BenchmarkInfo {
        name: "scaling",
        summary: "bandwidth of one node's memory as 1, 2, ... all cores read it, locally and from the farthest node, GB/s",
        description: "Memory is bound to one node (--mem-node, default the first); threads on the local node (if it has CPUs) and then on the most distant node by SLIT read it with 1, 2, ... all cores (one thread per physical core before SMT siblings). The curve shows where the memory controller saturates (local) and where the interconnect does (remote). Each point is the best repetition of the chosen kernel (default read) in GB/s.",
        plan: plan_scaling,
        report: Some(SectionKind {
            benchmarks: &["scaling"],
            build: sections::scaling::build,
            shows: every,
        }),
    },
    BenchmarkInfo {
        name: "loaded-latency",
        summary: "latency under increasing memory traffic from the other cores: latency vs bandwidth curve, ns",
        description: "One thread chases a random pointer cycle (as the latency benchmark) while every other allowed CPU streams through its own buffer on the same memory node, waiting a number of spin iterations (the delay) between cache-line requests. Delays go from light load to none, plus an idle point with no traffic. Each record gives the chaser's median latency in ns and, in params.traffic_gbs, the bandwidth the generators achieved meanwhile (64 bytes per request), so latency can be plotted against bandwidth as Intel MLC's loaded latency and the Mess benchmark do. --mix sets the generators' read:write ratio: reads, 3:1, 2:1, 1:1.",
        plan: plan_loaded_latency,
        report: Some(SectionKind {
            benchmarks: &["loaded-latency"],
            build: sections::loaded_latency::build,
            shows: every,
        }),
    },
    BenchmarkInfo {
        name: "mlp",
        summary: "memory-level parallelism: k = 1..16 independent chases in one thread, ns per load and speed-up",
        description: "One pinned thread follows k independent pointer chains (k = 1 to 16) through one DRAM-sized buffer, starting at points spread evenly around a single cycle (in --order tlb-block, random or page-local, as for latency); each chain continues where it stopped, sample after sample, so together the samples read every line of the buffer once and nothing is re-read from the caches. One chain is latency's own chase. With one chain every load waits for the previous one; with k chains the core can keep up to k misses in flight, so the time per load falls until the core's miss-handling resources (line fill buffers) are exhausted. Records ns per load and mlp = (ns per load with 1 chain) / (ns per load with k chains): the number of misses the core effectively overlaps.",
        plan: plan_mlp,
        report: Some(SectionKind {
            benchmarks: &["mlp"],
            build: sections::mlp::build,
            shows: sections::mlp::shows,
        }),
    },
    super::c2c::BENCHMARK,
    BenchmarkInfo {
        name: "per-cpu",
        summary: "local latency and read bandwidth of one thread on each CPU in turn, and each CPU's ratio to its node's median",
        description: "One thread, pinned to each CPU in turn, chases a random pointer cycle through a DRAM-sized buffer on its own node (as the latency benchmark, with at most 3 samples), then reads a DRAM-sized buffer there (as the read kernel of the bandwidth benchmark, one thread). Machines with at most 32 allowed CPUs have every CPU measured; larger ones a sample: the first CPU of every last-level-cache domain plus the first and last CPU of every node, named in params.sample_rule. Every record carries params.each_cpu, cpu, cpu_node and mem_node; after all CPUs, one ratio record per CPU (latency_vs_node_median, read_bandwidth_vs_node_median) gives its figure over the median of its node's CPUs, and params.deviation_from_node_median that ratio minus one: a slow core or cache slice stands out. `latency --each-cpu` and `bandwidth --each-cpu` measure any list of CPUs the same way.",
        plan: plan_per_cpu,
        report: Some(SectionKind {
            benchmarks: &["per-cpu"],
            build: sections::per_cpu::build,
            shows: not_cycles,
        }),
    },
];

/// Every registered benchmark, in the order `characterize` runs them.
pub fn registry() -> &'static [BenchmarkInfo] {
    REGISTRY
}

/// A selection naming a benchmark that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SelectionError {
    #[error("unknown benchmark '{name}' (valid: {valid})")]
    Unknown { name: String, valid: String },
    #[error("--only and --skip leave no benchmark to run")]
    Nothing,
}

/// Applies `--only` (if non-empty, the white list) then `--skip` (the black
/// list), keeping registry order. Every name must exist.
pub fn select(
    only: &[String],
    skip: &[String],
) -> Result<Vec<&'static BenchmarkInfo>, SelectionError> {
    let valid = || {
        REGISTRY
            .iter()
            .map(|info| info.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    for name in only.iter().chain(skip) {
        if !REGISTRY.iter().any(|info| info.name == name) {
            return Err(SelectionError::Unknown {
                name: name.clone(),
                valid: valid(),
            });
        }
    }
    let selected: Vec<&BenchmarkInfo> = REGISTRY
        .iter()
        .filter(|info| only.is_empty() || only.iter().any(|name| name == info.name))
        .filter(|info| !skip.iter().any(|name| name == info.name))
        .collect();
    if selected.is_empty() {
        return Err(SelectionError::Nothing);
    }
    Ok(selected)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn only_and_skip_select_in_registry_order() {
        let all: Vec<&str> = registry().iter().map(|info| info.name).collect();
        assert_eq!(select(&[], &[]).unwrap().len(), all.len());
        let only = select(&names(&["bandwidth", "latency"]), &[]).unwrap();
        assert_eq!(
            only.iter().map(|info| info.name).collect::<Vec<_>>(),
            vec!["latency", "bandwidth"]
        );
        let skipped = select(&[], &names(&["latency"])).unwrap();
        assert!(skipped.iter().all(|info| info.name != "latency"));
        assert_eq!(
            select(&names(&["latency"]), &names(&["latency"])),
            Err(SelectionError::Nothing)
        );
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let error = select(&names(&["latncy"]), &[]).unwrap_err().to_string();
        assert!(
            error.contains("'latncy'") && error.contains("latency, bandwidth"),
            "{error}"
        );
        assert!(select(&[], &names(&["nope"])).is_err());
    }

    #[test]
    fn every_benchmark_is_described() {
        for info in registry() {
            assert!(
                info.description.len() > 200,
                "{} needs a real paragraph",
                info.name
            );
        }
    }
}
