//! `serial+migrate`'s migration step: each worker moves its block's pages
//! to its own node with move_pages, counting the pages that changed node.

use crate::memory::PAGE_SIZE;

/// move_pages' flag to move pages of this process.
pub(super) const MPOL_MF_MOVE: libc::c_int = 2;

/// The NUMA node of the CPU this thread runs on.
pub(super) fn current_node() -> libc::c_int {
    let (mut cpu, mut node) = (0u32, 0u32);
    // SAFETY: getcpu writes two unsigned ints; the cache argument may be NULL.
    unsafe {
        libc::syscall(
            libc::SYS_getcpu,
            &mut cpu as *mut u32,
            &mut node as *mut u32,
            std::ptr::null_mut::<libc::c_void>(),
        );
    }
    node as libc::c_int
}

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
/// its node, or a negative errno.
fn query_nodes(pages: &[*mut libc::c_void], status: &mut [i32]) {
    status.fill(-1);
    // SAFETY: every address lies in a mapping of this process (the caller's); status holds one
    // entry per page; a NULL node list makes move_pages a query.
    unsafe {
        libc::syscall(
            libc::SYS_move_pages,
            0,
            pages.len(),
            pages.as_ptr(),
            std::ptr::null::<libc::c_int>(),
            status.as_mut_ptr(),
            0,
        );
    }
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
        let not_moved = unsafe {
            libc::syscall(
                libc::SYS_move_pages,
                0,
                chunk.len(),
                chunk.as_ptr(),
                targets.as_ptr(),
                status.as_mut_ptr(),
                MPOL_MF_MOVE,
            )
        };
        if not_moved != 0 {
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
