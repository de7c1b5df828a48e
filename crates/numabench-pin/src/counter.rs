//! The CPU counter that every process of one run shares: a small file
//! (`NUMABENCH_PIN_COUNTER`, e.g. in /dev/shm) mapped by the shim in each process.
//!
//! Each new thread, and each new process's main thread, takes the next index from it
//! atomically, so the threads of all the processes a command starts (MPI ranks,
//! `make -j` children, a shell's commands) get the CPUs of the order one after the
//! other instead of every child inheriting its parent's CPU.
//!
//! A process takes one index for its main thread however it started: a `fork` takes it
//! in the child (an atfork handler), a new program takes it when the shim loads (its
//! constructor) unless its process id is already registered — an `exec` after `fork`
//! keeps the index the fork took.
//!
//! Layout, native-endian 64-bit words: `[0]` next index, `[1]` processes registered,
//! `[2..]` one per process: its id in the low 32 bits, and in the high 32 bits one more
//! than the CPU its main thread was pinned to (0: none recorded). An MPI rank started by
//! a fork that the shim pinned tells from this whether its affinity is still the shim's
//! own pin or a cpuset its launcher gave it. The file may start empty: each process grows it to
//! [`BYTES`] (growing is idempotent and zero-fills).

use std::ffi::CString;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

/// Size of the mapped file.
pub const BYTES: usize = 64 * 1024;
/// Words before the process ids.
const HEADER_WORDS: usize = 2;
/// Process ids the file can hold; later processes are not recognised after `exec`
/// (they take a second index then).
pub const PROCESS_SLOTS: usize = BYTES / 8 - HEADER_WORDS;

/// A mapped counter file.
#[derive(Debug)]
pub struct Counter {
    words: *const AtomicU64,
}

// SAFETY: the mapping is shared memory accessed only through atomics; it stays mapped
// for the life of the process.
unsafe impl Send for Counter {}
// SAFETY: as above.
unsafe impl Sync for Counter {}

impl Counter {
    /// Maps the counter file at `path` (which must exist), growing it to [`BYTES`].
    pub fn open(path: &str) -> io::Result<Counter> {
        let c_path =
            CString::new(path).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: NUL-terminated path, plain flags. O_NOFOLLOW: never through a link.
        let fd = unsafe {
            libc::open(
                c_path.as_ptr(),
                libc::O_RDWR | libc::O_CLOEXEC | libc::O_NOFOLLOW,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let mapped = Self::map(fd);
        // SAFETY: `fd` was opened above; the mapping (if any) does not need it.
        unsafe { libc::close(fd) };
        mapped
    }

    fn map(fd: libc::c_int) -> io::Result<Counter> {
        // SAFETY: `stat` is plain data filled by fstat on an open descriptor.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: valid descriptor and pointer.
        if unsafe { libc::fstat(fd, &mut stat) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: growing an open regular file; concurrent growth to the same size is
        // harmless and keeps what was written.
        if (stat.st_size as usize) < BYTES && unsafe { libc::ftruncate(fd, BYTES as i64) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh shared mapping of BYTES bytes of a file at least that long.
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Counter {
            words: address.cast(),
        })
    }

    fn word(&self, index: usize) -> &AtomicU64 {
        assert!(index < BYTES / 8);
        // SAFETY: in bounds of the page-aligned mapping, which is never unmapped;
        // AtomicU64 has the size and alignment of u64.
        unsafe { &*self.words.add(index) }
    }

    /// The next index (0, 1, 2, ... over every process of the run).
    pub fn take(&self) -> usize {
        self.word(0).fetch_add(1, Ordering::Relaxed) as usize
    }

    /// Records that process `pid` has taken its main thread's index and was pinned to
    /// `cpu` (if it was); false when the file is full.
    pub fn register(&self, pid: u32, cpu: Option<usize>) -> bool {
        let slot = self.word(1).fetch_add(1, Ordering::AcqRel) as usize;
        if slot >= PROCESS_SLOTS {
            return false;
        }
        let cpu = cpu.map_or(0, |cpu| (cpu as u64 + 1).min(u64::from(u32::MAX)));
        self.word(HEADER_WORDS + slot)
            .store(u64::from(pid) | (cpu << 32), Ordering::Release);
        true
    }

    /// The registration of process `pid`: `None` if it has none, else the CPU its
    /// main thread was pinned to when it registered (if recorded).
    fn registration(&self, pid: u32) -> Option<Option<usize>> {
        let count = (self.word(1).load(Ordering::Acquire) as usize).min(PROCESS_SLOTS);
        (0..count)
            .map(|slot| self.word(HEADER_WORDS + slot).load(Ordering::Acquire))
            .find(|word| *word as u32 == pid)
            .map(|word| ((word >> 32) as usize).checked_sub(1))
    }

    /// Whether process `pid` has taken its main thread's index already.
    pub fn is_registered(&self, pid: u32) -> bool {
        self.registration(pid).is_some()
    }

    /// The CPU the shim pinned registered process `pid` to, if it recorded one.
    pub fn registered_cpu(&self, pid: u32) -> Option<usize> {
        self.registration(pid).flatten()
    }

    /// How many processes have registered (none yet: the caller is the run's first).
    pub fn registered(&self) -> usize {
        self.word(1).load(Ordering::Acquire) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_and_processes_are_shared_through_the_file() {
        let dir =
            std::env::temp_dir().join(format!("numabench-pin-counter-{}", std::process::id()));
        std::fs::write(&dir, b"").unwrap();
        let path = dir.to_str().unwrap();
        let first = Counter::open(path).unwrap();
        let second = Counter::open(path).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().len(), BYTES as u64);
        assert_eq!((first.take(), second.take(), first.take()), (0, 1, 2));
        assert!(!second.is_registered(42));
        assert_eq!(second.registered(), 0);
        assert!(first.register(42, Some(5)));
        assert!(first.register(44, None));
        assert!(second.is_registered(42) && !second.is_registered(43));
        assert_eq!(second.registered_cpu(42), Some(5));
        assert!(second.is_registered(44) && second.registered_cpu(44).is_none());
        assert_eq!(second.registered(), 2);
        std::fs::remove_file(&dir).unwrap();
        assert!(Counter::open(path).is_err());
    }
}
