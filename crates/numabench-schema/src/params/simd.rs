//! Which SIMD variant a bandwidth kernel ran and why, shared by the
//! benchmarks that run bandwidth kernels (bandwidth, matrix-bandwidth,
//! scaling, per-cpu, contention).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The SIMD level and how it was chosen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SimdParams {
    /// The level the kernel ran (`avx512`, `avx2`, `sse2`, `scalar`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub simd: Option<String>,
    /// `calibration` (the fastest of a timed round) or `forced` (`--simd`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub simd_chosen_by: Option<String>,
    /// Each level's calibration rate, GB/s (`{"avx2": 31.0, ...}`); null
    /// when forced.
    #[serde(default)]
    #[schemars(required)]
    pub simd_calibration: Value,
}
