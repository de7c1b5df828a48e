//! The benchmark registry: names, descriptions, and `--only`/`--skip`
//! selection.

use thiserror::Error;

/// A registered benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchmarkInfo {
    /// Name as used on the command line and in records.
    pub name: &'static str,
    /// One line for `numabench list`.
    pub summary: &'static str,
    /// A paragraph for `numabench list --describe`: what it measures, how,
    /// what the numbers mean.
    pub description: &'static str,
}

const REGISTRY: &[BenchmarkInfo] = &[
    BenchmarkInfo {
        name: "latency",
        summary: "load-to-use latency of dependent loads (pointer chase), ns and cycles per load",
        description: "One thread, pinned to --cpu (or the first CPU of --cpu-node), follows a chain of pointers laid through every cache line of a buffer in one random cycle, so each load depends on the one before and no prefetcher can guess the next address. The time per load is the latency of the level the buffer fits in (L1, L2, L3, DRAM). The buffer's pages are placed (--mem-node binds them; by default the chasing thread touches them first) and the kernel is asked where they landed. --order page-local visits the lines of each page before moving on, so TLB misses mostly disappear and the difference to --order random is the page-walk cost. Reports the median over samples (each sample is ~20 ms of loads) in ns, and in TSC cycles when the TSC is invariant; the stats carry p90 and p99 of the per-sample averages. Bytes are not counted: one 8-byte load per cache line.",
    },
    BenchmarkInfo {
        name: "bandwidth",
        summary: "memory bandwidth of read/write/copy/triad kernels (and -nt streaming-store variants), GB/s",
        description: "Threads pinned to --cpus (or the first --threads allowed CPUs) run one kernel over their own contiguous share of the arrays, started together by a spin barrier; the time of a repetition runs from the barrier to the last thread's finish. Kernels: read (s += a[i]), write (a[i] = s), copy (a[i] = b[i]), triad (a[i] = b[i] + s*c[i]) and write-nt, copy-nt, triad-nt with non-temporal (streaming) stores. Vector loads and stores use the widest instruction set the CPU has (AVX-512, AVX2, SSE2, or scalar; --simd to choose). --size is the whole working set (all arrays together), as likwid-bench's -w. Bytes counted are 8 per array element read or written, as STREAM and likwid-bench count them: the write-allocate read caused by ordinary stores is NOT counted, so copy and triad under-report bus traffic by one stream (the -nt variants cause no such read). Reports the best repetition (peak bandwidth, as STREAM does) in GB/s (10^9 bytes/s); stats carry all repetitions.",
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
