//! What every benchmark run shares.

use crate::kernels::SimdLevel;
use crate::topology::TopologyReport;

/// Settings common to all benchmarks of a run.
#[derive(Debug, Clone)]
pub struct Context {
    pub topology: TopologyReport,
    /// Timed repetitions per measurement (after one warm-up).
    pub repeat: usize,
    /// Ask for huge pages (transparent huge pages via madvise).
    pub hugepages: bool,
    /// Vector instructions the bandwidth kernels use.
    pub simd: SimdLevel,
    /// Fraction of pages that must sit where requested for a placement to
    /// count as achieved.
    pub placement_threshold: f64,
}

impl Context {
    /// Defaults for this topology: 5 repetitions, widest SIMD, 95% placed.
    pub fn new(topology: TopologyReport) -> Self {
        Self {
            topology,
            repeat: 5,
            hugepages: false,
            simd: SimdLevel::detect(),
            placement_threshold: 0.95,
        }
    }
}
