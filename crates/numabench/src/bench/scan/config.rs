//! What `scan` measures: for each node, the CPUs that read it, how much of
//! it is allocated, and the ranges' size and the least of a range that
//! makes it measured.

use crate::bench::error::BenchError;
use crate::bench::placed::{check_memory_fits, resolve_node_with_memory, within_memory_limit};
use crate::bench::tiers::ThreadCount;
use crate::memory::HUGE_PAGE_SIZE;
use crate::topology::{memory_nodes, Machine};

/// Default physical range: 1 GiB, the size of a DIMM's share in most
/// interleave maps and of the ranges MLC's scan reports.
pub const DEFAULT_RANGE_SIZE: u64 = 1 << 30;

/// By default a range is measured when this much of it is in the buffer
/// (or a quarter of the range, if smaller): enough for a timed read of
/// DRAM, not of a cache.
pub const DEFAULT_MIN_RANGE_BYTES: u64 = 64 << 20;

/// The default takes this share of a node's free memory...
pub const DEFAULT_SHARE_OF_FREE: f64 = 0.75;

/// ...and at most this much of a node: on a 24-node machine of 400 GB
/// every node's default is its share of free memory (12 GB at most), and
/// a node of a terabyte is still allocated and read in under a minute.
pub const MAX_DEFAULT_BYTES: u64 = 64 << 30;

/// One node to scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanNode {
    /// The node whose memory is scanned.
    pub node: u32,
    /// The CPUs that touch and read it: the node's own, or for a CPU-less
    /// node those hwloc says are near it (every allowed CPU if none).
    pub cpus: Vec<u32>,
    /// Bytes allocated on it (whole 2 MiB pages).
    pub size: u64,
    /// Its memory, bytes (for the share covered).
    pub node_bytes: u64,
}

/// A validated `numabench scan`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanConfig {
    pub nodes: Vec<ScanNode>,
    /// Bytes of one physical range.
    pub range_size: u64,
    /// Least bytes of a range in the buffer for it to be measured.
    pub min_range_bytes: u64,
    /// Interleaved rounds: each measures every range of a node once.
    pub rounds: usize,
}

/// What the command line asks, before it is checked against the machine.
#[derive(Debug, Clone, Default)]
pub struct ScanRequest {
    /// Nodes to scan; `None`: every node with memory this process may use.
    pub nodes: Option<Vec<u32>>,
    /// Bytes per node; `None`: [`default_size`].
    pub size: Option<u64>,
    /// `None`: [`DEFAULT_RANGE_SIZE`].
    pub range_size: Option<u64>,
    /// `None`: the smaller of [`DEFAULT_MIN_RANGE_BYTES`] and a quarter
    /// of the range, at least 4x the caches in front of the node's CPUs
    /// (never more than the range).
    pub min_range_bytes: Option<u64>,
    /// Threads per node; `None`: every CPU of the node.
    pub threads: Option<ThreadCount>,
    pub rounds: usize,
}

