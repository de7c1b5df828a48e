//! The weights Linux's `auto` mode writes (6.16 and later, while
//! `weighted_interleave/auto` is on), computed as the kernel computes
//! them, so that they can be shown and measured on any kernel: from each
//! memory node's bandwidth for its best CPU initiators (the firmware's
//! HMAT/CDAT figures the kernel publishes as
//! `/sys/devices/system/node/nodeN/access1/initiators/{read,write}_bandwidth`),
//! the smaller of read and write; each node's weight is
//! `WEIGHTINESS x bandwidth / sum of every memory node's` (integer
//! division), 1 for a node without figures or with too small a share,
//! then every weight divided by their greatest common divisor
//! (mm/mempolicy.c, `mempolicy_set_node_perf` and
//! `reduce_interleave_weights`). One vector for every socket: that is
//! what the kernel does, and what the measured per-socket advice is
//! compared with.

use super::weighted::common_divisor;
use crate::topology::Machine;
use std::path::Path;

/// The kernel's scale: weights before the gcd reduction are at most this.
pub const WEIGHTINESS: u64 = 32;

/// Where the kernel publishes each node's access coordinates.
pub const NODES_DIR: &str = "/sys/devices/system/node";

/// The kernel's weights from `(node, bandwidth)` for every memory node (a
/// bandwidth of 0: no figure), in the same order.
pub fn reduce(bandwidths: &[(u32, u64)]) -> Vec<(u32, u32)> {
    let sum: u64 = bandwidths.iter().map(|(_, bandwidth)| bandwidth).sum();
    let weights: Vec<(u32, u64)> = bandwidths
        .iter()
        .map(|&(node, bandwidth)| {
            let scaled = WEIGHTINESS * bandwidth;
            let weight = if bandwidth > 0 && sum < scaled {
                scaled / sum
            } else {
                1
            };
            (node, weight)
        })
        .collect();
    let divisor = common_divisor(weights.iter().map(|&(_, w)| w));
    weights
        .into_iter()
        .map(|(node, weight)| (node, (weight / divisor) as u32))
        .collect()
}

/// Each node's bandwidth as the kernel takes it, from `root` (a copy of
/// [`NODES_DIR`]): min(read, write) of `access1`, MB/s; 0 where the
/// kernel has no figure. `None` when no node has one.
pub fn sysfs_bandwidths(root: &Path, nodes: &[u32]) -> Option<Vec<(u32, u64)>> {
    let read = |node: u32, file: &str| -> Option<u64> {
        let path = root.join(format!("node{node}/access1/initiators/{file}"));
        std::fs::read_to_string(path).ok()?.trim().parse().ok()
    };
    let found: Vec<(u32, u64)> = nodes
        .iter()
        .map(|&node| {
            let bandwidth = match (read(node, "read_bandwidth"), read(node, "write_bandwidth")) {
                (Some(r), Some(w)) => r.min(w),
                _ => 0,
            };
            (node, bandwidth)
        })
        .collect();
    found.iter().any(|(_, b)| *b > 0).then_some(found)
}

/// The same from the topology's HMAT attributes (hwloc's, for a machine
/// described by a file): per node the best initiator's read and write
/// bandwidth (or its `bandwidth` where read and write are not split), the
/// smaller of the two, MiB/s; `None` when no node has one.
pub fn topology_bandwidths(topology: &Machine, nodes: &[u32]) -> Option<Vec<(u32, u64)>> {
    let best = |node: u32, name: &str| {
        topology
            .memory_attributes
            .iter()
            .filter(|value| value.target_node == node && value.name == name)
            .map(|value| value.value)
            .max()
    };
    let found: Vec<(u32, u64)> = nodes
        .iter()
        .map(|&node| {
            let bandwidth = match (best(node, "read_bandwidth"), best(node, "write_bandwidth")) {
                (Some(r), Some(w)) => r.min(w),
                (Some(one), None) | (None, Some(one)) => one,
                (None, None) => best(node, "bandwidth").unwrap_or(0),
            };
            (node, bandwidth)
        })
        .collect();
    found.iter().any(|(_, b)| *b > 0).then_some(found)
}

