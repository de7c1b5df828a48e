//! The one interface every measurement of the step runner goes through:
//! idle latency ([`super::measure_latency`]) and bandwidth
//! ([`super::measure_bandwidth`]). By default the hardware answers (the
//! kernels, pinned threads, placed and verified buffers); a [`Backend`] in
//! the [`Context`] answers instead. The only other implementation is the
//! simulator ([`crate::simulate`]), which answers from a model of a
//! machine with planted faults so that `characterize`'s real plan, budget
//! cuts, class sampling and findings can be proven on machines that are
//! not here. It is for tests and `scripts/simulate-findings`, never for a
//! user's figures: no command of the CLI sets one.

use super::bandwidth::{BandwidthConfig, BandwidthResult};
use super::context::Context;
use super::error::BenchError;
use super::latency::{LatencyConfig, LatencyMeasurement};
use std::fmt::Debug;

/// Answers the two measurements instead of the hardware.
pub trait Backend: Debug + Send + Sync {
    /// One size of a latency run (what [`super::measure_latency`] returns).
    fn latency(
        &self,
        context: &Context,
        config: &LatencyConfig,
        size: u64,
    ) -> Result<LatencyMeasurement, BenchError>;

    /// One bandwidth run (what [`super::measure_bandwidth`] returns).
    fn bandwidth(
        &self,
        context: &Context,
        config: &BandwidthConfig,
    ) -> Result<BandwidthResult, BenchError>;
}
