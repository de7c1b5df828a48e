//! Where pages really are: the kernel's answer to move_pages in query mode.

use super::buffer::Buffer;
use super::check::PlacementCheck;
use super::errors::MemoryError;
use super::syscalls::{move_pages, PAGE_SIZE};
use std::collections::BTreeMap;

/// Page counts per node for a range.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageNodes {
    /// Pages resident on each node.
    pub per_node: BTreeMap<u32, u64>,
    /// Pages not present (never touched, or swapped out).
    pub not_present: u64,
}

impl PageNodes {
    /// Resident pages.
    pub fn resident(&self) -> u64 {
        self.per_node.values().sum()
    }

    /// Pages on any of `nodes`.
    pub fn on_nodes(&self, nodes: &[u32]) -> u64 {
        nodes
            .iter()
            .filter_map(|node| self.per_node.get(node))
            .sum()
    }
}

impl PageNodes {
    /// Counts per node from [`page_statuses`]' answers.
    pub fn from_statuses(statuses: &[i32]) -> Self {
        let mut result = PageNodes::default();
        for &status in statuses {
            if status >= 0 {
                *result.per_node.entry(status as u32).or_default() += 1;
            } else {
                result.not_present += 1;
            }
        }
        result
    }

    /// The check of these pages when `as_requested` of them are where they
    /// were asked to be: `achieved` when at least `threshold` (0..=1) of
    /// all pages are; pages not yet present count as misplaced.
    pub fn check(self, as_requested: u64, threshold: f64) -> PlacementCheck {
        let pages = self.resident() + self.not_present;
        let fraction = if pages == 0 {
            0.0
        } else {
            as_requested as f64 / pages as f64
        };
        PlacementCheck {
            pages,
            pages_per_node: self.per_node,
            fraction_as_requested: fraction,
            achieved: fraction >= threshold,
            huge_pages: None,
        }
    }
}

/// Asks the kernel which node holds each page of `[start, start + length)`.
pub fn page_nodes(start: *mut u8, length: usize) -> Result<PageNodes, MemoryError> {
    Ok(PageNodes::from_statuses(&page_statuses(start, length)?))
}

/// The kernel's answer for each base page of `[start, start + length)`, in
/// order: the node holding it, or a negative errno (`-ENOENT`: not present).
pub fn page_statuses(start: *mut u8, length: usize) -> Result<Vec<i32>, MemoryError> {
    const BATCH: usize = 16 * 1024;
    let page_count = length.div_ceil(PAGE_SIZE);
    let mut statuses = vec![0i32; page_count];
    let mut pages = Vec::with_capacity(BATCH.min(page_count));
    for (batch, status) in statuses.chunks_mut(BATCH).enumerate() {
        let first = batch * BATCH;
        pages.clear();
        // wrapping_add: only addresses are computed; the kernel dereferences nothing we do not own.
        pages.extend(
            (first..first + status.len())
                .map(|page| start.wrapping_add(page * PAGE_SIZE).cast::<libc::c_void>()),
        );
        // SAFETY: every address lies in the caller's range, which the caller maps.
        unsafe { move_pages(&pages, &[], status, 0) }.map_err(MemoryError::Query)?;
    }
    Ok(statuses)
}

/// Checks a buffer against the nodes its pages should be on. The check is
/// `achieved` when at least `threshold` of its pages (0..=1) are there;
/// pages not yet present count as misplaced.
pub fn check_placement(
    buffer: &Buffer,
    expected_nodes: &[u32],
    threshold: f64,
) -> Result<PlacementCheck, MemoryError> {
    let nodes = page_nodes(buffer.as_ptr(), buffer.len())?;
    let as_requested = nodes.on_nodes(expected_nodes);
    Ok(nodes.check(as_requested, threshold))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryPlacement;

    #[test]
    fn untouched_pages_are_not_present_and_touched_ones_are_found() {
        let mut buffer = Buffer::new(64 * PAGE_SIZE).unwrap();
        let before = page_nodes(buffer.as_ptr(), buffer.len()).unwrap();
        assert_eq!(before.not_present, 64);
        buffer.touch_pages();
        let after = page_nodes(buffer.as_ptr(), buffer.len()).unwrap();
        assert_eq!(after.resident(), 64);
    }

    #[test]
    fn binding_to_node_0_is_verified() {
        let mut buffer = Buffer::new(32 * PAGE_SIZE).unwrap();
        MemoryPlacement::Bind(0).apply(&buffer).unwrap();
        buffer.touch_pages();
        let check = check_placement(&buffer, &[0], 0.99).unwrap();
        assert!(check.achieved);
        assert_eq!(check.pages_per_node.get(&0), Some(&32));
        let elsewhere = check_placement(&buffer, &[1], 0.99).unwrap();
        assert!(!elsewhere.achieved, "pages on node 0 are not on node 1");
    }

    #[test]
    fn binding_to_a_missing_node_is_refused_by_the_kernel() {
        let buffer = Buffer::new(PAGE_SIZE).unwrap();
        assert!(MemoryPlacement::Bind(1000).apply(&buffer).is_err());
    }
}
