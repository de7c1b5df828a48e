//! The benchmark registry: names, descriptions, what `characterize` runs
//! for each, and `--only`/`--skip` selection.

use super::characterize::{
    plan_matrix_bandwidth, plan_matrix_latency, plan_per_cpu, Defaults, Steps,
};
use crate::report::sections::{self, not_cycles, SectionKind};
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
    super::latency::BENCHMARK,
    super::bandwidth::BENCHMARK,
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
    super::contention::BENCHMARK,
    super::scaling::BENCHMARK,
    super::loaded_latency::BENCHMARK,
    super::mlp::BENCHMARK,
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
