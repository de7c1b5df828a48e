//! Weighted interleave (`weighted:0=3,2=1`): pages over nodes in
//! proportion to weights, 3 on node 0 for every 1 on node 2, as a
//! DRAM:CXL split wants.
//!
//! Linux 6.9 added `MPOL_WEIGHTED_INTERLEAVE`, whose weights are not part
//! of the policy: the kernel takes them from
//! `/sys/kernel/mm/mempolicy/weighted_interleave/nodeN`, one system-wide
//! vector (since 6.16 written by the kernel itself from firmware tables
//! while `auto` is on). numabench never changes those files. So a policy
//! runs in one of two modes ([`WeightedMode`]):
//! - **kernel**: the kernel has weighted interleave and its weights over
//!   the policy's nodes are in the policy's proportions (or the policy
//!   asks for the kernel's own weights: `weighted`, `weighted:LIST`);
//! - **emulated**: otherwise, for a buffer numabench allocates itself, the
//!   buffer is cut into chunks bound (`MPOL_BIND`) to the nodes in the
//!   weights' pattern ([`chunk_bytes`], [`pattern`]): the same shares,
//!   placed in runs of chunks rather than page by page. A program numabench
//!   only starts (`run --policy`) cannot be emulated.

use std::collections::BTreeMap;
use std::path::Path;

/// Where the kernel keeps its weights (one file per node).
pub const WEIGHTS_DIR: &str = "/sys/kernel/mm/mempolicy/weighted_interleave";

/// The largest weight the kernel takes (weights are bytes, 1..=255).
pub const MAX_WEIGHT: u32 = 255;

/// The most chunks an emulated buffer is cut into: every run of chunks on
/// one node is a mapping of its own (mbind splits them), and a process may
/// hold only `vm.max_map_count` (65530 by default) mappings.
pub const MAX_CHUNKS: usize = 8192;

/// A weighted interleave of the kernel's own weights (no weights given) on
/// a kernel without weighted interleave: it cannot run at all.
///
/// Fault: the user's (the policy asked for; weights make it run here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the kernel's own weights need Linux 6.9 or later (no {WEIGHTS_DIR}): give weights, as weighted:0=3,1=1")]
pub struct NoKernelWeights;

crate::error::all_faulty!(Usage: NoKernelWeights);

/// How a weighted interleave is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightedMode {
    /// The kernel's `MPOL_WEIGHTED_INTERLEAVE`, with its own weights.
    Kernel,
    /// Chunks bound to the nodes in the weights' pattern.
    Emulated,
}

impl WeightedMode {
    /// `kernel` or `emulated`, as records say.
    pub fn as_str(self) -> &'static str {
        match self {
            WeightedMode::Kernel => "kernel",
            WeightedMode::Emulated => "emulated",
        }
    }
}

/// The kernel's weights per node from `dir` (its `nodeN` files); `None`
/// when the kernel has no weighted interleave (no such folder).
pub fn kernel_weights_in(dir: &Path) -> Option<BTreeMap<u32, u32>> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut weights = BTreeMap::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(node) = name
            .to_str()
            .and_then(|name| name.strip_prefix("node"))
            .and_then(|node| node.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(weight) = std::fs::read_to_string(entry.path())
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok())
        {
            weights.insert(node, weight);
        }
    }
    Some(weights)
}

/// This kernel's weights ([`kernel_weights_in`] of [`WEIGHTS_DIR`]).
pub fn kernel_weights() -> Option<BTreeMap<u32, u32>> {
    kernel_weights_in(Path::new(WEIGHTS_DIR))
}

/// True when `a` and `b` (weights of the same nodes) are in the same
/// proportions.
pub fn proportional(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(&x, &y)| u64::from(x) * u64::from(b[0]) == u64::from(y) * u64::from(a[0]))
}