/// Where the figures came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoSource {
    /// The kernel's own `access1` files.
    Kernel,
    /// The topology's HMAT attributes (hwloc).
    Topology,
}

impl AutoSource {
    pub fn as_str(self) -> &'static str {
        match self {
            AutoSource::Kernel => "kernel access1 figures",
            AutoSource::Topology => "HMAT attributes of the topology",
        }
    }
}

/// The weights `auto` mode writes for every memory node `nodes` (all of
/// them: the kernel reduces over every memory node), from the kernel's
/// figures where it publishes some, else the topology's; `None` without
/// any bandwidth figure.
pub fn auto_weights(topology: &Machine, nodes: &[u32]) -> Option<(Vec<(u32, u32)>, AutoSource)> {
    if let Some(found) = sysfs_bandwidths(Path::new(NODES_DIR), nodes) {
        return Some((reduce(&found), AutoSource::Kernel));
    }
    topology_bandwidths(topology, nodes).map(|found| (reduce(&found), AutoSource::Topology))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidths_reduce_as_the_kernel_reduces_them() {
        // DRAM 20480 MB/s and CXL 8192: 32 x 20480 / 28672 = 22, 32 x 8192 / 28672 = 9.
        assert_eq!(reduce(&[(0, 20480), (2, 8192)]), [(0, 22), (2, 9)]);
        // Equal figures: 16 and 16, reduced by their gcd to 1 and 1.
        assert_eq!(reduce(&[(0, 100), (1, 100)]), [(0, 1), (1, 1)]);
        // SK hynix's example from one CPU: 300, 150, 100 and 50 GB/s.
        assert_eq!(
            reduce(&[(0, 300), (1, 150), (2, 100), (3, 50)]),
            [(0, 16), (1, 8), (2, 5), (3, 2)]
        );
        // A node without a figure, and one too small to get 1 of 32: weight 1.
        assert_eq!(
            reduce(&[(0, 1000), (1, 0), (2, 10)]),
            [(0, 31), (1, 1), (2, 1)]
        );
    }

    #[test]
    fn the_kernels_access1_files_are_read_as_it_reads_them() {
        let root = tempfile::tempdir().unwrap();
        for (node, read, write) in [(0, 20480, 30000), (2, 9000, 8192)] {
            let dir = root.path().join(format!("node{node}/access1/initiators"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("read_bandwidth"), format!("{read}\n")).unwrap();
            std::fs::write(dir.join("write_bandwidth"), format!("{write}\n")).unwrap();
        }
        let found = sysfs_bandwidths(root.path(), &[0, 1, 2]).unwrap();
        assert_eq!(found, [(0, 20480), (1, 0), (2, 8192)]);
        assert_eq!(sysfs_bandwidths(root.path(), &[1]), None);
    }

    #[test]
    fn a_topology_files_hmat_gives_the_same_figures() {
        let topology = crate::topology::fixture_tests::load("cxl-hmat");
        let nodes = crate::topology::memory_nodes(&topology);
        let found = topology_bandwidths(&topology, &nodes).unwrap();
        assert!(
            found.iter().all(|(_, bandwidth)| *bandwidth > 0),
            "{found:?}"
        );
        let weights = reduce(&found);
        assert_eq!(weights.len(), nodes.len());
        // The slower node by its figures gets the smaller weight.
        let slowest = found.iter().min_by_key(|(_, b)| *b).unwrap().0;
        let fastest = found.iter().max_by_key(|(_, b)| *b).unwrap().0;
        let weight = |node| weights.iter().find(|(n, _)| *n == node).unwrap().1;
        assert!(weight(slowest) < weight(fastest), "{weights:?}");
    }
}
