//! An emulation of migrate-on-next-touch, which Linux does not offer:
//! protected ranges fault on first access, and a SIGSEGV handler moves the
//! faulting page to the node of the CPU that touched it, then unprotects
//! it. The handler only uses atomics and raw system calls
//! (async-signal-safe), keeps `errno`, runs on the thread's alternate
//! signal stack when it has one, and hands every fault outside the ranges
//! to the handler installed before it (Rust's stack-overflow report) or to
//! the default action. Unprotected neighbouring pages merge back into one
//! mapping, so sequential sweeps rarely exhaust the mapping count; when
//! they do (`vm.max_map_count`), the range is unprotected whole and its
//! untouched pages stay where they were, and [`unprotect`] says how many.

use crate::memory::syscalls::{current_node, move_page};
use crate::memory::PAGE_SIZE;
use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};

const MAX_RANGES: usize = 64;
static RANGE_STARTS: [AtomicUsize; MAX_RANGES] = [const { AtomicUsize::new(0) }; MAX_RANGES];
static RANGE_ENDS: [AtomicUsize; MAX_RANGES] = [const { AtomicUsize::new(0) }; MAX_RANGES];
/// Pages that changed node on touch, per range slot.
static RANGE_MIGRATED: [AtomicU64; MAX_RANGES] = [const { AtomicU64::new(0) }; MAX_RANGES];
/// Pages that faulted, per range slot.
static RANGE_FAULTED: [AtomicU64; MAX_RANGES] = [const { AtomicU64::new(0) }; MAX_RANGES];
/// Pages still protected when the emulation gave up on the range (0: it
/// did not), per range slot.
static RANGE_UNPROTECTED: [AtomicU64; MAX_RANGES] = [const { AtomicU64::new(0) }; MAX_RANGES];
/// Bytes opened and moved per fault, per range slot: a base page, or a
/// whole huge page (protecting part of a THP would split it; a hugetlbfs
/// page cannot be protected in parts at all).
static RANGE_GRANULE: [AtomicUsize; MAX_RANGES] =
    [const { AtomicUsize::new(PAGE_SIZE) }; MAX_RANGES];
static INSTALL: Once = Once::new();
/// The SIGSEGV action before ours, for faults that are not next-touch ones.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

/// What the emulation did on one range.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NextTouchOutcome {
    /// Pages that changed node on touch.
    pub migrated_pages: u64,
    /// Pages left where they were because the emulation gave up on their
    /// range (a page could not be unprotected: `vm.max_map_count`), as a
    /// serial placement leaves them.
    pub unprotected_pages: u64,
}

impl std::ops::Add for NextTouchOutcome {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        Self {
            migrated_pages: self.migrated_pages + other.migrated_pages,
            unprotected_pages: self.unprotected_pages + other.unprotected_pages,
        }
    }
}

/// Keeps the interrupted code's `errno` across the handler's system calls.
struct SavedErrno(libc::c_int);

impl SavedErrno {
    fn save() -> Self {
        // SAFETY: __errno_location returns this thread's errno slot, always valid.
        Self(unsafe { *libc::__errno_location() })
    }
}

impl Drop for SavedErrno {
    fn drop(&mut self) {
        // SAFETY: as in `save`.
        unsafe { *libc::__errno_location() = self.0 };
    }
}

/// The slot of the range holding `address`.
fn owner_of(address: usize) -> Option<usize> {
    (0..MAX_RANGES).find(|&slot| {
        let start = RANGE_STARTS[slot].load(Ordering::Acquire);
        start != 0 && address >= start && address < RANGE_ENDS[slot].load(Ordering::Acquire)
    })
}

