//! One cache measurement: an owner CPU puts a buffer into a coherence
//! state, a measuring CPU then chases it (latency) or reads it through
//! (read bandwidth). Every sample prepares the state afresh, since reading
//! the lines changes it.
//!
//! How the states are made:
//! - every sample first flushes every line of the buffer from every cache
//!   (`clflush` of each line, then `mfence`), from the owner;
//! - Modified: the owner then writes every line (the same value again);
//! - Exclusive: the owner reads every line (no other cache holds it);
//! - Shared: the owner reads every line, then a third CPU (the sharer)
//!   reads every line too;
//! - flushed (the DRAM references): nothing after the flush, so the
//!   measurer reads the lines from the buffer's memory.
//!
//! The chase is random within blocks the L1 data TLB maps (as `latency`'s
//! default `tlb-block` order), blocks in random order, so the L2, L3 and
//! DRAM rows are the caches' and memory's latency, not page walks too.
//!
//! The hardware prefetchers cannot be switched off from user space: the
//! chase visits lines in a random order (which defeats the stride
//! prefetchers), the read-through does not and may profit from them.

use crate::clock::Stopwatch;
use crate::kernels::{build_chase, chase};
use crate::memory::{page_nodes, Buffer, PageNodes};
use crate::threads::{current_cpu, run_pinned};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Cache line size the buffer is prepared and chased in.
pub const LINE_BYTES: usize = 64;

/// A coherence state the owner leaves the lines in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    Modified,
    Exclusive,
    Shared,
    /// Flushed from every cache: the DRAM reference.
    Flushed,
}

impl State {
    /// The name in records.
    pub fn name(self) -> &'static str {
        match self {
            State::Modified => "modified",
            State::Exclusive => "exclusive",
            State::Shared => "shared",
            State::Flushed => "flushed",
        }
    }
}

/// What a measurement asks for.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    pub owner: u32,
    pub measurer: u32,
    /// The third CPU that also reads the lines (Shared only).
    pub sharer: Option<u32>,
    pub state: State,
    /// Buffer bytes (a multiple of the line size).
    pub bytes: usize,
    /// The chase is random within blocks of this many bytes, blocks in
    /// random order (`latency`'s `tlb-block` order: the L1 data TLB's
    /// reach, so the loads almost never miss the TLB).
    pub block_bytes: usize,
    pub samples: usize,
}

/// The samples of one measurement.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// ns per load of each sample's chase.
    pub latency_ns: Vec<f64>,
    /// GB/s of each sample's read-through.
    pub read_gbs: Vec<f64>,
    /// CPUs the owner, measurer and sharer ran on while working.
    pub owner_seen: u32,
    pub measurer_seen: u32,
    pub sharer_seen: Option<u32>,
    /// Where the buffer's pages were (after the owner built the chain).
    pub pages: PageNodes,
}

