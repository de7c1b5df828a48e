//! An array in its own page-aligned mapping, shared by a team's workers.
//! Workers write disjoint blocks concurrently, so access goes through
//! `unsafe` methods whose contract is exactly that.

use crate::memory::{pools_can_hold, Buffer, MemoryError};
use std::marker::PhantomData;
use std::ops::Range;
use std::path::Path;

/// `len` elements of plain-old-data `T` (f64, i32, u32, usize...) in a
/// mapping of their own.
#[derive(Debug)]
pub struct SharedArray<T: Copy> {
    buffer: Buffer,
    len: usize,
    /// Elements per partition unit (a row, a plane) for first touch.
    unit: usize,
    _marker: PhantomData<T>,
}

// SAFETY: the array is plain data; concurrent access is governed by the
// unsafe methods' contracts (disjoint writes).
unsafe impl<T: Copy + Send> Send for SharedArray<T> {}
// SAFETY: as above.
unsafe impl<T: Copy + Send> Sync for SharedArray<T> {}

impl<T: Copy> SharedArray<T> {
    /// Maps `len` elements, untouched (zero when first read). `huge_pool_nodes`: huge pages were
    /// asked for, and these are the nodes the pages may land on; the array
    /// then comes from the hugetlbfs pools when each of those nodes has
    /// enough free pages for all of it (the micro-benchmarks' rule, see
    /// [`crate::memory::pools_can_hold`]), else it is advised for THP.
    /// Without, base pages only: each worker's block lands exactly on its
    /// node whatever the THP setting.
    pub(crate) fn map_with(
        len: usize,
        unit: usize,
        huge_pool_nodes: Option<&[u32]>,
    ) -> Result<Self, MemoryError> {
        let bytes = len.max(1) * std::mem::size_of::<T>();
        let buffer = match huge_pool_nodes {
            Some(nodes) if pools_can_hold(Path::new("/"), nodes, bytes) => {
                // A pool that shrank since it was read fails at mmap: fall back to THP.
                Buffer::new_hugetlb(bytes).or_else(|_| Buffer::new_thp(bytes))?
            }
            Some(_) => Buffer::new_thp(bytes)?,
            None => Buffer::new(bytes)?,
        };
        if huge_pool_nodes.is_none() {
            buffer.advise_no_huge_pages()?;
        }
        Ok(Self {
            buffer,
            len,
            unit: unit.max(1),
            _marker: PhantomData,
        })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Elements per partition unit.
    pub fn unit(&self) -> usize {
        self.unit
    }

    pub(crate) fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    fn pointer(&self) -> *mut T {
        self.buffer.as_ptr().cast::<T>()
    }

    /// The whole array, for exclusive (single-threaded) use.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: &mut self: no other access; the mapping holds len elements, zero-initialised
        // (a valid T for the plain-data types this is used with).
        unsafe { std::slice::from_raw_parts_mut(self.pointer(), self.len) }
    }

    /// The whole array, read-only, when nobody writes it concurrently.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: as in as_mut_slice; shared access only reads. Concurrent writers must use
        // slice_mut, whose contract forbids overlapping this read.
        unsafe { std::slice::from_raw_parts(self.pointer(), self.len) }
    }

    /// A read-only view of `range`, from one worker while others write
    /// other ranges.
    ///
    /// # Safety
    /// No live mutable reference may overlap `range` while the returned
    /// slice is used.
    pub unsafe fn slice(&self, range: Range<usize>) -> &[T] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "range inside the array"
        );
        // SAFETY: bounds asserted; no overlapping writer is the caller's contract.
        unsafe { std::slice::from_raw_parts(self.pointer().add(range.start), range.len()) }
    }

    /// A mutable view of `range`, from one worker while others work on
    /// other ranges.
    ///
    /// # Safety
    /// No other live reference (shared or mutable) may overlap `range`
    /// while the returned slice is used.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice_mut(&self, range: Range<usize>) -> &mut [T] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "range inside the array"
        );
        // SAFETY: bounds asserted; exclusivity is the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.pointer().add(range.start), range.len()) }
    }
}
