//! Where pages really are: the kernel's answer to move_pages in query mode.

use super::buffer::Buffer;
use super::errors::MemoryError;
use super::huge_pages::HUGE_PAGE_SIZE;
use super::placement::MemoryPlacement;
use super::syscalls::{move_pages, PAGE_SIZE};
use numabench_schema::PlacementCheck;
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
        let pages = self.pages();
        let fraction = PlacementCheck::fraction(as_requested as f64, pages);
        self.check_fraction(fraction, threshold)
    }

    /// The check of these pages when `fraction` (0..=1) of them are placed
    /// as asked: `achieved` when it reaches `threshold`.
    pub fn check_fraction(self, fraction: f64, threshold: f64) -> PlacementCheck {
        PlacementCheck {
            moved: None,
            pages: self.pages(),
            pages_per_node: self.per_node,
            fraction_as_requested: fraction,
            achieved: fraction >= threshold,
            huge_pages: None,
        }
    }

    /// Pages examined: resident or not.
    fn pages(&self) -> u64 {
        self.resident() + self.not_present
    }

    /// The share of all pages placed as `placement` asks: on its nodes for
    /// a first touch, as [`super::MemoryPolicy::fraction_placed`] says for
    /// a policy (`granule_pages` is how many base pages the kernel places
    /// as one). Pages not present count as misplaced.
    pub fn fraction_as_requested(&self, placement: &MemoryPlacement, granule_pages: u64) -> f64 {
        let pages = self.pages();
        match placement {
            MemoryPlacement::Policy(policy) => {
                policy.fraction_placed(&self.per_node, pages, granule_pages)
            }
            _ if pages == 0 => 0.0,
            MemoryPlacement::FirstTouch { nodes } => self.on_nodes(nodes) as f64 / pages as f64,
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

/// Checks a buffer against its placement (see
/// [`PageNodes::fraction_as_requested`]). The check is `achieved` when at
/// least `threshold` of its pages (0..=1) are placed as asked; pages not
/// yet present count as misplaced.
pub fn check_placement(
    buffer: &Buffer,
    placement: &MemoryPlacement,
    threshold: f64,
) -> Result<PlacementCheck, MemoryError> {
    let nodes = page_nodes(buffer.as_ptr(), buffer.len())?;
    let granule_pages = match buffer.is_hugetlb() {
        true => (HUGE_PAGE_SIZE / PAGE_SIZE) as u64,
        false => 1,
    };
    let fraction = nodes.fraction_as_requested(placement, granule_pages);
    Ok(nodes.check_fraction(fraction, threshold))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        MemoryPlacement::bind(0).apply(&buffer).unwrap();
        buffer.touch_pages();
        let check = check_placement(&buffer, &MemoryPlacement::bind(0), 0.99).unwrap();
        assert!(check.achieved);
        assert_eq!(check.pages_per_node.get(&0), Some(&32));
        let elsewhere = check_placement(&buffer, &MemoryPlacement::bind(1), 0.99).unwrap();
        assert!(!elsewhere.achieved, "pages on node 0 are not on node 1");
    }

    /// Every page on node 0 is not an interleave over nodes 0 and 1 (the
    /// old check counted pages on any node of the set and passed it).
    #[test]
    fn all_pages_on_one_node_of_an_interleave_over_two_is_not_achieved() {
        let all_on_0 = PageNodes::from_statuses(&[0; 64]);
        let interleave = MemoryPlacement::interleave(vec![0, 1]);
        assert_eq!(all_on_0.fraction_as_requested(&interleave, 1), 0.5);
        let check = all_on_0.clone().check_fraction(0.5, 0.95);
        assert!(!check.achieved);
        let split = PageNodes::from_statuses(&[0, 1].repeat(32));
        assert_eq!(split.fraction_as_requested(&interleave, 1), 1.0);
        assert_eq!(
            all_on_0.fraction_as_requested(&MemoryPlacement::bind(0), 1),
            1.0
        );
    }

    /// The real syscall path: an interleave over the one node this process
    /// surely has is a bind, and is achieved.
    #[test]
    fn interleaving_over_node_0_alone_is_verified() {
        let mut buffer = Buffer::new(32 * PAGE_SIZE).unwrap();
        let interleave = MemoryPlacement::interleave(vec![0]);
        interleave.apply(&buffer).unwrap();
        buffer.touch_pages();
        assert!(
            check_placement(&buffer, &interleave, 0.99)
                .unwrap()
                .achieved
        );
    }

    #[test]
    fn binding_to_a_missing_node_is_refused_by_the_kernel() {
        let buffer = Buffer::new(PAGE_SIZE).unwrap();
        assert!(MemoryPlacement::bind(1000).apply(&buffer).is_err());
    }
}
