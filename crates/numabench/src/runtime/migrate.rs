//! `serial+migrate`'s migration step: each worker moves its block's pages
//! to its own node with move_pages, counting the pages that changed node.

use crate::memory::syscalls::{current_node, move_pages, MPOL_MF_MOVE};
use crate::memory::PAGE_SIZE;

/// Pages that moved: on a node before (`before[i] >= 0`) and on another
/// one after. Pages not present, or that the kernel could not move (a
/// negative status after), are not counted.
fn pages_moved(before: &[i32], after: &[i32]) -> u64 {
    before
        .iter()
        .zip(after)
        .filter(|&(&before, &after)| before >= 0 && after >= 0 && before != after)
        .count() as u64
}

/// Where each page of `pages` is now (move_pages with no target nodes):
/// its node, or a negative errno (-1 for all when the query failed).
fn query_nodes(pages: &[*mut libc::c_void], status: &mut [i32]) {
    status.fill(-1);
    // SAFETY: every address lies in a mapping of this process (the caller's); status holds one
    // entry per page.
    let _ = unsafe { move_pages(pages, &[], status, 0) };
}

/// Moves to the calling thread's node the pages that begin in
/// `[start, start + bytes)` (so a page two workers' ranges share is moved
/// once, by the worker whose range holds its first byte), and returns how
/// many of them moved: their node before (a move_pages query) differs from
/// their node after. Pages already on the node, not present, or that could
/// not be moved (busy, out of memory on the node) are not counted.
pub fn migrate_to_current_node(start: usize, bytes: usize) -> u64 {
    const BATCH: usize = 4096;
    let node = current_node();
    let pages: Vec<*mut libc::c_void> = (start.next_multiple_of(PAGE_SIZE)..start + bytes)
        .step_by(PAGE_SIZE)
        .map(|address| address as *mut libc::c_void)
        .collect();
    let mut before = vec![0i32; BATCH];
    let mut status = vec![0i32; BATCH];
    let targets = vec![node; BATCH];
    let mut moved = 0;
    for chunk in pages.chunks(BATCH) {
        let before = &mut before[..chunk.len()];
        query_nodes(chunk, before);
        let status = &mut status[..chunk.len()];
        status.fill(-1);
        // SAFETY: every address lies in a mapping of this process (the team's arrays); targets
        // and status hold one entry per page of the chunk.
        let moved_all = unsafe { move_pages(chunk, &targets[..chunk.len()], status, MPOL_MF_MOVE) };
        if !matches!(moved_all, Ok(0)) {
            // The kernel stopped early (its statuses for this chunk are incomplete): ask where
            // the pages are now.
            query_nodes(chunk, status);
        }
        moved += pages_moved(before, status);
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pages_that_changed_node_moved() {
        // Already there, moved 0 -> 1, not present, could not move (-EBUSY), moved 1 -> 0.
        let before = [1, 0, -libc::ENOENT, 0, 1];
        let after = [1, 1, -libc::ENOENT, -libc::EBUSY, 0];
        assert_eq!(pages_moved(&before, &after), 2);
    }
}
