//! Page-aligned anonymous memory that numabench places and measures.

use super::errors::MemoryError;
use super::huge_pages::HUGE_PAGE_SIZE;
use super::syscalls::PAGE_SIZE;
use std::io;
use std::ptr::NonNull;

/// An anonymous private mapping, never touched at creation (so the first
/// touch, or an explicit policy, decides where its pages go). Unmapped on
/// drop.
#[derive(Debug)]
pub struct Buffer {
    start: NonNull<u8>,
    length: usize,
    /// Backed by a hugetlbfs pool (2 MiB pages) rather than base pages or THP.
    hugetlb: bool,
}

// SAFETY: a Buffer owns its mapping exclusively; sharing it between threads
// is as safe as sharing a Vec's storage (access goes through &/&mut).
unsafe impl Send for Buffer {}
// SAFETY: as above; &Buffer only hands out shared views.
unsafe impl Sync for Buffer {}

impl Buffer {
    /// Maps `bytes` (rounded up to whole pages) without touching them.
    pub fn new(bytes: usize) -> Result<Self, MemoryError> {
        Self::map(
            bytes,
            PAGE_SIZE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
        )
    }

    /// Maps `bytes` (rounded up to whole 2 MiB pages) from the hugetlbfs
    /// pool, without touching them. The pages are reserved now (no
    /// `MAP_NORESERVE`), so a pool too small fails here rather than with
    /// SIGBUS at first touch.
    pub fn new_hugetlb(bytes: usize) -> Result<Self, MemoryError> {
        Self::map(
            bytes,
            HUGE_PAGE_SIZE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_HUGETLB | libc::MAP_HUGE_2MB,
        )
    }

    fn map(bytes: usize, page: usize, flags: libc::c_int) -> Result<Self, MemoryError> {
        let length = bytes.max(1).div_ceil(page) * page;
        // SAFETY: - anonymous private mapping, no file descriptor, no fixed address;
        //         - the result is checked against MAP_FAILED before use.
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                length,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                -1,
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(MemoryError::Allocate {
                bytes,
                source: io::Error::last_os_error(),
            });
        }
        let start = NonNull::new(address.cast::<u8>()).ok_or(MemoryError::Allocate {
            bytes,
            source: io::Error::other("mmap returned NULL"),
        })?;
        Ok(Self {
            start,
            length,
            hugetlb: flags & libc::MAP_HUGETLB != 0,
        })
    }

    /// True when the buffer comes from a hugetlbfs pool.
    pub fn is_hugetlb(&self) -> bool {
        self.hugetlb
    }

    /// Length in bytes (whole pages).
    pub fn len(&self) -> usize {
        self.length
    }

    /// Always false: a buffer has at least one page.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Start address.
    pub fn as_ptr(&self) -> *mut u8 {
        self.start.as_ptr()
    }

    /// Asks for transparent huge pages on the whole buffer (before touch).
    pub fn advise_huge_pages(&self) -> Result<(), MemoryError> {
        // SAFETY: the range is exactly our mapping; MADV_HUGEPAGE changes no contents.
        let result =
            unsafe { libc::madvise(self.start.as_ptr().cast(), self.length, libc::MADV_HUGEPAGE) };
        if result == 0 {
            Ok(())
        } else {
            Err(MemoryError::HugePages(io::Error::last_os_error()))
        }
    }

    /// Asks for base pages only, so placement is exact to the page even
    /// when the system's THP setting is `always` (a huge page straddling
    /// two threads' shares would land whole on one node).
    pub fn advise_no_huge_pages(&self) -> Result<(), MemoryError> {
        // SAFETY: the range is exactly our mapping; MADV_NOHUGEPAGE changes no contents.
        let result = unsafe {
            libc::madvise(
                self.start.as_ptr().cast(),
                self.length,
                libc::MADV_NOHUGEPAGE,
            )
        };
        if result == 0 {
            Ok(())
        } else {
            Err(MemoryError::HugePages(io::Error::last_os_error()))
        }
    }

    /// The buffer as `u64` words.
    pub fn words(&self) -> &[u64] {
        // SAFETY: the mapping is page-aligned (so u64-aligned), `length` bytes long, lives as
        // long as &self, and zero-filled anonymous memory is a valid u64 array.
        unsafe { std::slice::from_raw_parts(self.start.as_ptr().cast::<u64>(), self.length / 8) }
    }

    /// The buffer as mutable `u64` words.
    pub fn words_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `words`, and &mut self guarantees exclusive access.
        unsafe {
            std::slice::from_raw_parts_mut(self.start.as_ptr().cast::<u64>(), self.length / 8)
        }
    }

    /// The buffer as mutable `f64` values.
    pub fn f64s_mut(&mut self) -> &mut [f64] {
        // SAFETY: as in `words_mut`; every bit pattern is a valid f64.
        unsafe {
            std::slice::from_raw_parts_mut(self.start.as_ptr().cast::<f64>(), self.length / 8)
        }
    }

    /// The buffer as `f64` values.
    pub fn f64s(&self) -> &[f64] {
        // SAFETY: as in `words`; every bit pattern is a valid f64.
        unsafe { std::slice::from_raw_parts(self.start.as_ptr().cast::<f64>(), self.length / 8) }
    }

    /// Writes one byte per page so every page is allocated now, from the
    /// calling thread (first touch places them by the active policy).
    pub fn touch_pages(&mut self) {
        let words_per_page = PAGE_SIZE / 8;
        let words = self.words_mut();
        for index in (0..words.len()).step_by(words_per_page) {
            // Volatile so the touch is not optimised away.
            // SAFETY: index is within the slice.
            unsafe { std::ptr::write_volatile(words.as_mut_ptr().add(index), 0) };
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: we own exactly this mapping and nothing borrows it past drop.
        unsafe {
            libc::munmap(self.start.as_ptr().cast(), self.length);
        }
    }
}
