//! Tail latency of a chase: the time of many small batches of dependent
//! loads, each timed on its own, so the slow loads a mean hides (a DRAM
//! refresh, a page walk, a row conflict, a hypervisor's exit) show as
//! percentiles.
//!
//! Method: the time-stamp counter read with `rdtscp` (which waits for the
//! loads before it) around each batch of at least [`BATCH_LOADS`]
//! dependent loads; the cost of the timing itself (the same two reads
//! around a call that chases nothing, the median of many) is subtracted,
//! and the remainder divided by the batch's loads. A batch lasts at least
//! [`OVERHEAD_MULTIPLE`] times that cost (more loads a batch where loads
//! are fast: a cache hit takes a few ns, reading the TSC tens under a
//! hypervisor), so the timer's own jitter stays small beside it. A
//! batch's figure is its loads' mean, so a single slow load among eight
//! shows as an eighth of its excess. Without an invariant TSC the
//! monotonic clock times batches of at least [`CLOCK_BATCH_LOADS`]
//! instead, its own cost subtracted the same way.

use super::chase::chase;
use crate::clock::tsc_ghz;
use std::time::Instant;

/// Loads per timed batch with the TSC.
pub const BATCH_LOADS: u64 = 8;
/// Loads per timed batch with the monotonic clock (tens of ns per read).
pub const CLOCK_BATCH_LOADS: u64 = 64;
/// The most batches one measurement times.
pub const MAX_BATCHES: usize = 1 << 15;
/// The fewest batches (below this p99.9 means little).
pub const MIN_BATCHES: usize = 1 << 12;
/// The time one measurement's batches take at most, about.
pub const TAIL_SECONDS: f64 = 0.05;
/// A batch lasts at least this many times the timing's own cost.
pub const OVERHEAD_MULTIPLE: f64 = 10.0;
/// The most loads one batch holds.
pub const MAX_BATCH_LOADS: u64 = 4096;

/// What timed the batches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TailTimer {
    /// The invariant TSC at this many GHz.
    Tsc(f64),
    /// `clock_gettime(CLOCK_MONOTONIC)`.
    Monotonic,
}

impl TailTimer {
    /// The TSC where it is invariant, else the monotonic clock.
    pub fn best() -> Self {
        match tsc_ghz() {
            Some(ghz) if cfg!(target_arch = "x86_64") => TailTimer::Tsc(ghz),
            _ => TailTimer::Monotonic,
        }
    }

    fn batch_loads(self) -> u64 {
        match self {
            TailTimer::Tsc(_) => BATCH_LOADS,
            TailTimer::Monotonic => CLOCK_BATCH_LOADS,
        }
    }
}

/// Percentiles of load latency, ns, with how they were measured: the
/// record's `params.tail`, typed in the schema.
pub use numabench_schema::params::TailParams as TailLatency;

/// Ticks now: the TSC after every earlier instruction, or the clock's ns.
#[inline(always)]
fn now(timer: TailTimer, origin: Instant) -> u64 {
    match timer {
        #[cfg(target_arch = "x86_64")]
        TailTimer::Tsc(_) => {
            let mut aux = 0u32;
            // SAFETY: rdtscp has no preconditions; the CPU has it wherever
            // the TSC is invariant (constant_tsc and nonstop_tsc).
            unsafe { std::arch::x86_64::__rdtscp(&mut aux) }
        }
        _ => origin.elapsed().as_nanos() as u64,
    }
}

fn to_ns(timer: TailTimer, ticks: f64) -> f64 {
    match timer {
        TailTimer::Tsc(ghz) => ticks / ghz,
        TailTimer::Monotonic => ticks,
    }
}

/// What [`time_batches`] timed.
#[derive(Debug, Clone)]
pub struct Batches {
    /// Each batch's time per load, ns.
    pub per_load: Vec<f64>,
    /// The timing's own cost per batch, ns (subtracted).
    pub overhead_ns: f64,
    /// Loads per batch.
    pub loads: u64,
}

