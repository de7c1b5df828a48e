//! The tail of a chase's load latency (`params.tail` of `latency`,
//! `matrix-latency` and `loaded-latency` records): percentiles of batches
//! of dependent loads, each batch timed on its own, and how they were
//! timed. The library's kernel (`kernels::tail`) builds it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Percentiles of load latency, ns, with how they were measured. A key
/// a record lacks (a file written by hand or by an older version) reads
/// as 0 or empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TailParams {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    #[serde(rename = "p99_9")]
    pub p999: f64,
    pub max: f64,
    /// How the figures were taken, in words.
    pub method: String,
    /// Loads per timed batch.
    pub batch_loads: u64,
    /// Batches timed.
    pub batches: u64,
    /// The timer's tick, ns (one TSC tick, or the clock's smallest step).
    pub timer_resolution_ns: f64,
    /// The timing's own cost per batch, ns, subtracted from every batch.
    pub timing_overhead_ns: f64,
    /// `[lower bound ns, batches]` of each non-empty bin, bins 5% wide
    /// (`--histogram`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Vec<(f64, u64)>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The kernel's tail is written in this order, floats as floats; a
    /// tail with only some figures (written by hand) reads the rest as 0.
    #[test]
    fn a_tail_keeps_its_text_and_a_partial_one_reads() {
        let tail = TailParams {
            p50: 90.0,
            p90: 110.0,
            p99: 200.0,
            p999: 400.0,
            max: 900.0,
            method: "rdtscp".into(),
            batch_loads: 8,
            batches: 4096,
            timer_resolution_ns: 0.5,
            timing_overhead_ns: 3.0,
            histogram: Some(vec![(85.0, 4000), (190.0, 96)]),
        };
        assert_eq!(
            serde_json::to_string(&tail).unwrap(),
            r#"{"p50":90.0,"p90":110.0,"p99":200.0,"p99_9":400.0,"max":900.0,"method":"rdtscp","batch_loads":8,"batches":4096,"timer_resolution_ns":0.5,"timing_overhead_ns":3.0,"histogram":[[85.0,4000],[190.0,96]]}"#
        );
        let partial: TailParams =
            serde_json::from_value(json!({"p99": 200, "p99_9": 400})).unwrap();
        assert_eq!(
            (partial.p99, partial.p999, partial.p50),
            (200.0, 400.0, 0.0)
        );
    }
}
