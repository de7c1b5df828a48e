//! Thin wrappers over the NUMA system calls libc does not wrap (mbind,
//! set_mempolicy, get_mempolicy, move_pages, getcpu): the only place in
//! the library that makes them. The MPOL_* constants libc has come from
//! libc; the three it lacks are defined here, with the values of the
//! kernel's `include/uapi/linux/mempolicy.h`.

use std::io;

/// `MPOL_PREFERRED_MANY` (linux/mempolicy.h, Linux 5.15): allocate on the
/// nearest of several preferred nodes, falling back to any other.
pub const MPOL_PREFERRED_MANY: libc::c_int = 5;
/// `MPOL_WEIGHTED_INTERLEAVE` (linux/mempolicy.h, Linux 6.9): interleave
/// in proportion to the per-node weights the kernel holds in sysfs.
pub const MPOL_WEIGHTED_INTERLEAVE: libc::c_int = 6;
/// `MPOL_MF_MOVE` (linux/mempolicy.h): move_pages/mbind move the pages
/// only this process maps.
pub const MPOL_MF_MOVE: libc::c_int = 1 << 1;
/// `MPOL_F_MEMS_ALLOWED` (linux/mempolicy.h): get_mempolicy returns the
/// nodes the calling thread may allocate on.
const MPOL_F_MEMS_ALLOWED: libc::c_ulong = 1 << 2;
/// Largest node index the masks passed here can describe.
pub const MAX_NODES: usize = 1024;
const MASK_WORDS: usize = MAX_NODES / 64;

/// The base page size.
pub const PAGE_SIZE: usize = 4096;

/// A kernel node mask.
pub fn node_mask(nodes: &[u32]) -> [libc::c_ulong; MASK_WORDS] {
    let mut mask = [0; MASK_WORDS];
    for &node in nodes {
        let node = node as usize;
        if node < MAX_NODES {
            mask[node / 64] |= 1 << (node % 64);
        }
    }
    mask
}

/// mbind(2) on `[address, address + length)`.
///
/// # Safety
/// `address` must be page-aligned and the range mapped by this process.
pub unsafe fn mbind(
    address: *mut u8,
    length: usize,
    mode: i32,
    nodes: &[u32],
    flags: u32,
) -> io::Result<()> {
    let mask = node_mask(nodes);
    let mask_pointer = if nodes.is_empty() {
        std::ptr::null()
    } else {
        mask.as_ptr()
    };
    // SAFETY: - the caller guarantees the range is a mapping of ours;
    //         - mask outlives the call and holds MAX_NODES bits, the maxnode passed (+1 as the kernel expects);
    //         - mbind reads the mask and changes only page policy, never our memory's contents.
    let result = unsafe {
        libc::syscall(
            libc::SYS_mbind,
            address,
            length,
            mode,
            mask_pointer,
            MAX_NODES + 1,
            flags,
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// move_pages(2) for this process: with `targets` empty it only queries
/// (`status` receives each page's node or -errno); otherwise it moves
/// each page to its target node and returns how many pages the kernel did
/// not move (0 when every status is final). Checks its slice lengths, so
/// it may panic: not for a signal handler (see [`move_page`]).
///
/// # Safety
/// Every pointer in `pages` must lie in a mapping of this process.
pub unsafe fn move_pages(
    pages: &[*mut libc::c_void],
    targets: &[i32],
    status: &mut [i32],
    flags: i32,
) -> io::Result<usize> {
    assert_eq!(pages.len(), status.len(), "one status per page");
    assert!(
        targets.is_empty() || targets.len() == pages.len(),
        "one target per page"
    );
    let nodes = if targets.is_empty() {
        std::ptr::null()
    } else {
        targets.as_ptr()
    };
    // SAFETY: - pid 0 is this process; the page array and status array have `pages.len()` entries (asserted);
    //         - nodes is NULL (query) or has one entry per page (asserted);
    //         - the kernel writes only into `status`, which we borrow mutably.
    let result = unsafe {
        libc::syscall(
            libc::SYS_move_pages,
            0,
            pages.len(),
            pages.as_ptr(),
            nodes,
            status.as_mut_ptr(),
            flags,
        )
    };
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result as usize)
    }
}

/// move_pages(2) on one page of this process: a query with `target`
/// `None`, else a move there with [`MPOL_MF_MOVE`]. Returns the page's
/// status: its node, or a negative errno (-1 when the call itself failed).
/// Async-signal-safe (one system call, no allocation, no panic), for the
/// next-touch fault handler; errno is left as the call set it.
///
/// # Safety
/// `page` must lie in an accessible mapping of this process.
pub unsafe fn move_page(page: *mut libc::c_void, target: Option<libc::c_int>) -> libc::c_int {
    let pages = [page];
    let mut status: libc::c_int = -1;
    let (nodes, flags) = match &target {
        Some(node) => (node as *const libc::c_int, MPOL_MF_MOVE),
        None => (std::ptr::null(), 0),
    };
    // SAFETY: - pid 0 is this process; one page (the caller's), one status, and a NULL or
    //           one-entry node list, all living across the call;
    //         - the kernel writes only into `status`.
    unsafe {
        libc::syscall(
            libc::SYS_move_pages,
            0,
            1usize,
            pages.as_ptr(),
            nodes,
            &mut status as *mut libc::c_int,
            flags,
        )
    };
    status
}

/// set_mempolicy(2): the calling thread's memory policy (`mode` an MPOL_*
/// value) over `nodes`. Async-signal-safe (one system call; the node mask
/// lives on the stack, nothing allocates), so it may run between fork and
/// exec.
pub fn set_mempolicy(mode: libc::c_int, nodes: &[u32]) -> io::Result<()> {
    let mask = node_mask(nodes);
    // SAFETY: the mask holds MAX_NODES bits and outlives the call; maxnode says so (+1 as the
    // kernel expects); set_mempolicy only reads it.
    let result =
        unsafe { libc::syscall(libc::SYS_set_mempolicy, mode, mask.as_ptr(), MAX_NODES + 1) };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The NUMA node of the CPU the calling thread runs on (getcpu(2); 0 if it
/// fails). Async-signal-safe.
pub fn current_node() -> libc::c_int {
    let (mut cpu, mut node) = (0u32, 0u32);
    // SAFETY: getcpu writes two unsigned ints, both ours; the cache argument may be NULL.
    unsafe {
        libc::syscall(
            libc::SYS_getcpu,
            &mut cpu as *mut u32,
            &mut node as *mut u32,
            std::ptr::null_mut::<libc::c_void>(),
        )
    };
    node as libc::c_int
}

/// The nodes this process may allocate memory on (its cpuset's mems).
pub fn allowed_memory_nodes() -> io::Result<Vec<u32>> {
    let mut mask = [0 as libc::c_ulong; MASK_WORDS];
    // SAFETY: - get_mempolicy with MPOL_F_MEMS_ALLOWED writes at most MAX_NODES bits into `mask`,
    //           which has exactly that many; the policy pointer may be NULL; address is unused (NULL).
    let result = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            std::ptr::null_mut::<i32>(),
            mask.as_mut_ptr(),
            MAX_NODES,
            std::ptr::null_mut::<libc::c_void>(),
            MPOL_F_MEMS_ALLOWED,
        )
    };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(nodes_in(&mask))
}

/// The calling thread's memory policy (get_mempolicy(2)): its MPOL_*
/// mode and nodes, as the kernel holds them (for tests that check what a
/// policy became, and to restore it after a run's start).
pub fn thread_mempolicy() -> io::Result<(libc::c_int, Vec<u32>)> {
    let mut mode: libc::c_int = 0;
    let mut mask = [0 as libc::c_ulong; MASK_WORDS];
    // SAFETY: - get_mempolicy writes one int into `mode` and at most MAX_NODES bits into `mask`,
    //           which has exactly that many; address is unused (NULL) without flags.
    let result = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            &mut mode as *mut libc::c_int,
            mask.as_mut_ptr(),
            MAX_NODES,
            std::ptr::null_mut::<libc::c_void>(),
            0 as libc::c_ulong,
        )
    };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((mode, nodes_in(&mask)))
}