impl ScanConfig {
    /// Checks `request` against `topology`: the nodes exist and have
    /// memory, an explicit size fits each (refused otherwise, before
    /// anything is allocated), the range is a whole number of 2 MiB pages.
    pub fn validate(topology: &Machine, request: &ScanRequest) -> Result<Self, BenchError> {
        let range_size = request.range_size.unwrap_or(DEFAULT_RANGE_SIZE);
        if range_size < HUGE_PAGE_SIZE as u64 || !range_size.is_multiple_of(HUGE_PAGE_SIZE as u64) {
            return Err(BenchError::Invalid(format!(
                "--range-size {range_size} is not a whole number of 2 MiB pages (at least 2MiB)"
            )));
        }
        let indices = match &request.nodes {
            Some(nodes) => nodes
                .iter()
                .map(|&node| resolve_node_with_memory(topology, node))
                .collect::<Result<Vec<_>, _>>()?,
            None => memory_nodes(topology),
        };
        let mut nodes = Vec::new();
        for node in indices {
            let info = topology.node(node).expect("a resolved node");
            if info.memory_total_bytes == 0 {
                return Err(BenchError::Invalid(format!("node {node} has no memory")));
            }
            let size = match request.size {
                Some(size) => {
                    check_memory_fits(topology, &[node], size)?;
                    size
                }
                None => default_size(topology, node),
            };
            let mut cpus = scan_cpus(topology, node);
            if let Some(threads) = request.threads {
                cpus.truncate(threads.of(cpus.len()));
            }
            nodes.push(ScanNode {
                node,
                cpus,
                size: size.div_ceil(HUGE_PAGE_SIZE as u64) * HUGE_PAGE_SIZE as u64,
                node_bytes: info.memory_total_bytes,
            });
        }
        let caches = nodes
            .iter()
            .map(|scan| topology.cache_bytes_in_front(&scan.cpus, &[scan.node]))
            .max()
            .unwrap_or(0);
        let min_range_bytes = request
            .min_range_bytes
            .unwrap_or_else(|| {
                (range_size / 4)
                    .min(DEFAULT_MIN_RANGE_BYTES)
                    .max(4 * caches)
            })
            .clamp(1, range_size);
        Ok(Self {
            nodes,
            range_size,
            min_range_bytes,
            rounds: request.rounds.max(1),
        })
    }
}

/// A node's default size: [`DEFAULT_SHARE_OF_FREE`] of its free memory
/// (of its total when the kernel does not say, as for an XML topology), at
/// most [`MAX_DEFAULT_BYTES`], and what this process's memory limit allows
/// ([`within_memory_limit`]).
pub fn default_size(topology: &Machine, node: u32) -> u64 {
    let info = topology.node(node);
    let free = info
        .map(|info| info.memory_free_bytes.unwrap_or(info.memory_total_bytes))
        .unwrap_or(0);
    let share = ((free as f64 * DEFAULT_SHARE_OF_FREE) as u64).min(MAX_DEFAULT_BYTES);
    within_memory_limit(topology, share.max(HUGE_PAGE_SIZE as u64))
}

/// The allowed CPUs that read `node`: its own, else (a CPU-less node)
/// those near it, else every allowed CPU.
fn scan_cpus(topology: &Machine, node: u32) -> Vec<u32> {
    let allowed = |cpus: &[u32]| -> Vec<u32> {
        cpus.iter()
            .copied()
            .filter(|cpu| topology.allowed.cpus.contains(cpu))
            .collect()
    };
    let info = topology.node(node).expect("a resolved node");
    [allowed(&info.cpus), allowed(&info.locality_cpus)]
        .into_iter()
        .find(|cpus| !cpus.is_empty())
        .unwrap_or_else(|| topology.allowed.cpus.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::discover_from_xml;
    use std::path::Path;

    fn load_fixture(name: &str) -> Machine {
        discover_from_xml(Path::new(&format!(
            "{}/tests/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        )))
        .unwrap()
    }

    #[test]
    fn every_node_with_memory_by_default_each_with_most_of_it_within_bounds() {
        let topology = load_fixture("twenty-four-nodes.xml");
        let config = ScanConfig::validate(
            &topology,
            &ScanRequest {
                rounds: 5,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(config.nodes.len(), 24);
        for scan in &config.nodes {
            assert!(!scan.cpus.is_empty());
            assert!(scan.size <= MAX_DEFAULT_BYTES);
            assert!(scan.size as f64 >= 0.5 * scan.node_bytes.min(MAX_DEFAULT_BYTES) as f64);
        }
        assert_eq!(config.range_size, DEFAULT_RANGE_SIZE);
        assert!(config.min_range_bytes >= DEFAULT_MIN_RANGE_BYTES);
    }

    #[test]
    fn a_range_size_that_is_not_whole_huge_pages_is_refused() {
        let topology = load_fixture("twenty-four-nodes.xml");
        for range_size in [1 << 20, (1 << 30) + 4096] {
            let request = ScanRequest {
                range_size: Some(range_size),
                rounds: 1,
                ..Default::default()
            };
            let error = ScanConfig::validate(&topology, &request).unwrap_err();
            assert!(error.to_string().contains("--range-size"), "{error}");
        }
    }
}
