//! The core clock of the CPU this thread runs on, measured: a chain of
//! dependent integer adds, each of which waits for the one before, runs
//! at one add per core cycle on every x86-64 core (the add's latency is 1
//! cycle), whatever the core's current frequency (turbo, power saving).
//! Timed against the monotonic clock, adds per nanosecond is the core's
//! GHz while it ran. The TSC, by contrast, ticks at the nominal clock, so
//! ticks are not core cycles when the core runs faster or slower.

use crate::clock::Stopwatch;

/// Adds in one timing: 2^20 (about 0.3 ms at 3-4 GHz).
const ADDS: u64 = 1 << 20;

/// Timings per measurement; the fastest is kept (an interrupt only slows one).
const TIMINGS: usize = 3;

/// The core clock of the current CPU in GHz, measured now (about 1 ms).
pub fn core_clock_ghz() -> f64 {
    // One untimed run so the loop is in the caches and the branch predicted.
    std::hint::black_box(dependent_adds(ADDS / 16));
    (0..TIMINGS)
        .map(|_| {
            let stopwatch = Stopwatch::start();
            std::hint::black_box(dependent_adds(ADDS));
            ADDS as f64 / (stopwatch.seconds() * 1e9)
        })
        .fold(0.0, f64::max)
}

/// `adds` (a multiple of 16) dependent adds of one register to another
/// (register-register: no core folds them at rename, as some fold adds of
/// a small immediate): `adds` core cycles. The loop counter is a second, independent chain that runs
/// beside it, so the adds alone set the pace.
#[inline(never)]
fn dependent_adds(adds: u64) -> u64 {
    let mut value: u64 = 0;
    let mut rounds = (adds / 16).max(1);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: register-only arithmetic and a loop on registers the asm
    // block declares; no memory, no stack, flags clobbered (the default).
    unsafe {
        std::arch::asm!(
            "2:",
            "add {value}, {step}", "add {value}, {step}", "add {value}, {step}", "add {value}, {step}",
            "add {value}, {step}", "add {value}, {step}", "add {value}, {step}", "add {value}, {step}",
            "add {value}, {step}", "add {value}, {step}", "add {value}, {step}", "add {value}, {step}",
            "add {value}, {step}", "add {value}, {step}", "add {value}, {step}", "add {value}, {step}",
            "dec {rounds}",
            "jnz 2b",
            value = inout(reg) value,
            rounds = inout(reg) rounds,
            step = in(reg) std::hint::black_box(1u64),
            options(nomem, nostack),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    compile_error!("numabench measures the core clock with x86-64 adds");
    let _ = rounds;
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain does every add, and the clock it gives (best of five) is
    /// a plausible core clock, 0.5 to 7 GHz.
    #[test]
    fn dependent_adds_count_and_time_the_core_clock() {
        assert_eq!(dependent_adds(1 << 10), 1 << 10);
        let ghz = (0..5).map(|_| core_clock_ghz()).fold(0.0, f64::max);
        assert!((0.5..7.0).contains(&ghz), "{ghz} GHz");
    }
}
