//! The per-host table in POSIX shared memory that derives TLP_N exactly.
//!
//! The table holds, in one atomic word, how many of the host's ranks are
//! outside blocking MPI now and when that count last changed, and for
//! every count k the total time during which exactly k ranks were outside.
//! Every change (a rank entering or leaving blocking MPI, with the clock
//! reading its call took) swaps in the new (count, time) word with a
//! compare-and-swap, then
//! adds the time since the previous change to the previous count's level:
//! event accounting, no sampling, and no lock (a rank descheduled in the
//! middle of an update, common with more ranks than cores, stops nobody).
//! TLP_N is then the share of the host's monitored time spent at levels
//! `>= N x cores` ([`crate::report::tlp`]).

use crate::report::{HostLevels, MAX_LEVEL};
use crate::state::now_ns;
use std::ffi::CString;
use std::io;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

/// Bits of the state word holding the time of the last change.
const TIME_BITS: u32 = 48;
const TIME_MASK: u64 = (1 << TIME_BITS) - 1;
/// The time is kept in units of this many nanoseconds since the start:
/// 2^48 units cover 52 days. Differences telescope, so the rounding does
/// not accumulate.
const TIME_UNIT_NS: u64 = 16;

/// The shared layout (every field atomic: several processes map it).
#[repr(C)]
#[derive(Debug)]
pub struct Shared {
    start_ns: AtomicU64,
    /// Ranks outside (high 16 bits) and the last change (low 48 bits, in
    /// TIME_UNIT_NS since start_ns).
    state: AtomicU64,
    level_ns: [AtomicU64; MAX_LEVEL + 1],
}

/// This process's mapping of its host's table, null when there is none.
static TABLE: AtomicPtr<Shared> = AtomicPtr::new(ptr::null_mut());

fn table() -> Option<&'static Shared> {
    let pointer = TABLE.load(Ordering::Acquire);
    // SAFETY: a non-null TABLE is a live mapping of a Shared until
    // `detach`, which runs after monitoring stopped.
    (!pointer.is_null()).then(|| unsafe { &*pointer })
}

/// Moves the count by `delta` at `now_ns` (CLOCK_MONOTONIC), accounting
/// the time since the last change to the count it had; returns the time
/// of this change in units. A change another rank recorded with a later
/// clock reading between ours and the swap moves ours to that time, so
/// the recorded times never go back and the levels add up to the whole.
fn update(shared: &Shared, delta: i64, now_ns: u64) -> u64 {
    let start = shared.start_ns.load(Ordering::Acquire);
    let now = (now_ns.saturating_sub(start) / TIME_UNIT_NS) & TIME_MASK;
    let mut current = shared.state.load(Ordering::Acquire);
    loop {
        let outside = current >> TIME_BITS;
        let last = current & TIME_MASK;
        let time = now.max(last);
        let moved = (outside as i64 + delta).clamp(0, 0xffff) as u64;
        let next = (moved << TIME_BITS) | time;
        match shared
            .state
            .compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => {
                let level = (outside as usize).min(MAX_LEVEL);
                let elapsed = (time - last) * TIME_UNIT_NS;
                shared.level_ns[level].fetch_add(elapsed, Ordering::Relaxed);
                return time;
            }
            Err(actual) => current = actual,
        }
    }
}

/// One rank left (`delta` = 1) or entered (-1) blocking MPI at `now_ns`.
pub fn change(delta: i64, now_ns: u64) {
    if let Some(shared) = table() {
        update(shared, delta, now_ns);
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
    // (a new one is zero-filled: every counter 0).
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
        shared.start_ns.store(now_ns(), Ordering::Release);
        shared
            .state
            .store((ranks.min(0xffff) as u64) << TIME_BITS, Ordering::Release);
    }
}

/// Closes the accounting at now and reads the levels (the first local
/// rank, once every local rank has stopped monitoring).
pub fn close() -> Option<HostLevels> {
    let shared = table()?;
    let end = update(shared, 0, now_ns());
    Some(HostLevels {
        level_ns: shared
            .level_ns
            .iter()
            .map(|level| level.load(Ordering::Relaxed))
            .collect(),
        total_ns: end * TIME_UNIT_NS,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is process-wide: one test drives it.
    #[test]
    fn levels_account_every_interval_once_and_add_up_to_the_whole() {
        let _serial = crate::TEST_LOCK
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let name = format!("/numabench-mpi-test-{}", std::process::id());
        attach(&name, true).unwrap();
        unlink(&name);
        assert!(
            std::fs::metadata(format!("/dev/shm{name}")).is_err(),
            "unlinked while mapped"
        );
        begin(2);
        let start = table().unwrap().start_ns.load(Ordering::Relaxed);
        let at = |ns: u64| start + ns;
        change(-1, at(1600)); // 2 outside for 1600 ns
        change(1, at(3200)); // 1 outside for 1600 ns
        change(-1, at(4800)); // 2 outside for 1600 ns
        change(-1, at(4000)); // read before the last change: moved to 4800
        change(1, at(8000)); // 0 outside for 3200 ns
        let levels = close().unwrap();
        detach();
        assert_eq!(levels.level_ns[0], 3200);
        assert_eq!(levels.level_ns[2], 3200);
        // From 8000 ns to the close (the real clock), 1 outside.
        assert!(levels.level_ns[1] >= 1600);
        assert!(levels.total_ns >= 8000);
        assert_eq!(levels.level_ns.iter().sum::<u64>(), levels.total_ns);
        assert_eq!(levels.level_ns.len(), MAX_LEVEL + 1);
        // Detached: changes go nowhere.
        change(-1, now_ns());
        assert!(close().is_none());
    }
}
