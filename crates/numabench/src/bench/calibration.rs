//! The SIMD calibration of a bandwidth measurement: every supported level
//! runs a few passes with the measurement's own pinned threads over their
//! own shares of the placed arrays, timed like a repetition (from the
//! barrier to the last thread's finish); the fastest level is measured.

use crate::clock::Stopwatch;
use crate::kernels::{SimdChoice, SimdLevel};
use crate::threads::{Aborted, WorkerContext};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One calibration, shared by the workers of a measurement.
#[derive(Debug)]
pub(super) struct TeamCalibration {
    levels: Vec<SimdLevel>,
    seconds: Mutex<Vec<f64>>,
    fastest: AtomicUsize,
}

impl TeamCalibration {
    /// A calibration of `levels` (each run in the order given).
    pub(super) fn new(levels: Vec<SimdLevel>) -> Self {
        let count = levels.len();
        Self {
            levels,
            seconds: Mutex::new(vec![f64::INFINITY; count]),
            fastest: AtomicUsize::new(0),
        }
    }

    /// Called by every worker: runs `passes(level)` for each level in turn,
    /// all workers together, `trials` times round (so a disturbance hits one
    /// trial of a level, not the level), keeps each level's best trial, and
    /// returns the fastest level (the same for all), or `Aborted` when a
    /// peer left (an error, or Ctrl-C) and the measurement is over.
    pub(super) fn run(
        &self,
        worker: &WorkerContext<'_>,
        trials: usize,
        mut passes: impl FnMut(SimdLevel),
    ) -> Result<SimdLevel, Aborted> {
        for _ in 0..trials.max(1) {
            for (index, &level) in self.levels.iter().enumerate() {
                worker.barrier.wait()?;
                let all = Stopwatch::start();
                passes(level);
                worker.barrier.wait()?;
                if worker.index == 0 {
                    let seconds = &mut self.seconds.lock().expect("no worker panicked")[index];
                    *seconds = seconds.min(all.seconds());
                }
            }
        }
        if worker.index == 0 {
            let seconds = self.seconds.lock().expect("no worker panicked");
            let fastest = (0..seconds.len())
                .min_by(|x, y| seconds[*x].total_cmp(&seconds[*y]))
                .unwrap_or(0);
            self.fastest.store(fastest, Ordering::Relaxed);
        }
        // The barrier orders worker 0's store before everyone's load.
        worker.barrier.wait()?;
        Ok(self.levels[self.fastest.load(Ordering::Relaxed)])
    }

    /// The outcome, with rates for `bytes` moved per level.
    pub(super) fn choice(self, bytes: f64) -> SimdChoice {
        let seconds = self.seconds.into_inner().expect("no worker panicked");
        SimdChoice::calibrated(
            self.levels
                .into_iter()
                .zip(seconds)
                .map(|(level, seconds)| (level, bytes / seconds / 1e9))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::bench::{measure_bandwidth, BandwidthConfig, Context};
    use crate::kernels::{kernel_by_name, SimdChoice, SimdLevel};
    use crate::memory::MemoryPlacement;

    fn config(context: &Context, kernel: &str) -> BandwidthConfig {
        let cpu = context.topology.allowed.cpus[0];
        let node = context.topology.node_of_cpu(cpu).unwrap();
        BandwidthConfig::new(
            kernel_by_name(kernel).unwrap(),
            vec![cpu],
            1 << 20,
            MemoryPlacement::FirstTouch { nodes: vec![node] },
        )
    }

    /// Unforced, every supported level is calibrated on the real threads and
    /// buffers, the fastest runs, and the same kernel, CPUs and size later in
    /// the run reuse that calibration instead of calibrating again.
    #[test]
    fn the_fastest_calibrated_level_runs_and_is_remembered() {
        let mut context = Context::new(crate::topology::discover_this_system().unwrap());
        context.repeat = 1;
        let triad = config(&context, "triad");
        let first = measure_bandwidth(&context, &triad).unwrap().simd;
        let SimdChoice::Calibrated { level, rates } = &first else {
            panic!("not calibrated: {first:?}");
        };
        let levels: Vec<SimdLevel> = rates.iter().map(|(level, _)| *level).collect();
        assert_eq!(levels, SimdLevel::supported());
        assert!(rates
            .iter()
            .all(|(_, rate)| rate.is_finite() && *rate > 0.0));
        let best = rates.iter().map(|(_, rate)| *rate).fold(0.0, f64::max);
        assert!(rates.contains(&(*level, best)), "{first:?}");
        assert_eq!(measure_bandwidth(&context, &triad).unwrap().simd, first);
        let copy = measure_bandwidth(&context, &config(&context, "copy")).unwrap();
        assert!(matches!(copy.simd, SimdChoice::Calibrated { .. }));
        assert_ne!(copy.simd, first, "another kernel is calibrated on its own");
    }

    #[test]
    fn a_forced_level_runs_without_calibration() {
        let mut context = Context::new(crate::topology::discover_this_system().unwrap());
        context.repeat = 1;
        context.simd = Some(SimdLevel::Scalar);
        let result = measure_bandwidth(&context, &config(&context, "copy")).unwrap();
        assert_eq!(result.simd, SimdChoice::Forced(SimdLevel::Scalar));
    }
}