/// The mode of a weighted interleave over `nodes` with `weights` (empty:
/// the kernel's own), given the kernel's weights (`None`: no weighted
/// interleave in this kernel); `Err` says why it cannot run at all.
pub fn mode_for(
    nodes: &[u32],
    weights: &[u32],
    kernel: Option<&BTreeMap<u32, u32>>,
) -> Result<WeightedMode, NoKernelWeights> {
    let Some(kernel) = kernel else {
        return if weights.is_empty() {
            Err(NoKernelWeights)
        } else {
            Ok(WeightedMode::Emulated)
        };
    };
    if weights.is_empty() {
        return Ok(WeightedMode::Kernel);
    }
    Ok(match kernel_weights_of(nodes, kernel) {
        Some(held) if proportional(&held, weights) => WeightedMode::Kernel,
        _ => WeightedMode::Emulated,
    })
}

/// The weights of `nodes` the kernel holds, where it holds one for each.
pub fn kernel_weights_of(nodes: &[u32], kernel: &BTreeMap<u32, u32>) -> Option<Vec<u32>> {
    nodes.iter().map(|node| kernel.get(node).copied()).collect()
}

/// The node of each chunk of one period of the pattern: node i's weight
/// times, node after node (`[0=3, 2=1]` gives `[0, 0, 0, 2]`), the weights
/// first divided by their greatest common divisor.
pub fn pattern(nodes: &[u32], weights: &[u32]) -> Vec<u32> {
    let divisor = common_divisor(weights.iter().map(|&w| u64::from(w))) as u32;
    nodes
        .iter()
        .zip(weights)
        .flat_map(|(&node, &weight)| std::iter::repeat_n(node, (weight / divisor) as usize))
        .collect()
}

/// The greatest common divisor of `weights`, at least 1: what weights
/// are divided by so that 2:4 and 1:2 are one pattern (the kernel reduces
/// its own weights the same way).
pub fn common_divisor(weights: impl IntoIterator<Item = u64>) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    weights.into_iter().fold(0, gcd).max(1)
}

/// The chunk an emulated buffer of `length` bytes is bound in: whole
/// granules (`granule` bytes: a page, or a huge page), as small as
/// possible while the buffer makes at most [`MAX_CHUNKS`] chunks.
pub fn chunk_bytes(length: usize, granule: usize) -> usize {
    let granule = granule.max(1);
    let granules = length.div_ceil(granule);
    granules.div_ceil(MAX_CHUNKS).max(1) * granule
}

/// The runs of an emulated buffer of `length` bytes: (offset, length,
/// node), consecutive chunks on one node joined, the pattern repeated
/// from the start; the last run may be short.
pub fn runs(length: usize, chunk: usize, pattern: &[u32]) -> Vec<(usize, usize, u32)> {
    let mut runs: Vec<(usize, usize, u32)> = Vec::new();
    if pattern.is_empty() || chunk == 0 {
        return runs;
    }
    let mut offset = 0;
    let mut index = 0;
    while offset < length {
        let node = pattern[index % pattern.len()];
        let bytes = chunk.min(length - offset);
        match runs.last_mut() {
            Some((_, run, last)) if *last == node => *run += bytes,
            _ => runs.push((offset, bytes, node)),
        }
        offset += bytes;
        index += 1;
    }
    runs
}