/// Why a measurement could not run.
///
/// Fault: what pinning and memory report (the system's).
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    #[error(transparent)]
    Pin(#[from] crate::threads::PinError),
    #[error(transparent)]
    Memory(#[from] crate::memory::MemoryError),
}

impl crate::error::Faulty for MeasureError {
    fn fault(&self) -> crate::error::Fault {
        match self {
            MeasureError::Pin(error) => error.fault(),
            MeasureError::Memory(error) => error.fault(),
        }
    }
}

/// Flushes every line of `words` from every cache level of every CPU.
fn flush(words: &[u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        for line in words.chunks(LINE_BYTES / 8) {
            // SAFETY: the pointer is inside `words`; clflush only evicts the line.
            unsafe { std::arch::x86_64::_mm_clflush(line.as_ptr().cast()) };
        }
        // SAFETY: mfence has no preconditions; it orders the flushes before what follows.
        unsafe { std::arch::x86_64::_mm_mfence() };
    }
    #[cfg(not(target_arch = "x86_64"))]
    compile_error!("numabench cache flushes lines with clflush (x86-64)");
}

/// Reads the first word of every line (the loads stay, via black_box).
fn read_lines(words: &[u64]) -> u64 {
    let mut sum = 0u64;
    for line in words.chunks(LINE_BYTES / 8) {
        sum = sum.wrapping_add(std::hint::black_box(line[0]));
    }
    sum
}

/// Writes every line's first word again (same value): Modified here,
/// invalid everywhere else.
fn write_lines(words: &mut [u64]) {
    for line in words.chunks_mut(LINE_BYTES / 8) {
        line[0] = std::hint::black_box(line[0]);
    }
}

/// Reads every word (the read-through): the sum, so the loads stay.
fn read_through(words: &[u64]) -> u64 {
    words.iter().fold(0u64, |sum, &word| sum.wrapping_add(word))
}

/// Runs one measurement: `samples` x (flush, prepare the state, chase) and
/// `samples` x (flush, prepare, read through). The buffer's pages are on
/// the owner's node (its first touch), the chain built by the owner.
pub fn measure(setup: &Setup) -> Result<Measured, MeasureError> {
    let mut cpus = vec![setup.measurer, setup.owner];
    cpus.extend(setup.sharer);
    // Page-aligned, so the chase's lines are the cache's lines; untouched
    // until the owner builds the chain, so its pages land on the owner's node.
    let mapping = Buffer::new(setup.bytes)?;
    mapping.advise_no_huge_pages()?;
    let bytes = mapping.len();
    let lines = (bytes / LINE_BYTES) as u64;
    let buffer = Mutex::new(mapping);
    let pages: Mutex<Result<PageNodes, crate::memory::MemoryError>> =
        Mutex::new(Ok(PageNodes::default()));
    let start = AtomicUsize::new(0);
    let results = run_pinned(&cpus, |worker| {
        let role = worker.index; // 0 measurer, 1 owner, 2 sharer
        let mut latency = Vec::new();
        let mut bandwidth = Vec::new();
        if role == 1 {
            // The owner first-touches every page (building the chain): they go to its node.
            let mut mapping = buffer.lock().expect("not poisoned");
            let length = mapping.len();
            let words = mapping.words_mut();
            let first = build_chase(
                words,
                LINE_BYTES,
                setup.block_bytes.clamp(LINE_BYTES, bytes),
                0xcace ^ bytes as u64,
            );
            start.store(first, Ordering::SeqCst);
            *pages.lock().expect("not poisoned") = page_nodes(words.as_mut_ptr().cast(), length);
        }
        if worker.barrier.wait().is_err() {
            return (latency, bandwidth, current_cpu());
        }
        // The mapping does not move from here on: a raw view for every thread.
        let (pointer, length) = {
            let mapping = buffer.lock().expect("not poisoned");
            (mapping.as_ptr() as usize, mapping.len() / 8)
        };
        // SAFETY: the mapping lives in `buffer` until run_pinned returns and does not move;
        // only the owner writes (write_lines), and only between barriers while the others
        // wait, so no read overlaps a write.
        let words = unsafe { std::slice::from_raw_parts(pointer as *const u64, length) };
        let mut seen = current_cpu();
        for sample in 0..2 * setup.samples {
            let chasing = sample < setup.samples;
            if role == 1 {
                flush(words);
                match setup.state {
                    State::Modified => {
                        // SAFETY: as above; the owner is the only writer and the others wait.
                        let words =
                            unsafe { std::slice::from_raw_parts_mut(pointer as *mut u64, length) };
                        write_lines(words);
                    }
                    State::Exclusive | State::Shared => {
                        std::hint::black_box(read_lines(words));
                    }
                    State::Flushed => {}
                }
                seen = current_cpu();
            }
            if worker.barrier.wait().is_err() {
                break;
            }
            if role == 2 && setup.state == State::Shared {
                std::hint::black_box(read_lines(words));
                seen = current_cpu();
            }
            if worker.barrier.wait().is_err() {
                break;
            }
            if role == 0 {
                let stopwatch = Stopwatch::start();
                if chasing {
                    // SAFETY: `start` indexes the chain the owner built in `words`.
                    let first = unsafe { words.as_ptr().add(start.load(Ordering::SeqCst)) };
                    // SAFETY: a chase of `lines` loads goes once round the cycle in `words`.
                    std::hint::black_box(unsafe { chase(first, lines) });
                    latency.push(stopwatch.seconds() * 1e9 / lines as f64);
                } else {
                    std::hint::black_box(read_through(words));
                    bandwidth.push(bytes as f64 / stopwatch.seconds() / 1e9);
                }
                seen = current_cpu();
            }
            if worker.barrier.wait().is_err() {
                break;
            }
        }
        (latency, bandwidth, seen)
    })?;
    Ok(Measured {
        latency_ns: results[0].0.clone(),
        read_gbs: results[0].1.clone(),
        measurer_seen: results[0].2,
        owner_seen: results[1].2,
        sharer_seen: results.get(2).map(|result| result.2),
        pages: pages.into_inner().expect("not poisoned")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every state gives one latency and one bandwidth per sample, from
    /// the CPUs asked for (here: whichever this process may use).
    #[test]
    fn each_state_measures_every_sample_on_the_intended_cpus() {
        let allowed = crate::threads::CpuOrder::Compact
            .all_allowed(&crate::topology::discover_this_system().unwrap());
        let (owner, measurer) = (allowed[0], *allowed.last().unwrap());
        for state in [
            State::Modified,
            State::Exclusive,
            State::Shared,
            State::Flushed,
        ] {
            let setup = Setup {
                owner,
                measurer,
                sharer: (state == State::Shared).then_some(owner),
                state,
                bytes: 16 << 10,
                block_bytes: 4 << 10,
                samples: 3,
            };
            let measured = measure(&setup).unwrap();
            assert_eq!(measured.latency_ns.len(), 3, "{state:?}");
            assert_eq!(measured.read_gbs.len(), 3, "{state:?}");
            assert!(measured
                .latency_ns
                .iter()
                .all(|ns| *ns > 0.0 && ns.is_finite()));
            assert_eq!(measured.owner_seen, owner);
            assert_eq!(measured.measurer_seen, measurer);
        }
    }
}