/// Times batches of dependent loads from `position`, `seconds_per_load` (a
/// probe's figure) sizing the batches (at least [`OVERHEAD_MULTIPLE`]
/// times the timing's cost) and how many fit [`TAIL_SECONDS`]. Returns
/// where the chase stopped and the batches.
///
/// # Safety
/// `position` must point into a live, unmodified chain from
/// [`super::build_chase`].
pub unsafe fn time_batches(
    position: *const u64,
    seconds_per_load: f64,
    timer: TailTimer,
) -> (*const u64, Batches) {
    let origin = Instant::now();
    // The timing's own cost: the same reads around a call that chases nothing.
    let mut empty: Vec<u64> = (0..1024)
        .map(|_| {
            let start = now(timer, origin);
            // SAFETY: zero steps read nothing.
            let _ = unsafe { chase(position, 0) };
            now(timer, origin).saturating_sub(start)
        })
        .collect();
    empty.sort_unstable();
    let overhead = to_ns(timer, empty[empty.len() / 2] as f64);
    let load_ns = (seconds_per_load * 1e9).max(0.1);
    let loads = ((OVERHEAD_MULTIPLE * overhead / load_ns).ceil() as u64)
        .clamp(timer.batch_loads(), MAX_BATCH_LOADS);
    let batches = ((TAIL_SECONDS / (seconds_per_load.max(1e-10) * loads as f64)) as usize)
        .clamp(MIN_BATCHES, MAX_BATCHES);
    let mut per_load = Vec::with_capacity(batches);
    let mut position = position;
    for _ in 0..batches {
        let start = now(timer, origin);
        // SAFETY: the caller's contract.
        position = unsafe { chase(position, loads) };
        let ticks = now(timer, origin).saturating_sub(start);
        per_load.push(((to_ns(timer, ticks as f64) - overhead) / loads as f64).max(0.0));
    }
    (
        position,
        Batches {
            per_load,
            overhead_ns: overhead,
            loads,
        },
    )
}

/// The smallest step the timer shows, ns.
pub fn timer_resolution_ns(timer: TailTimer) -> f64 {
    match timer {
        TailTimer::Tsc(ghz) => 1.0 / ghz,
        TailTimer::Monotonic => {
            let origin = Instant::now();
            let mut smallest = u64::MAX;
            let mut last = now(timer, origin);
            for _ in 0..1000 {
                let next = now(timer, origin);
                if next > last {
                    smallest = smallest.min(next - last);
                }
                last = next;
            }
            if smallest == u64::MAX {
                1.0
            } else {
                smallest as f64
            }
        }
    }
}

/// The percentiles of the batches' per-load figures.
pub fn tail_of(batches: &Batches, timer: TailTimer, histogram: bool) -> Option<TailLatency> {
    let (per_load, overhead_ns, loads) = (&batches.per_load, batches.overhead_ns, batches.loads);
    if per_load.is_empty() {
        return None;
    }
    let mut sorted = per_load.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    let method = match timer {
        TailTimer::Tsc(ghz) => format!(
            "rdtscp around batches of {loads} dependent loads (TSC at {ghz:.3} GHz; a batch at least {OVERHEAD_MULTIPLE} times the timing's own cost), that cost ({overhead_ns:.1} ns, median of 1024 empty batches) subtracted, divided by {loads}: each figure is a batch's mean load"
        ),
        TailTimer::Monotonic => format!(
            "CLOCK_MONOTONIC around batches of {loads} dependent loads (no invariant TSC; a batch at least {OVERHEAD_MULTIPLE} times the timing's own cost), that cost ({overhead_ns:.1} ns) subtracted, divided by {loads}: each figure is a batch's mean load"
        ),
    };
    Some(TailLatency {
        p50: at(0.5),
        p90: at(0.9),
        p99: at(0.99),
        p999: at(0.999),
        max: *sorted.last().expect("not empty"),
        method,
        batch_loads: loads,
        batches: sorted.len() as u64,
        timer_resolution_ns: timer_resolution_ns(timer),
        timing_overhead_ns: overhead_ns,
        histogram: histogram.then(|| bins(&sorted)),
    })
}

