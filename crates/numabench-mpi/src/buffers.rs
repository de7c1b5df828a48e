//! Where a rank's MPI buffers live: for sends and receives of at least
//! [`SAMPLE_BYTES`], one call in [`SAMPLE_EVERY`] asks the kernel which
//! NUMA node holds a few of the buffer's pages (`move_pages` with no target
//! nodes only reports) and compares it with the node of the CPU the rank
//! runs on at that moment (`getcpu`). A halo exchange whose buffers were
//! first touched by a serial initialisation on another socket reads
//! remote memory at every exchange; neither mpiP nor the monitor's times
//! say why it is slow, this does.
//!
//! Cost: nothing below the size, one comparison and one increment for the
//! calls not sampled, and for a sampled call two system calls (about 1-2 us
//! for four pages) against a message of 16 KiB or more, which takes several
//! microseconds to move itself.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::os::raw::{c_int, c_long, c_uint, c_void};

/// Buffers of at least this many bytes are sampled.
pub const SAMPLE_BYTES: u64 = 16 * 1024;
/// The first large buffer and every this many after it are sampled.
pub const SAMPLE_EVERY: u64 = 16;
/// Pages looked at per sampled buffer: its first, its last and two between.
pub const PAGES_PER_SAMPLE: usize = 4;

/// What a rank's sampled buffers showed, in pages. In a rank's gathered
/// profile it is one array of its five counts, in field order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BufferPages {
    /// On the node of the CPU the rank ran on when it made the call.
    pub local: u64,
    /// On another node.
    pub remote: u64,
    /// Not resident (never touched, swapped out) or not answerable.
    pub absent: u64,
    /// Buffers of at least [`SAMPLE_BYTES`] seen, sampled or not.
    pub large_buffers: u64,
    /// Of them, sampled.
    pub sampled_buffers: u64,
}

impl Serialize for BufferPages {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        [
            self.local,
            self.remote,
            self.absent,
            self.large_buffers,
            self.sampled_buffers,
        ]
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for BufferPages {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let [local, remote, absent, large_buffers, sampled_buffers] =
            <[u64; 5]>::deserialize(deserializer)?;
        Ok(Self {
            local,
            remote,
            absent,
            large_buffers,
            sampled_buffers,
        })
    }
}

impl BufferPages {
    /// A send or receive buffer of `bytes` bytes at `address`: sampled when
    /// it is large and its turn has come.
    #[inline]
    pub fn consider(&mut self, address: *const c_void, bytes: u64) {
        if bytes < SAMPLE_BYTES || address.is_null() {
            return;
        }
        let turn = self.large_buffers.is_multiple_of(SAMPLE_EVERY);
        self.large_buffers += 1;
        if turn {
            self.sampled_buffers += 1;
            self.add(sample(address as usize, bytes));
        }
    }

    fn add(&mut self, (local, remote, absent): (u64, u64, u64)) {
        self.local += local;
        self.remote += remote;
        self.absent += absent;
    }
}

/// The page size, 4 KiB when sysconf cannot say.
fn page_size() -> usize {
    // SAFETY: sysconf has no memory effects.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size > 0 {
        size as usize
    } else {
        4096
    }
}

/// The start of each page [`PAGES_PER_SAMPLE`] looks at in the buffer
/// `[address, address + bytes)`, distinct, in order.
pub fn sampled_pages(address: usize, bytes: u64, page: usize) -> Vec<usize> {
    let last = address + bytes.saturating_sub(1) as usize;
    let span = last - address;
    let mut pages: Vec<usize> = (0..PAGES_PER_SAMPLE)
        .map(|k| address + span * k / (PAGES_PER_SAMPLE - 1))
        .map(|byte| byte & !(page - 1))
        .collect();
    pages.dedup();
    pages
}

/// (local, remote, absent) pages of the buffer now.
fn sample(address: usize, bytes: u64) -> (u64, u64, u64) {
    let pages = sampled_pages(address, bytes, page_size());
    let Some(node) = current_node() else {
        return (0, 0, pages.len() as u64);
    };
    let pointers: Vec<*mut c_void> = pages.iter().map(|&page| page as *mut c_void).collect();
    let mut status: Vec<c_int> = vec![-1; pages.len()];
    // SAFETY: move_pages with a null `nodes` array only reports where each
    // page is: it reads `count` pointers and writes `count` ints, both
    // arrays of that length; pid 0 is this process.
    let result = unsafe {
        libc::syscall(
            libc::SYS_move_pages,
            0 as c_long,
            pointers.len() as libc::c_ulong,
            pointers.as_ptr(),
            std::ptr::null::<c_int>(),
            status.as_mut_ptr(),
            0 as c_int,
        )
    };
    if result != 0 {
        return (0, 0, pages.len() as u64);
    }
    classify(&status, node)
}

/// (local, remote, absent) of move_pages' answers for a rank on `node`: a
/// node number, or a negative errno for a page it could not place.
pub fn classify(status: &[c_int], node: u32) -> (u64, u64, u64) {
    let mut counts = (0, 0, 0);
    for &answer in status {
        match u32::try_from(answer) {
            Ok(page_node) if page_node == node => counts.0 += 1,
            Ok(_) => counts.1 += 1,
            Err(_) => counts.2 += 1,
        }
    }
    counts
}

/// The NUMA node of the CPU this thread runs on now.
fn current_node() -> Option<u32> {
    let (mut cpu, mut node): (c_uint, c_uint) = (0, 0);
    // SAFETY: getcpu writes one unsigned int to each non-null pointer; the
    // third argument (a cache, unused since Linux 2.6.24) may be null.
    let result = unsafe {
        libc::syscall(
            libc::SYS_getcpu,
            &mut cpu as *mut c_uint,
            &mut node as *mut c_uint,
            std::ptr::null_mut::<c_void>(),
        )
    };
    (result == 0).then_some(node)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_is_sampled_at_its_ends_and_between() {
        // 64 KiB from 0x10000: pages 0x10000, 0x15000, 0x1a000, 0x1f000.
        assert_eq!(
            sampled_pages(0x10000, 64 * 1024, 4096),
            vec![0x10000, 0x15000, 0x1a000, 0x1f000]
        );
        // One page's worth, unaligned: its two pages once each.
        assert_eq!(sampled_pages(0x10800, 4096, 4096), vec![0x10000, 0x11000]);
    }

    #[test]
    fn pages_are_local_remote_or_absent() {
        assert_eq!(classify(&[0, 1, -libc::ENOENT, 0], 0), (2, 1, 1));
        assert_eq!(classify(&[3, 3], 3), (2, 0, 0));
    }

    /// Only large buffers count, and one in SAMPLE_EVERY is sampled, the
    /// first at once: a buffer this test touched is resident on some node.
    #[test]
    fn large_buffers_are_sampled_in_turn() {
        let buffer = vec![1u8; 64 * 1024];
        let mut pages = BufferPages::default();
        pages.consider(buffer.as_ptr().cast(), 1024);
        assert_eq!(pages, BufferPages::default());
        for _ in 0..=SAMPLE_EVERY {
            pages.consider(buffer.as_ptr().cast(), buffer.len() as u64);
        }
        assert_eq!(pages.large_buffers, SAMPLE_EVERY + 1);
        assert_eq!(pages.sampled_buffers, 2);
        let answered = pages.local + pages.remote;
        assert!(answered > 0, "{pages:?}");
        assert_eq!(answered + pages.absent, 2 * PAGES_PER_SAMPLE as u64);
    }
}
