//! Page-aligned anonymous memory that numabench places and measures.

use super::errors::MemoryError;
use super::huge_pages::HUGE_PAGE_SIZE;
use super::syscalls::PAGE_SIZE;
use nix::sys::mman::{madvise, mmap_anonymous, munmap, MapFlags, MmapAdvise, ProtFlags};
use std::io;
use std::num::NonZeroUsize;
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
            MapFlags::MAP_PRIVATE | MapFlags::MAP_NORESERVE,
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
            MapFlags::MAP_PRIVATE | MapFlags::MAP_HUGETLB | MapFlags::MAP_HUGE_2MB,
        )
    }

    /// Maps `bytes` (rounded up to whole 2 MiB units, as a hugetlbfs buffer
    /// is) for transparent huge pages: the mapping starts on a 2 MiB boundary,
    /// so every part of the buffer can be backed by a huge page (a mapping
    /// at an arbitrary page address leaves its first and last partial 2 MiB
    /// units in base pages: 8-19% of a few-MiB array). The buffer is then
    /// advised with `MADV_HUGEPAGE`; nothing is touched.
    pub fn new_thp(bytes: usize) -> Result<Self, MemoryError> {
        let length = bytes.max(1).div_ceil(HUGE_PAGE_SIZE) * HUGE_PAGE_SIZE;
        // Over-map by one huge page, then unmap the parts before the first
        // 2 MiB boundary and after the aligned range.
        let raw = Self::map(
            length + HUGE_PAGE_SIZE,
            PAGE_SIZE,
            MapFlags::MAP_PRIVATE | MapFlags::MAP_NORESERVE,
        )?;
        let raw_start = raw.as_ptr() as usize;
        let raw_length = raw.length;
        std::mem::forget(raw);
        let aligned = raw_start.div_ceil(HUGE_PAGE_SIZE) * HUGE_PAGE_SIZE;
        let head = aligned - raw_start;
        let tail = raw_length - head - length;
        let start_of = |address: usize| NonNull::new(address as *mut std::ffi::c_void);
        // SAFETY: [raw_start, raw_start + head) and the tail after the aligned range lie inside
        // the mapping just made, which nothing else references (the Buffer was forgotten).
        unsafe {
            if let Some(head_start) = start_of(raw_start).filter(|_| head > 0) {
                let _ = munmap(head_start, head);
            }
            if let Some(tail_start) = start_of(aligned + length).filter(|_| tail > 0) {
                let _ = munmap(tail_start, tail);
            }
        }
        let buffer = Self {
            start: NonNull::new(aligned as *mut u8).expect("a mapping is never at address 0"),
            length,
            hugetlb: false,
        };
        buffer.advise_huge_pages()?;
        Ok(buffer)
    }

    /// An anonymous mapping (`MAP_ANONYMOUS` is added) of `bytes` rounded
    /// up to whole `page`s.
    fn map(bytes: usize, page: usize, flags: MapFlags) -> Result<Self, MemoryError> {
        let length = bytes.max(1).div_ceil(page) * page;
        let nonzero = NonZeroUsize::new(length).expect("at least one page");
        // SAFETY: an anonymous private mapping, no file descriptor, no fixed address:
        // it aliases nothing.
        let address = unsafe {
            mmap_anonymous(
                None,
                nonzero,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                flags,
            )
        }
        .map_err(|errno| MemoryError::Allocate {
            bytes,
            source: io::Error::from(errno),
        })?;
        Ok(Self {
            start: address.cast::<u8>(),
            length,
            hugetlb: flags.contains(MapFlags::MAP_HUGETLB),
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
    /// Only [`Buffer::new_thp`] buffers are sure to be covered whole.
    pub fn advise_huge_pages(&self) -> Result<(), MemoryError> {
        // SAFETY: the range is exactly our mapping; MADV_HUGEPAGE changes no contents.
        unsafe { madvise(self.start.cast(), self.length, MmapAdvise::MADV_HUGEPAGE) }
            .map_err(|errno| MemoryError::HugePages(io::Error::from(errno)))
    }

    /// Asks for base pages only, so placement is exact to the page even
    /// when the system's THP setting is `always` (a huge page straddling
    /// two threads' shares would land whole on one node).
    pub fn advise_no_huge_pages(&self) -> Result<(), MemoryError> {
        // SAFETY: the range is exactly our mapping; MADV_NOHUGEPAGE changes no contents.
        unsafe { madvise(self.start.cast(), self.length, MmapAdvise::MADV_NOHUGEPAGE) }
            .map_err(|errno| MemoryError::HugePages(io::Error::from(errno)))
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
        let _ = unsafe { munmap(self.start.cast(), self.length) };
    }
}
