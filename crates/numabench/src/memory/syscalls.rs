//! Thin wrappers over the NUMA system calls libc does not wrap (mbind,
//! move_pages, get_mempolicy). Constants from linux/mempolicy.h.

use std::io;

/// `MPOL_F_MEMS_ALLOWED` flag of get_mempolicy.
const MPOL_F_MEMS_ALLOWED: libc::c_ulong = 4;
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
/// each page to its target node.
///
/// # Safety
/// Every pointer in `pages` must lie in a mapping of this process.
pub unsafe fn move_pages(
    pages: &[*mut libc::c_void],
    targets: &[i32],
    status: &mut [i32],
    flags: i32,
) -> io::Result<()> {
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
        Ok(())
    }
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
    Ok((0..MAX_NODES as u32)
        .filter(|&node| mask[node as usize / 64] & (1 << (node % 64)) != 0)
        .collect())
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
    fn this_process_may_use_node_0() {
        assert!(allowed_memory_nodes().unwrap().contains(&0));
    }
}