/// The nodes whose bits are set in a kernel node mask.
fn nodes_in(mask: &[libc::c_ulong; MASK_WORDS]) -> Vec<u32> {
    (0..MAX_NODES as u32)
        .filter(|&node| mask[node as usize / 64] & (1 << (node % 64)) != 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_masks_set_the_right_bits() {
        let mask = node_mask(&[0, 3, 64]);
        assert_eq!(mask[0], 0b1001);
        assert_eq!(mask[1], 1);
    }

    #[test]
    fn one_page_is_queried_and_moved_without_the_slice_wrapper() {
        let allowed = allowed_memory_nodes().unwrap();
        let mut bytes = vec![1u8; 3 * PAGE_SIZE];
        // A whole page inside `bytes` (written above, so present).
        let page = (bytes.as_mut_ptr() as usize + PAGE_SIZE) / PAGE_SIZE * PAGE_SIZE;
        let page = page as *mut libc::c_void;
        // SAFETY: `page` lies in `bytes`, a live mapping of ours.
        let here = unsafe { move_page(page, None) };
        assert!(allowed.contains(&(here as u32)), "status {here}");
        // SAFETY: as above; moving a page to the node it is on changes nothing.
        assert_eq!(unsafe { move_page(page, Some(here)) }, here);
        assert!(allowed.contains(&(current_node() as u32)));
    }

    #[test]
    fn set_mempolicy_reaches_the_kernel() {
        let (bound, refused) = std::thread::spawn(|| {
            let bound = set_mempolicy(libc::MPOL_BIND, &[0]).is_ok();
            let refused = set_mempolicy(libc::MPOL_BIND, &[MAX_NODES as u32 - 1]).is_err();
            (bound, refused)
        })
        .join()
        .unwrap();
        assert!(bound, "binding to node 0 is allowed");
        assert!(refused, "a node that does not exist is refused");
    }

    #[test]
    fn this_process_may_use_node_0() {
        assert!(allowed_memory_nodes().unwrap().contains(&0));
    }
}