/// Makes the faulting granule (`bytes` from `page`) of range `owner`
/// accessible. When that fails (out of mappings), gives up on the whole
/// range: it is unprotected, and its pages that had not faulted yet are
/// counted as left in place.
fn open_page(owner: usize, page: usize, bytes: usize) {
    let base_pages = bytes.div_ceil(PAGE_SIZE) as u64;
    let faulted = RANGE_FAULTED[owner].fetch_add(base_pages, Ordering::Relaxed) + base_pages;
    // SAFETY: the granule lies in a protected range of ours; mprotect only changes access rights.
    let opened = unsafe {
        libc::mprotect(
            page as *mut libc::c_void,
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
        )
    } == 0;
    if opened {
        return;
    }
    let start = RANGE_STARTS[owner].load(Ordering::Acquire);
    let end = RANGE_ENDS[owner].load(Ordering::Acquire);
    let pages = (end - start).div_ceil(PAGE_SIZE) as u64;
    // Only the first give-up counts (other threads may fault in the range meanwhile).
    let _ = RANGE_UNPROTECTED[owner].compare_exchange(
        0,
        pages.saturating_sub(faulted),
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
    // SAFETY: as above, on the whole range (which merges its mappings back into fewer).
    unsafe {
        libc::mprotect(
            start as *mut libc::c_void,
            end - start,
            libc::PROT_READ | libc::PROT_WRITE,
        )
    };
}

/// Moves `page` of range `owner` to this thread's node, counting its
/// granule's `base_pages` when it changed node (the kernel moves a huge
/// page whole when asked to move any of its base pages).
fn migrate_page(owner: usize, page: usize, base_pages: u64) {
    let node = current_node();
    let page = page as *mut libc::c_void;
    // SAFETY: one page of our own range, now accessible (move_pages cannot migrate a page of a
    // PROT_NONE mapping); move_page neither allocates nor panics, so it is async-signal-safe.
    // Where the page is before the move: only a page that changes node counts as migrated.
    let before = unsafe { move_page(page, None) };
    // SAFETY: as above.
    let after = unsafe { move_page(page, Some(node)) };
    if before >= 0 && after == node && before != node {
        RANGE_MIGRATED[owner].fetch_add(base_pages, Ordering::Relaxed);
    }
}

/// Hands a fault that is not a next-touch one to the action installed
/// before ours; with none (default or ignore), restores the default action
/// and returns, so the access faults again and the process dies as it
/// would have.
fn chain(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let previous = PREVIOUS.get().filter(|action| {
        action.sa_sigaction != libc::SIG_DFL && action.sa_sigaction != libc::SIG_IGN
    });
    match previous {
        Some(action) if action.sa_flags & libc::SA_SIGINFO != 0 => {
            // SAFETY: with SA_SIGINFO, sa_sigaction is a three-argument handler.
            let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(action.sa_sigaction) };
            handler(signal, info, context);
        }
        Some(action) => {
            // SAFETY: without SA_SIGINFO, sa_sigaction is a one-argument handler.
            let handler: extern "C" fn(libc::c_int) =
                unsafe { std::mem::transmute(action.sa_sigaction) };
            handler(signal);
        }
        None => {
            // SAFETY: signal() with SIG_DFL is async-signal-safe.
            unsafe { libc::signal(signal, libc::SIG_DFL) };
        }
    }
}

extern "C" fn on_fault(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    let _errno = SavedErrno::save();
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let address = unsafe { (*info).si_addr() } as usize;
    let Some(owner) = owner_of(address) else {
        chain(signal, info, context);
        return;
    };
    let granule = RANGE_GRANULE[owner].load(Ordering::Acquire);
    let start = RANGE_STARTS[owner].load(Ordering::Acquire);
    let end = RANGE_ENDS[owner].load(Ordering::Acquire);
    let page = (address / granule * granule).max(start);
    let bytes = (page + granule).min(end) - page;
    open_page(owner, page, bytes);
    migrate_page(owner, page, bytes.div_ceil(PAGE_SIZE) as u64);
}

/// Installs the handler once, remembering the action it replaces.
fn install_handler() {
    INSTALL.call_once(|| {
        // SAFETY: sigaction is plain data; zeroed then filled with a valid SA_SIGINFO handler.
        // The previous action is read and kept before ours is installed, so a fault in
        // between never finds it missing.
        unsafe {
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGSEGV, std::ptr::null(), &mut previous) == 0 {
                let _ = PREVIOUS.set(previous);
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fault as *const () as usize;
            // SA_ONSTACK: a stack overflow is reported only from the thread's alternate stack.
            action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGSEGV, &action, std::ptr::null_mut());
        }
    });
}

/// Protects `[start, start + bytes)` so the next touch of each page
/// migrates it; a fault opens and moves the whole aligned `granule`
/// around it (a multiple of the base page: the huge page size when the
/// range has huge pages).
pub fn protect(start: usize, bytes: usize, granule: usize) -> io::Result<()> {
    install_handler();
    let slot = (0..MAX_RANGES)
        .find(|&slot| RANGE_STARTS[slot].load(Ordering::Acquire) == 0)
        .ok_or_else(|| io::Error::other("too many next-touch ranges"))?;
    RANGE_MIGRATED[slot].store(0, Ordering::Relaxed);
    RANGE_FAULTED[slot].store(0, Ordering::Relaxed);
    RANGE_UNPROTECTED[slot].store(0, Ordering::Relaxed);
    RANGE_GRANULE[slot].store(granule.max(PAGE_SIZE), Ordering::Release);
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
/// it, and says how many of its pages changed node on touch and how many
/// were left in place because the emulation gave up on it.
pub fn unprotect(start: usize, bytes: usize) -> NextTouchOutcome {
    // SAFETY: as in protect; restores read/write access.
    unsafe {
        libc::mprotect(
            start as *mut libc::c_void,
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
        )
    };
    let mut outcome = NextTouchOutcome::default();
    for slot in 0..MAX_RANGES {
        if RANGE_STARTS[slot].load(Ordering::Acquire) == start {
            RANGE_STARTS[slot].store(0, Ordering::Release);
            outcome = outcome
                + NextTouchOutcome {
                    migrated_pages: RANGE_MIGRATED[slot].swap(0, Ordering::Relaxed),
                    unprotected_pages: RANGE_UNPROTECTED[slot].swap(0, Ordering::Relaxed),
                };
        }
    }
    outcome
}

#[cfg(test)]
mod tests;
