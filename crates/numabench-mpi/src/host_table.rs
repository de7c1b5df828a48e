//! The per-host table in POSIX shared memory that derives TLP_N exactly.
//!
//! The table holds how many of the host's ranks are outside blocking MPI
//! now, when that count last changed, and for every count k the total
//! time during which exactly k ranks were outside. Every change (a rank
//! entering or leaving blocking MPI) takes the table's spin lock, reads
//! the clock, adds the time since the last change to the current count's
//! level, and moves the count: event accounting, no sampling. TLP_N is
//! then the share of the host's monitored time spent at levels
//! `>= N x cores` ([`crate::report::tlp`]).

use crate::report::{HostLevels, MAX_LEVEL};
use crate::state::now_ns;
use std::ffi::CString;
use std::io;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};

/// The shared layout (every field atomic: several processes map it).
#[repr(C)]
#[derive(Debug)]
pub struct Shared {
    lock: AtomicU32,
    outside: AtomicU64,
    start_ns: AtomicU64,
    last_ns: AtomicU64,
    level_ns: [AtomicU64; MAX_LEVEL + 1],
}

/// This process's mapping of its host's table, null when there is none.
static TABLE: AtomicPtr<Shared> = AtomicPtr::new(ptr::null_mut());

fn with_lock<T>(shared: &Shared, body: impl FnOnce() -> T) -> T {
    let mut spins = 0u32;
    while shared
        .lock
        .compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        spins += 1;
        if spins.is_multiple_of(64) {
            // The holder may be descheduled (more ranks than cores).
            // SAFETY: sched_yield has no preconditions.
            unsafe { libc::sched_yield() };
        } else {
            std::hint::spin_loop();
        }
    }
    let result = body();
    shared.lock.store(0, Ordering::Release);
    result
}

/// Adds the time since the last change to the current level (under the lock).
fn account(shared: &Shared) -> u64 {
    let now = now_ns();
    let last = shared.last_ns.swap(now, Ordering::Relaxed);
    let level = (shared.outside.load(Ordering::Relaxed) as usize).min(MAX_LEVEL);
    shared.level_ns[level].fetch_add(now.saturating_sub(last), Ordering::Relaxed);
    now
}

fn table() -> Option<&'static Shared> {
    let pointer = TABLE.load(Ordering::Acquire);
    // SAFETY: a non-null TABLE is a live mapping of a Shared until
    // `detach`, which runs after monitoring stopped.
    (!pointer.is_null()).then(|| unsafe { &*pointer })
}

/// One rank left (`delta` = 1) or entered (-1) blocking MPI.
pub fn change(delta: i64) {
    if let Some(shared) = table() {
        with_lock(shared, || {
            account(shared);
            let outside = shared.outside.load(Ordering::Relaxed) as i64;
            shared
                .outside
                .store((outside + delta).max(0) as u64, Ordering::Relaxed);
        });
    }
}

/// Creates (`create`) or opens the table called `name` and maps it.
pub fn attach(name: &str, create: bool) -> io::Result<()> {
    let c_name = CString::new(name).map_err(io::Error::other)?;
    let size = std::mem::size_of::<Shared>();
    let flags = if create {
        libc::O_RDWR | libc::O_CREAT | libc::O_EXCL
    } else {
        libc::O_RDWR
    };
    // SAFETY: c_name is a valid C string.
    let fd = unsafe { libc::shm_open(c_name.as_ptr(), flags, 0o600) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is the descriptor just opened.
    if create && unsafe { libc::ftruncate(fd, size as libc::off_t) } != 0 {
        let error = io::Error::last_os_error();
        // SAFETY: fd is open; c_name names the object just created.
        unsafe {
            libc::close(fd);
            libc::shm_unlink(c_name.as_ptr());
        }
        return Err(error);
    }
    // SAFETY: maps `size` bytes of the shared object, which has that size
    // (a new one is zero-filled: every counter 0, the lock free).
    let address = unsafe {
        libc::mmap(
            ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    // SAFETY: the mapping keeps the object; the descriptor is not needed.
    unsafe { libc::close(fd) };
    if address == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    TABLE.store(address.cast(), Ordering::Release);
    Ok(())
}

/// Removes the table's name (the mappings stay valid), so that nothing
/// is left in /dev/shm even if the job dies later.
pub fn unlink(name: &str) {
    if let Ok(c_name) = CString::new(name) {
        // SAFETY: c_name is a valid C string.
        unsafe { libc::shm_unlink(c_name.as_ptr()) };
    }
}

/// Starts the accounting with every one of the host's `ranks` outside
/// MPI (the first local rank, once all have attached).
pub fn begin(ranks: usize) {
    if let Some(shared) = table() {
        with_lock(shared, || {
            let now = now_ns();
            shared.start_ns.store(now, Ordering::Relaxed);
            shared.last_ns.store(now, Ordering::Relaxed);
            shared.outside.store(ranks as u64, Ordering::Relaxed);
        });
    }
}

/// Closes the accounting at now and reads the levels (the first local
/// rank, once every local rank has stopped monitoring).
pub fn close() -> Option<HostLevels> {
    let shared = table()?;
    Some(with_lock(shared, || {
        let now = account(shared);
        HostLevels {
            level_ns: shared
                .level_ns
                .iter()
                .map(|level| level.load(Ordering::Relaxed))
                .collect(),
            total_ns: now.saturating_sub(shared.start_ns.load(Ordering::Relaxed)),
        }
    }))
}

/// Unmaps this process's table.
pub fn detach() {
    let pointer = TABLE.swap(ptr::null_mut(), Ordering::AcqRel);
    if !pointer.is_null() {
        // SAFETY: `pointer` is the mapping made in `attach`, of this size,
        // and no longer reachable through TABLE.
        unsafe { libc::munmap(pointer.cast(), std::mem::size_of::<Shared>()) };
    }
}