/// Bins 5% wide from the smallest figure up (from 0.1 ns where it is
/// lower): `[lower bound, count]` of each non-empty one.
fn bins(sorted: &[f64]) -> Vec<(f64, u64)> {
    const RATIO: f64 = 1.05;
    let floor = sorted.first().copied().unwrap_or(0.0).max(0.1);
    let mut out: Vec<(f64, u64)> = Vec::new();
    for &value in sorted {
        let index = ((value.max(floor) / floor).ln() / RATIO.ln()).floor() as i32;
        let lower = floor * RATIO.powi(index);
        let lower = (lower * 100.0).round() / 100.0;
        match out.last_mut() {
            Some((last, count)) if *last == lower => *count += 1,
            _ => out.push((lower, 1)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::build_chase;

    #[test]
    fn percentiles_come_from_the_sorted_batches() {
        let mut figures: Vec<f64> = (1..=1000).map(f64::from).collect();
        figures.reverse();
        let batches = |per_load: &[f64], loads| Batches {
            per_load: per_load.to_vec(),
            overhead_ns: 10.0,
            loads,
        };
        let tail = tail_of(&batches(&figures, 8), TailTimer::Tsc(2.0), true).unwrap();
        assert_eq!(tail.p50, 501.0);
        assert_eq!(tail.p90, 900.0);
        assert_eq!(tail.p99, 990.0);
        assert_eq!(tail.p999, 999.0);
        assert_eq!(tail.max, 1000.0);
        assert_eq!(tail.batches, 1000);
        assert_eq!(tail.timer_resolution_ns, 0.5);
        assert!(
            tail.method.contains("rdtscp around batches of 8"),
            "{}",
            tail.method
        );
        let histogram = tail.histogram.unwrap();
        assert_eq!(histogram.iter().map(|(_, count)| count).sum::<u64>(), 1000);
        assert!(histogram.windows(2).all(|pair| pair[0].0 < pair[1].0));
        let monotonic = tail_of(&batches(&figures, 64), TailTimer::Monotonic, false);
        let json = serde_json::to_value(monotonic.unwrap()).unwrap();
        assert_eq!(json["p99_9"], 999.0);
        assert!(json.get("histogram").is_none());
        assert_eq!(json["batch_loads"], CLOCK_BATCH_LOADS);
    }

    /// Structural: batches of a real chase give positive, ordered
    /// percentiles with every timer this host has.
    #[test]
    fn a_chase_is_timed_in_batches() {
        let mut words = vec![0u64; (1 << 20) / 8];
        let start = build_chase(&mut words, 64, 1 << 20, 7);
        // SAFETY: the chain was just built in `words`, alive and unmodified.
        let pointer = unsafe { words.as_ptr().add(start) };
        for timer in [TailTimer::best(), TailTimer::Monotonic] {
            // SAFETY: as above.
            let (_, batches) = unsafe { time_batches(pointer, 1e-9, timer) };
            assert!(batches.per_load.len() >= MIN_BATCHES);
            // Fast loads: batches long enough for the timer.
            assert!(
                batches.loads as f64 * 1.0 >= OVERHEAD_MULTIPLE * batches.overhead_ns
                    || batches.loads == MAX_BATCH_LOADS,
                "{} loads against {} ns",
                batches.loads,
                batches.overhead_ns
            );
            let tail = tail_of(&batches, timer, false).unwrap();
            assert!(tail.p50 <= tail.p99 && tail.p99 <= tail.max, "{tail:?}");
            assert!(tail.max > 0.0, "{tail:?}");
            assert!(tail.timing_overhead_ns >= 0.0);
        }
    }
}