/// The share of `pages` placed as weights ask: every node's pages up to
/// its share (`weight / sum`, rounded up to whole granules of
/// `granule_pages`), over all pages. 0.0 when there are no pages.
pub fn weighted_fraction(
    pages_per_node: &BTreeMap<u32, u64>,
    pages: u64,
    nodes: &[u32],
    weights: &[u32],
    granule_pages: u64,
) -> f64 {
    let total: u64 = weights.iter().map(|&weight| u64::from(weight)).sum();
    if pages == 0 || total == 0 || nodes.len() != weights.len() {
        return 0.0;
    }
    let granule = granule_pages.max(1);
    let granules = pages.div_ceil(granule);
    let as_requested: u64 = nodes
        .iter()
        .zip(weights)
        .map(|(node, &weight)| {
            let share = (granules * u64::from(weight)).div_ceil(total) * granule;
            pages_per_node.get(node).copied().unwrap_or(0).min(share)
        })
        .sum();
    as_requested as f64 / pages as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_repeats_each_node_by_its_reduced_weight() {
        assert_eq!(pattern(&[0, 2], &[3, 1]), [0, 0, 0, 2]);
        assert_eq!(pattern(&[0, 1], &[6, 4]), [0, 0, 0, 1, 1]);
        assert_eq!(pattern(&[1], &[7]), [1]);
    }

    #[test]
    fn runs_join_chunks_of_one_node_and_cover_the_buffer() {
        let joined = runs(10 * 4096, 4096, &[0, 0, 0, 2]);
        assert_eq!(
            joined,
            [
                (0, 3 * 4096, 0),
                (3 * 4096, 4096, 2),
                (4 * 4096, 3 * 4096, 0),
                (7 * 4096, 4096, 2),
                (8 * 4096, 2 * 4096, 0),
            ]
        );
        let covered: usize = joined.iter().map(|run| run.1).sum();
        assert_eq!(covered, 10 * 4096);
        // A partial last chunk is a short run.
        assert_eq!(
            runs(4096 + 100, 4096, &[0, 1]).last(),
            Some(&(4096, 100, 1))
        );
    }

    #[test]
    fn chunks_stay_few_enough_for_the_mapping_limit() {
        assert_eq!(chunk_bytes(64 * 4096, 4096), 4096);
        let gib = 1 << 30;
        let chunk = chunk_bytes(gib, 4096);
        assert_eq!(chunk, 128 * 1024);
        assert!(gib / chunk <= MAX_CHUNKS);
        assert_eq!(chunk_bytes(gib, 2 << 20) % (2 << 20), 0);
    }

    #[test]
    fn the_kernel_mode_needs_its_weights_in_the_policys_proportions() {
        let kernel: BTreeMap<u32, u32> = [(0, 6), (1, 2), (2, 1)].into_iter().collect();
        assert_eq!(
            mode_for(&[0, 1], &[3, 1], Some(&kernel)),
            Ok(WeightedMode::Kernel)
        );
        assert_eq!(
            mode_for(&[0, 2], &[3, 1], Some(&kernel)),
            Ok(WeightedMode::Emulated)
        );
        assert_eq!(
            mode_for(&[0, 3], &[1, 1], Some(&kernel)),
            Ok(WeightedMode::Emulated)
        );
        assert_eq!(
            mode_for(&[0, 2], &[], Some(&kernel)),
            Ok(WeightedMode::Kernel)
        );
        assert_eq!(mode_for(&[0, 2], &[3, 1], None), Ok(WeightedMode::Emulated));
        assert!(mode_for(&[0, 2], &[], None)
            .unwrap_err()
            .to_string()
            .contains("Linux 6.9"));
    }

    #[test]
    fn the_fraction_counts_each_node_up_to_its_share() {
        let counts = |pairs: &[(u32, u64)]| pairs.iter().copied().collect::<BTreeMap<u32, u64>>();
        assert_eq!(
            weighted_fraction(&counts(&[(0, 75), (2, 25)]), 100, &[0, 2], &[3, 1], 1),
            1.0
        );
        // Plain interleave's halves under 3:1: node 2's extra 25 are misplaced.
        assert_eq!(
            weighted_fraction(&counts(&[(0, 50), (2, 50)]), 100, &[0, 2], &[3, 1], 1),
            0.75
        );
        assert_eq!(
            weighted_fraction(&counts(&[(0, 100)]), 100, &[0, 2], &[3, 1], 1),
            0.75
        );
        assert_eq!(weighted_fraction(&counts(&[]), 0, &[0], &[1], 1), 0.0);
    }

    #[test]
    fn the_kernel_weights_are_read_per_node_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("node0"), "3\n").unwrap();
        std::fs::write(dir.path().join("node2"), "1\n").unwrap();
        // Linux 6.16's `auto` switch (6.18 names it `__auto_type`).
        std::fs::write(dir.path().join("auto"), "true\n").unwrap();
        let weights = kernel_weights_in(dir.path()).unwrap();
        assert_eq!(weights, [(0, 3), (2, 1)].into_iter().collect());
        assert_eq!(kernel_weights_in(&dir.path().join("none")), None);
        assert!(proportional(&[6, 2], &[3, 1]));
        assert!(!proportional(&[1, 1], &[3, 1]));
    }
}
