//! c2c's part of the estimate's calibration: one cache-to-cache pair's
//! repetition timed on this machine (milliseconds on a server, far more
//! where virtual CPUs share host cores), the rate of its own kind of cost
//! (`Cost::PingPong`).

use super::measure::measure_c2c;
use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::bench::estimate::{Cost, CostModel};
use crate::bench::registry::Calibration;
use std::time::Instant;

/// Timed samples of the cache-to-cache pair (after its warm-up).
const SAMPLES: usize = 2;

/// c2c's calibration, as its registry entry lists it.
pub(super) const CALIBRATION: Calibration = Calibration { costs, measure };

/// One pair, where there are two CPUs.
fn costs(context: &Context) -> Vec<Cost> {
    match context.topology.allowed.cpus.len() > 1 {
        true => vec![Cost::PingPong { pairs: 1 }],
        false => Vec::new(),
    }
}

/// Times the first two allowed CPUs' pair; with one CPU the model keeps
/// its assumed rate.
fn measure(context: &Context, model: &mut CostModel) -> Result<(), BenchError> {
    let all = &context.topology.allowed.cpus;
    if all.len() > 1 {
        let start = Instant::now();
        measure_c2c(all[0], all[1], SAMPLES)?;
        model.c2c_repetition_seconds = start.elapsed().as_secs_f64() / (SAMPLES + 1) as f64;
    }
    Ok(())
}
