//! `compare`'s records: each matched measurement's ratio of a set to the
//! first set (metric: the measurement's own), and each set's count of
//! records no other set matched (metric `unmatched`).

use super::{BenchmarkParams, Metrics};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The metric of a set's count of unmatched records.
pub const UNMATCHED: &str = "unmatched";

/// The params of a ratio record: the measurement (its benchmark, its
/// identifying params as the matching read them, its unit), which set
/// against the first, both figures, their repetitions and how sure the
/// difference is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompareRatioParams {
    /// The compared records' benchmark.
    pub benchmark: String,
    /// The measurement's identifying params (`role` when matched by
    /// role), by name; a name this type also writes is left out.
    #[serde(flatten)]
    pub key: Map<String, Value>,
    /// The compared records' unit (the ratio's is `ratio`).
    pub unit: String,
    /// The set's number, 2 for the second (the first is the baseline).
    pub set: u64,
    /// Its file.
    pub file: String,
    /// The first set's file.
    pub baseline_file: String,
    /// This set's figure.
    pub set_value: f64,
    /// The first set's figure.
    pub baseline_value: f64,
    /// Repetitions behind the first set's figure and this set's.
    pub repetitions: [u64; 2],
    /// Two-sided Mann-Whitney U over the repetitions; null when matched by
    /// role or too few repetitions.
    pub p_value: Option<f64>,
    /// `exact` or `role`.
    pub matched_by: String,
}

impl CompareRatioParams {
    /// The names this type writes itself, which a measurement's key must
    /// not write again.
    pub const NAMES: [&'static str; 10] = [
        "benchmark",
        "unit",
        "set",
        "file",
        "baseline_file",
        "set_value",
        "baseline_value",
        "repetitions",
        "p_value",
        "matched_by",
    ];
}

impl BenchmarkParams for CompareRatioParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::COMPARE];
}

/// The params of a set's `unmatched` count.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CompareUnmatchedParams {
    /// The set's number, 1 for the first.
    pub set: u64,
    /// Its file.
    pub file: String,
    /// `exact` or `role`.
    pub matched_by: String,
}

impl BenchmarkParams for CompareUnmatchedParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::COMPARE];
    const METRICS: Metrics = Metrics::Named(&[UNMATCHED]);
}
