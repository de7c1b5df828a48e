//! Page migration for application kernels: `serial+migrate` (each worker
//! moves its block's pages to its own node with move_pages) and an
//! emulation of migrate-on-next-touch, which Linux does not offer:
//! protected ranges fault on first access, and a SIGSEGV handler moves the
//! faulting page to the node of the CPU that touched it, then unprotects
//! it. The handler only uses atomics and raw system calls
//! (async-signal-safe). Unprotected neighbouring pages merge back into one
//! mapping, so sequential sweeps do not exhaust the mapping count.

use crate::memory::PAGE_SIZE;
use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Once;

const MAX_RANGES: usize = 64;
static RANGE_STARTS: [AtomicUsize; MAX_RANGES] = [const { AtomicUsize::new(0) }; MAX_RANGES];
static RANGE_ENDS: [AtomicUsize; MAX_RANGES] = [const { AtomicUsize::new(0) }; MAX_RANGES];
/// Pages that changed node on touch, per range slot.
static RANGE_MIGRATED: [AtomicU64; MAX_RANGES] = [const { AtomicU64::new(0) }; MAX_RANGES];
static INSTALL: Once = Once::new();
const MPOL_MF_MOVE: libc::c_int = 2;

/// The NUMA node of the CPU this thread runs on.
fn current_node() -> libc::c_int {
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

extern "C" fn on_fault(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let address = unsafe { (*info).si_addr() } as usize;
    let owner = (0..MAX_RANGES).find(|&slot| {
        let start = RANGE_STARTS[slot].load(Ordering::Acquire);
        start != 0 && address >= start && address < RANGE_ENDS[slot].load(Ordering::Acquire)
    });
    let Some(owner) = owner else {
        // Not a next-touch fault: restore the default action and return, so the access faults
        // again and the process dies as it would have.
        // SAFETY: signal() with SIG_DFL is async-signal-safe.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
        return;
    };
    let page = address / PAGE_SIZE * PAGE_SIZE;
    let node = current_node();
    let mut before = -1i32;
    let mut status = -1i32;
    let pages = [page as *mut libc::c_void];
    // SAFETY: raw system calls on a page of our own protected range; async-signal-safe.
    // The page is made accessible first: move_pages cannot migrate a page of a PROT_NONE mapping.
    unsafe {
        if libc::mprotect(
            page as *mut libc::c_void,
            PAGE_SIZE,
            libc::PROT_READ | libc::PROT_WRITE,
        ) != 0
        {
            // Out of mappings: give up emulating for this range rather than fault forever.
            for slot in 0..MAX_RANGES {
                let start = RANGE_STARTS[slot].load(Ordering::Acquire);
                let end = RANGE_ENDS[slot].load(Ordering::Acquire);
                if start != 0 && address >= start && address < end {
                    libc::mprotect(
                        start as *mut libc::c_void,
                        end - start,
                        libc::PROT_READ | libc::PROT_WRITE,
                    );
                }
            }
        }
        // Where the page is before the move: only a page that changes node counts as migrated.
        libc::syscall(
            libc::SYS_move_pages,
            0,
            1usize,
            pages.as_ptr(),
            std::ptr::null::<libc::c_int>(),
            &mut before as *mut i32,
            0,
        );
        libc::syscall(
            libc::SYS_move_pages,
            0,
            1usize,
            pages.as_ptr(),
            &node as *const libc::c_int,
            &mut status as *mut i32,
            MPOL_MF_MOVE,
        );
    }
    if before >= 0 && status == node && before != node {
        RANGE_MIGRATED[owner].fetch_add(1, Ordering::Relaxed);
    }
}

fn install_handler() {
    INSTALL.call_once(|| {
        // SAFETY: sigaction is plain data; zeroed then filled with a valid SA_SIGINFO handler.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fault as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGSEGV, &action, std::ptr::null_mut());
        }
    });
}

/// Protects `[start, start + bytes)` so the next touch of each page
/// migrates it.
pub fn protect(start: usize, bytes: usize) -> io::Result<()> {
    install_handler();
    let slot = (0..MAX_RANGES)
        .find(|&slot| RANGE_STARTS[slot].load(Ordering::Acquire) == 0)
        .ok_or_else(|| io::Error::other("too many next-touch ranges"))?;
    RANGE_MIGRATED[slot].store(0, Ordering::Relaxed);
    RANGE_ENDS[slot].store(start + bytes, Ordering::Release);
    RANGE_STARTS[slot].store(start, Ordering::Release);
    // SAFETY: the range is a mapping of ours (a team array); PROT_NONE only changes access rights.
    if unsafe { libc::mprotect(start as *mut libc::c_void, bytes, libc::PROT_NONE) } != 0 {
        RANGE_STARTS[slot].store(0, Ordering::Release);
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Unprotects a range (pages never touched stay where they were), forgets
/// it, and returns how many of its pages changed node on touch.
pub fn unprotect(start: usize, bytes: usize) -> u64 {
    // SAFETY: as in protect; restores read/write access.
    unsafe {
        libc::mprotect(
            start as *mut libc::c_void,
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
        )
    };
    let mut migrated = 0;
    for (slot, counter) in RANGE_STARTS.iter().zip(&RANGE_MIGRATED) {
        if slot.load(Ordering::Acquire) == start {
            slot.store(0, Ordering::Release);
            migrated += counter.swap(0, Ordering::Relaxed);
        }
    }
    migrated
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
