//! The statistics summary every record carries as `stats`; computing it
//! from measured values is the library's (`numabench::stats::Sample`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The statistics every record carries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Number of values.
    pub n: usize,
    pub min: f64,
    pub median: f64,
    pub mean: f64,
    pub max: f64,
    /// Sample standard deviation (n - 1 in the denominator; 0 when n = 1).
    pub stddev: f64,
    /// Coefficient of variation, stddev / mean (0 when the mean is 0).
    pub cv: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
}
