//! Timing: the monotonic clock for seconds, the TSC for cycles.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A monotonic high-resolution stopwatch.
#[derive(Debug, Clone, Copy)]
pub struct Stopwatch {
    start: Instant,
}

impl Stopwatch {
    pub fn start() -> Self {
        Self {
            start: Instant::now(),
        }
    }

    pub fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}

/// TSC frequency in GHz (ticks per nanosecond), calibrated once against the
/// monotonic clock; `None` without an invariant TSC (or off x86).
pub fn tsc_ghz() -> Option<f64> {
    static GHZ: OnceLock<Option<f64>> = OnceLock::new();
    *GHZ.get_or_init(calibrate)
}

#[cfg(target_arch = "x86_64")]
fn calibrate() -> Option<f64> {
    let invariant = std::fs::read_to_string("/proc/cpuinfo")
        .map(|text| text.contains(" constant_tsc") && text.contains(" nonstop_tsc"))
        .unwrap_or(false);
    if !invariant {
        return None;
    }
    let start = Instant::now();
    // SAFETY: rdtsc has no preconditions on x86_64.
    let ticks_start = unsafe { std::arch::x86_64::_rdtsc() };
    while start.elapsed() < Duration::from_millis(20) {
        std::hint::spin_loop();
    }
    // SAFETY: as above.
    let ticks_end = unsafe { std::arch::x86_64::_rdtsc() };
    let nanoseconds = start.elapsed().as_nanos() as f64;
    Some((ticks_end - ticks_start) as f64 / nanoseconds)
}

#[cfg(not(target_arch = "x86_64"))]
fn calibrate() -> Option<f64> {
    None
}
