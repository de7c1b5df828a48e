//! What every benchmark run shares.

use crate::kernels::{SimdChoice, SimdLevel};
use crate::topology::Machine;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What a bandwidth calibration is remembered by: kernel, CPUs, size.
type CalibrationKey = (&'static str, Vec<u32>, u64);

/// Settings common to all benchmarks of a run.
#[derive(Debug, Clone)]
pub struct Context {
    pub topology: Machine,
    /// Timed repetitions per measurement (after one warm-up).
    pub repeat: usize,
    /// Take every one of `repeat` repetitions (latency and bandwidth),
    /// not stop once the median has converged: for a figure that is the
    /// fastest of a fixed count (`check`).
    pub fixed_repetitions: bool,
    /// Ask for huge pages (transparent huge pages via madvise).
    pub hugepages: bool,
    /// Latency records carry the histogram of their tail's batches
    /// (`--histogram`), besides its percentiles.
    pub histogram: bool,
    /// Vector instructions the bandwidth kernels use; `None`: the fastest
    /// of a short calibration before each measurement.
    pub simd: Option<SimdLevel>,
    /// Fraction of pages that must sit where requested for a placement to
    /// count as achieved.
    pub placement_threshold: f64,
    /// The rates plans are estimated with: assumed, or calibrated on this
    /// machine before a run ([`super::calibrate_cost_model`]).
    pub cost_model: super::CostModel,
    /// Calibrations already made in this run, so a kernel measured again on
    /// the same CPUs and size (matrix, contention) is not calibrated again.
    calibrations: Arc<Mutex<HashMap<CalibrationKey, SimdChoice>>>,
    /// What answers the measurements: `None`, the hardware; else a
    /// simulated machine ([`super::Backend`]; tests and
    /// `scripts/simulate-findings` only).
    pub backend: Option<Arc<dyn super::Backend>>,
}

impl Context {
    /// Defaults for this topology: 5 repetitions, SIMD by calibration, 95% placed.
    pub fn new(topology: Machine) -> Self {
        Self {
            topology,
            repeat: 5,
            fixed_repetitions: false,
            hugepages: false,
            histogram: false,
            simd: None,
            placement_threshold: 0.95,
            cost_model: super::CostModel::ASSUMED,
            calibrations: Arc::default(),
            backend: None,
        }
    }

    /// The stopping rule of a latency or bandwidth measurement: up to
    /// `repeat`, every one with [`Context::fixed_repetitions`].
    pub fn stopping_rule(&self) -> crate::stats::StoppingRule {
        if self.fixed_repetitions {
            crate::stats::StoppingRule::up_to_fixed(self.repeat, true)
        } else {
            crate::stats::StoppingRule::up_to(self.repeat)
        }
    }

    /// The calibration made earlier for `kernel` on `cpus` over `size` bytes.
    pub fn calibration(&self, kernel: &'static str, cpus: &[u32], size: u64) -> Option<SimdChoice> {
        let calibrations = self.calibrations.lock().expect("no holder panicked");
        calibrations.get(&(kernel, cpus.to_vec(), size)).cloned()
    }

    /// Remembers a calibration for [`Context::calibration`].
    pub fn remember_calibration(
        &self,
        kernel: &'static str,
        cpus: &[u32],
        size: u64,
        choice: SimdChoice,
    ) {
        let mut calibrations = self.calibrations.lock().expect("no holder panicked");
        calibrations.insert((kernel, cpus.to_vec(), size), choice);
    }
}
