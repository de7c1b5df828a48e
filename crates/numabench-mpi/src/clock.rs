//! The monitor's clocks: CLOCK_MONOTONIC for wall times, and a cheap tick
//! counter for the two readings every blocking call takes.
//!
//! A `clock_gettime` through the vDSO costs about 25 ns, `rdtsc` about
//! 10 ns (measured on the 2-vCPU development VM, clocksource tsc); a call
//! reads the clock twice, so the ticks are the TSC where the kernel itself
//! trusts it: x86_64, CPU flags `constant_tsc` and `nonstop_tsc` (the rate
//! does not follow frequency changes or sleep states) and the kernel's
//! clocksource `tsc` (the kernel checked that every CPU's counter agrees,
//! so readings of different ranks of a host can be ordered). Elsewhere the
//! ticks are CLOCK_MONOTONIC nanoseconds. Ticks become nanoseconds by a
//! calibration against CLOCK_MONOTONIC over the monitored run (a reading
//! of both at the start and at the end): over a run of a second the two
//! readings' few tens of nanoseconds of skew are a 1e-7 error.

use std::sync::atomic::{AtomicBool, Ordering};

/// True when the ticks are the TSC (decided once, before monitoring).
static TSC: AtomicBool = AtomicBool::new(false);

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of a host.
pub fn now_ns() -> u64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut time) };
    time.tv_sec as u64 * 1_000_000_000 + time.tv_nsec as u64
}

/// The tick counter: the TSC when [`use_tsc`] chose it, else [`now_ns`].
#[inline]
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if TSC.load(Ordering::Relaxed) {
        // SAFETY: rdtsc exists on every x86_64 CPU and only reads the
        // time-stamp counter.
        return unsafe { core::arch::x86_64::_rdtsc() };
    }
    now_ns()
}

/// True when this machine's TSC can serve as the host's tick counter
/// (see the module documentation).
pub fn tsc_usable() -> bool {
    if !cfg!(target_arch = "x86_64") {
        return false;
    }
    let source =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .unwrap_or_default();
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    tsc_usable_from(&source, &cpuinfo)
}

/// [`tsc_usable`] on the text of the clocksource file and /proc/cpuinfo.
pub fn tsc_usable_from(clocksource: &str, cpuinfo: &str) -> bool {
    fn flags(line: &str) -> Option<Vec<&str>> {
        line.split_once(':')
            .filter(|(key, _)| key.trim() == "flags")
            .map(|(_, flags)| flags.split_whitespace().collect())
    }
    let mut cpus = cpuinfo.lines().filter_map(flags).peekable();
    clocksource.trim() == "tsc"
        && cpus.peek().is_some()
        && cpus.all(|cpu| cpu.contains(&"constant_tsc") && cpu.contains(&"nonstop_tsc"))
}

/// Chooses the tick counter; every rank of a host must choose the same.
pub fn use_tsc(tsc: bool) {
    TSC.store(tsc && cfg!(target_arch = "x86_64"), Ordering::Release);
}

/// A reading of both clocks at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    pub ticks: u64,
    pub ns: u64,
}

impl Reading {
    /// Both clocks now.
    pub fn now() -> Self {
        Self {
            ticks: ticks(),
            ns: now_ns(),
        }
    }

    /// Nanoseconds per tick between `self` and a later reading (1 when
    /// the interval is too short to tell or the ticks are nanoseconds).
    pub fn ns_per_tick(&self, later: &Reading) -> f64 {
        let ticks = later.ticks.saturating_sub(self.ticks);
        let ns = later.ns.saturating_sub(self.ns);
        if ticks == 0 || ns == 0 {
            1.0
        } else {
            ns as f64 / ticks as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tsc_is_used_only_where_the_kernel_trusts_it() {
        let good = "processor: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc rdtscp\n\
                    processor: 1\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n";
        assert!(tsc_usable_from("tsc\n", good));
        assert!(!tsc_usable_from("kvm-clock\n", good));
        let one_without = "flags : constant_tsc nonstop_tsc\nflags : constant_tsc\n";
        assert!(!tsc_usable_from("tsc\n", one_without));
        assert!(!tsc_usable_from("tsc\n", "processor: 0\n"));
    }

    /// Ticks calibrated against CLOCK_MONOTONIC measure a sleep as the
    /// monotonic clock does, whichever counter this machine gets.
    #[test]
    fn calibrated_ticks_measure_time() {
        let _serial = crate::TEST_LOCK
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        for tsc in [false, tsc_usable()] {
            use_tsc(tsc);
            let start = Reading::now();
            let before = ticks();
            std::thread::sleep(std::time::Duration::from_millis(20));
            let after = ticks();
            let end = Reading::now();
            let slept = (after - before) as f64 * start.ns_per_tick(&end);
            let monotonic = (end.ns - start.ns) as f64;
            assert!(slept >= 20e6, "tsc {tsc}: {slept} ns");
            assert!(slept <= monotonic, "tsc {tsc}: {slept} > {monotonic} ns");
        }
        use_tsc(false);
    }
}
