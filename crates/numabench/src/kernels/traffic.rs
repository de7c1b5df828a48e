//! The traffic generator: one thread streaming through its buffer a cache
//! line per request, in a read:write mix, with a delay between requests —
//! the load of `loaded-latency`'s curves and `interference`'s aggressors.

use crate::clock::Stopwatch;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// The longest a measurement waits for every generator to start moving
/// memory before it is timed, seconds.
pub const GENERATOR_START_SECONDS: f64 = 1.0;

/// Waits until `generators` generators have moved their first batch
/// (counted in `started` by [`generate`]), or [`GENERATOR_START_SECONDS`]
/// passed: a generator's thread may not be scheduled yet where CPUs are
/// shared, and the load must be on before the measurement is timed.
pub fn wait_for_generators(started: &AtomicUsize, generators: usize) {
    let waiting = Stopwatch::start();
    while started.load(Ordering::Acquire) < generators
        && waiting.seconds() < GENERATOR_START_SECONDS
    {
        std::thread::yield_now();
    }
}

/// Read:write ratio of the generated traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrafficMix {
    /// Loads only.
    AllReads,
    /// Reads per write, e.g. 3 for 3:1; 0 for writes only.
    ReadsPerWrite(u32),
    /// The same with non-temporal (streaming) writes, which bypass the
    /// caches: no read for ownership, the line goes straight to memory.
    ReadsPerNtWrite(u32),
}

impl TrafficMix {
    /// Parses `reads`, `3:1`, `2:1`, `1:1`, `writes`, and the same with
    /// non-temporal writes: `3:1-nt`, `2:1-nt`, `1:1-nt`, `nt-writes`.
    pub fn parse(text: &str) -> Option<Self> {
        let (ratio, nt) = match text.strip_suffix("-nt") {
            Some(ratio) => (ratio, true),
            None => (text, false),
        };
        let reads = match ratio {
            "reads" | "all-reads" if !nt => return Some(TrafficMix::AllReads),
            "nt-writes" if !nt => return Some(TrafficMix::ReadsPerNtWrite(0)),
            "writes" => 0,
            "3:1" => 3,
            "2:1" => 2,
            "1:1" => 1,
            _ => return None,
        };
        Some(match nt {
            true => TrafficMix::ReadsPerNtWrite(reads),
            false => TrafficMix::ReadsPerWrite(reads),
        })
    }

    pub fn name(self) -> String {
        match self {
            TrafficMix::AllReads => "reads".to_string(),
            TrafficMix::ReadsPerWrite(0) => "writes".to_string(),
            TrafficMix::ReadsPerWrite(reads) => format!("{reads}:1"),
            TrafficMix::ReadsPerNtWrite(0) => "nt-writes".to_string(),
            TrafficMix::ReadsPerNtWrite(reads) => format!("{reads}:1-nt"),
        }
    }

    /// Requests per write (`u32::MAX`: no writes) and whether writes are
    /// non-temporal.
    pub fn writes_every(self) -> (u32, bool) {
        match self {
            TrafficMix::AllReads => (u32::MAX, false),
            TrafficMix::ReadsPerWrite(reads) => (reads + 1, false),
            TrafficMix::ReadsPerNtWrite(reads) => (reads + 1, true),
        }
    }
}

/// Writes `value` to `word`, bypassing the caches where `non_temporal`
/// (x86-64's `movnti`; elsewhere a plain volatile store).
///
/// # Safety
/// `word` must be valid for writes and 8-byte aligned.
#[inline(always)]
unsafe fn store(word: *mut u64, value: u64, non_temporal: bool) {
    #[cfg(target_arch = "x86_64")]
    if non_temporal {
        // SAFETY: the caller's contract; movnti needs no more than an aligned, writable word.
        unsafe { std::arch::x86_64::_mm_stream_si64(word as *mut i64, value as i64) };
        return;
    }
    let _ = non_temporal;
    // SAFETY: the caller's contract.
    unsafe { std::ptr::write_volatile(word, value) };
}

/// Waits about `iterations` cycles (one `nop` and a loop branch each).
#[inline(always)]
fn delay(iterations: u32) {
    for _ in 0..iterations {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        // SAFETY: a nop touches no register or memory.
        unsafe {
            std::arch::asm!("nop", options(nomem, nostack, preserves_flags));
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        std::hint::spin_loop();
    }
}

/// Streams through `words` one cache line per request, waiting `wait`
/// iterations between requests, until `stop`; counts bytes (64 per request).
pub fn generate(
    words: &mut [u64],
    wait: u32,
    mix: TrafficMix,
    stop: &AtomicBool,
    bytes: &AtomicU64,
    started: &AtomicUsize,
) {
    const WORDS_PER_LINE: usize = 8;
    const BATCH: u64 = 256;
    let lines = words.len() / WORDS_PER_LINE;
    let (writes_every, non_temporal) = mix.writes_every();
    let pointer = words.as_mut_ptr();
    let mut sum = 0u64;
    let mut until_write = writes_every;
    let mut line = 0usize;
    let mut first = true;
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..BATCH {
            // SAFETY: line < lines, so the word index is inside `words`; volatile keeps the access.
            unsafe {
                let word = pointer.add(line * WORDS_PER_LINE);
                until_write -= 1;
                if until_write == 0 {
                    until_write = writes_every;
                    store(word, sum, non_temporal);
                } else {
                    sum = sum.wrapping_add(std::ptr::read_volatile(word));
                }
            }
            line += 1;
            if line == lines {
                line = 0;
            }
            delay(wait);
        }
        bytes.fetch_add(BATCH * 64, Ordering::Relaxed);
        #[cfg(target_arch = "x86_64")]
        if non_temporal {
            // Streaming stores drain before the count is trusted.
            // SAFETY: sfence has no preconditions.
            unsafe { std::arch::x86_64::_mm_sfence() };
        }
        if first {
            first = false;
            started.fetch_add(1, Ordering::Release);
        }
    }
    std::hint::black_box(sum);
}
