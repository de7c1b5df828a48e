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

impl Summary {
    /// The statistics of a record whose value is one observation, not
    /// repetitions: `n` 1, every order statistic the value, no spread.
    pub fn single(value: f64) -> Self {
        Summary {
            n: 1,
            min: value,
            median: value,
            mean: value,
            max: value,
            stddev: 0.0,
            cv: 0.0,
            p90: value,
            p99: value,
        }
    }
}
