//! Reading one physical range: each pinned thread reads its share of the
//! range's chunks with the `read` kernel, all started together, timed by
//! the first worker from the barrier before to the barrier after.

use super::ranges::Chunk;
use crate::bench::error::BenchError;
use crate::clock::Stopwatch;
use crate::kernels::{kernel_by_name, run_kernel, SimdLevel};
use crate::memory::Buffer;
use crate::threads::run_pinned;

/// A timed read reads at least this many bytes (whole passes over the
/// range's chunks), so a range of a few tens of MiB is timed over
/// milliseconds.
pub const MIN_BYTES_PER_READ: u64 = 256 << 20;

/// Passes over `bytes` that make one timed read.
pub fn passes_for(bytes: u64) -> u64 {
    MIN_BYTES_PER_READ.div_ceil(bytes.max(1)).max(1)
}

/// Reads `shares[t]` (chunks of `buffer`) on `cpus[t]`, `passes` times,
/// and returns the seconds all threads took together.
pub fn timed_read(
    buffer: &Buffer,
    cpus: &[u32],
    shares: &[Vec<Chunk>],
    passes: u64,
    level: SimdLevel,
) -> Result<f64, BenchError> {
    let read = kernel_by_name("read").expect("the read kernel");
    let base = buffer.as_ptr() as usize;
    let length = buffer.len();
    let seconds = run_pinned(cpus, |worker| {
        let mine = &shares[worker.index];
        let mut checksum = 0.0;
        if worker.barrier.wait().is_err() {
            return None;
        }
        let clock = Stopwatch::start();
        for _ in 0..passes {
            for chunk in mine {
                assert!(
                    chunk.offset + chunk.bytes <= length,
                    "a chunk of the buffer"
                );
                // SAFETY: the chunk lies within the live buffer (asserted), is 8-byte aligned
                // (page-aligned offsets and lengths), and the shares of different workers are
                // disjoint, so this worker's slice aliases no other's; the read kernel only loads.
                let words = unsafe {
                    std::slice::from_raw_parts_mut(
                        (base + chunk.offset) as *mut f64,
                        chunk.bytes / 8,
                    )
                };
                checksum += run_kernel(read, level, words, &[], &[], 0.0);
            }
        }
        if worker.barrier.wait().is_err() {
            return None;
        }
        std::hint::black_box(checksum);
        Some(clock.seconds())
    })?;
    seconds
        .first()
        .copied()
        .flatten()
        .ok_or_else(|| BenchError::Invalid("a reading thread stopped early".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::PAGE_SIZE;

    #[test]
    fn a_short_range_is_read_several_times_a_long_one_once() {
        assert_eq!(passes_for(64 << 20), 4);
        assert_eq!(passes_for(100 << 20), 3);
        assert_eq!(passes_for(1 << 30), 1);
        assert_eq!(passes_for(0), MIN_BYTES_PER_READ);
    }

    #[test]
    fn every_thread_reads_its_share_and_the_time_is_positive() {
        let mut buffer = Buffer::new(64 * PAGE_SIZE).unwrap();
        buffer.touch_pages();
        let cpu = crate::topology::discover_this_system()
            .unwrap()
            .allowed
            .cpus[0];
        let shares = vec![
            vec![Chunk {
                offset: 0,
                bytes: 32 * PAGE_SIZE,
            }],
            vec![Chunk {
                offset: 32 * PAGE_SIZE,
                bytes: 32 * PAGE_SIZE,
            }],
        ];
        let seconds = timed_read(&buffer, &[cpu, cpu], &shares, 2, SimdLevel::Scalar).unwrap();
        assert!(seconds >= 0.0);
    }
}
