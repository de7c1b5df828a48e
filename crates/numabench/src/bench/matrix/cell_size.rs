//! A node matrix cell's working set: the one `--size` asks for, or the
//! default, which each cell fits to what its memory node can hold.

use crate::bench::placed::safe_working_set_bytes;
use crate::topology::Machine;

/// The working set of a matrix's cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellSize {
    /// `--size`: every cell measures these bytes (the command checks,
    /// before anything runs, that each memory node has them free).
    Given(u64),
    /// The default (4x the caches in front of a row, at least the DRAM
    /// floor, the largest over the cells): a cell whose memory node
    /// cannot safely hold it ([`safe_working_set_bytes`]: a quarter of
    /// its free memory) measures as much as is safe, its record's
    /// `size` saying so and `cache_affected` where that is under 4x the
    /// caches. One small node (an HBM or CXL node, a node whose memory
    /// other work holds) no longer has the largest node's buffer bound
    /// on it: a two-socket guest with 119 MiB free on node 1 had a
    /// 108 MiB buffer bound there and numabench was OOM-killed.
    Default(u64),
}

impl CellSize {
    /// The largest a cell measures: what estimates and `--plan` count.
    pub fn bytes(self) -> u64 {
        match self {
            CellSize::Given(bytes) | CellSize::Default(bytes) => bytes,
        }
    }

    /// The largest, for a time budget's cut to shrink (a default stays a
    /// default: each cell still fits its node).
    pub fn bytes_mut(&mut self) -> &mut u64 {
        match self {
            CellSize::Given(bytes) | CellSize::Default(bytes) => bytes,
        }
    }

    /// What a cell with memory on `memory_node` measures.
    pub fn for_node(self, topology: &Machine, memory_node: u32) -> u64 {
        match self {
            CellSize::Given(bytes) => bytes,
            CellSize::Default(bytes) => match safe_working_set_bytes(topology, &[memory_node]) {
                Some(safe) => bytes.min(safe.max(1 << 20)),
                None => bytes,
            },
        }
    }
}

impl From<u64> for CellSize {
    /// Bytes a caller chose: [`CellSize::Given`].
    fn from(bytes: u64) -> CellSize {
        CellSize::Given(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::placed::limit_usable_bytes;

    #[test]
    fn a_default_fits_each_node_and_a_given_size_is_kept() {
        // Node 0 with 433 MiB free, node 1 with 119 MiB: the guest that
        // was OOM-killed.
        let mut topology = crate::topology::synthetic("pack:2 [numa(memory=512MiB)] core:2 pu:1");
        topology.nodes[0].memory_free_bytes = Some(433 << 20);
        topology.nodes[1].memory_free_bytes = Some(119 << 20);
        let default = CellSize::Default(108 << 20);
        assert_eq!(default.bytes(), 108 << 20);
        // This process's own memory limit may lower both further.
        assert!(default.for_node(&topology, 0) <= 108 << 20);
        assert!(default.for_node(&topology, 1) <= (119 << 20) / 4);
        if limit_usable_bytes(&topology).is_none() {
            assert_eq!(default.for_node(&topology, 0), 108 << 20);
            assert_eq!(default.for_node(&topology, 1), (119 << 20) / 4);
        }
        let given = CellSize::from(108 << 20);
        assert_eq!(given.for_node(&topology, 1), 108 << 20);
    }
}
