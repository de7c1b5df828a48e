//! Huge pages of a team's arrays across a migration: where each 2 MiB page
//! was before (serial+migrate's move_pages step, next-touch's faults), and
//! how many are on another node afterwards while still huge pages (a THP
//! the kernel split to move it counts as moved, not as a huge page moved).

use crate::memory::syscalls::move_pages;
use crate::memory::{PageFlags, HUGE_PAGE_SIZE};

/// The 2 MiB-aligned huge page slots inside `[start, start + bytes)`.
pub(crate) fn huge_slots(start: usize, bytes: usize) -> Vec<usize> {
    (start.next_multiple_of(HUGE_PAGE_SIZE)..(start + bytes).saturating_sub(HUGE_PAGE_SIZE - 1))
        .step_by(HUGE_PAGE_SIZE)
        .collect()
}

/// The node of the first base page of each slot (negative: not present or
/// unknown).
fn nodes_of(slots: &[usize]) -> Vec<i32> {
    let pages: Vec<*mut libc::c_void> = slots.iter().map(|&slot| slot as *mut _).collect();
    let mut status = vec![-1i32; pages.len()];
    for (chunk, status) in pages.chunks(4096).zip(status.chunks_mut(4096)) {
        // SAFETY: every address lies in a mapping of this process (a team array); status holds
        // one entry per page of the chunk; no target nodes: a query only.
        let _ = unsafe { move_pages(chunk, &[], status, 0) };
    }
    status
}

/// Where the huge page slots of some arrays were before a migration.
#[derive(Debug, Clone, Default)]
pub(crate) struct HugeSnapshot {
    slots: Vec<usize>,
    nodes: Vec<i32>,
}

impl HugeSnapshot {
    /// Records the node of every huge page slot of the `(start, bytes)` ranges.
    pub(crate) fn take(ranges: impl IntoIterator<Item = (usize, usize)>) -> Self {
        let slots: Vec<usize> = ranges
            .into_iter()
            .flat_map(|(start, bytes)| huge_slots(start, bytes))
            .collect();
        let nodes = nodes_of(&slots);
        Self { slots, nodes }
    }

    /// Huge pages now on another node than at the snapshot and still huge
    /// pages; `None` when page flags cannot be read (no CAP_SYS_ADMIN):
    /// unknown, not zero.
    pub(crate) fn moved_as_huge(&self) -> Option<u64> {
        let flags = PageFlags::open()?;
        let after = nodes_of(&self.slots);
        let mut moved = 0;
        for ((&slot, &before), &after) in self.slots.iter().zip(&self.nodes).zip(&after) {
            if moved_node(before, after) && flags.is_huge(slot)? {
                moved += 1;
            }
        }
        Some(moved)
    }
}

/// A page present on a node before and on another one after.
fn moved_node(before: i32, after: i32) -> bool {
    before >= 0 && after >= 0 && before != after
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_aligned_huge_pages_inside_the_range_are_slots() {
        let h = HUGE_PAGE_SIZE;
        assert_eq!(huge_slots(h, 2 * h), vec![h, 2 * h]);
        assert_eq!(huge_slots(h + 4096, 2 * h), vec![2 * h]);
        assert!(huge_slots(h, h - 1).is_empty());
    }

    #[test]
    fn a_slot_moved_when_it_was_on_one_node_and_is_on_another() {
        assert!(moved_node(0, 1));
        assert!(!moved_node(1, 1));
        assert!(!moved_node(-libc::ENOENT, 1));
        assert!(!moved_node(0, -libc::EFAULT));
    }

    #[test]
    fn nothing_moved_without_a_migration() {
        let buffer = crate::memory::Buffer::new(4 * HUGE_PAGE_SIZE).unwrap();
        buffer.advise_huge_pages().unwrap();
        // SAFETY: writes inside the buffer's own mapping.
        unsafe { std::ptr::write_bytes(buffer.as_ptr(), 1, buffer.len()) };
        let snapshot = HugeSnapshot::take([(buffer.as_ptr() as usize, buffer.len())]);
        assert!(matches!(snapshot.moved_as_huge(), Some(0) | None));
    }
}
