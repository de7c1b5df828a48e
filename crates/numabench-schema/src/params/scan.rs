//! `scan`'s parameters: one node's memory read range by range (physical
//! address ranges), in interleaved rounds. A `range_bandwidth` record (and
//! a `slow_range`, the same record filed as a finding) per range, a
//! `node_ranges` record per node; both after what the node's records
//! share.

use super::{BenchmarkParams, Metrics};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of a node's record.
pub const SCAN_NODE_SUFFIX: &str = "node_ranges";

/// What every record of a node carries, first. Each field reads as
/// `None` where a record lacks it; the schema requires what numabench
/// always writes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScanNodeParams {
    /// The node scanned.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub node: Option<u32>,
    /// Threads that read each range.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads: Option<u64>,
    /// Rounds over every range.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rounds: Option<u64>,
    /// The size ranges are grouped by, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub range_size_bytes: Option<u64>,
    /// The kernel (`read`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub kernel: Option<String>,
    /// The SIMD level it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub simd: Option<String>,
}

/// The params of a `range_bandwidth` or `slow_range` record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScanRangeParams {
    #[serde(flatten)]
    pub node: ScanNodeParams,
    /// The physical addresses, inclusive (`0x40000000-0x7fffffff`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub range: Option<String>,
    /// The first physical address.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub range_start: Option<u64>,
    /// The address past the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub range_end: Option<u64>,
    /// The buffer's bytes in the range.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub bytes: Option<u64>,
    /// Its pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pages: Option<u64>,
    /// Passes over them in each sample.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub passes: Option<u64>,
    /// Each round's GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub samples_gbs: Option<Vec<f64>>,
    /// The median of the node's range medians, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_median_gbs: Option<f64>,
    /// One minus the range's median over the node's (negative: faster).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deficit: Option<f64>,
    /// Mann-Whitney p against the node's other ranges, Holm-adjusted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// Slow by scan's rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub slow: Option<bool>,
}

impl BenchmarkParams for ScanRangeParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::SCAN];
}

/// The params of a `node_ranges` record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScanNodeRangesParams {
    #[serde(flatten)]
    pub node: ScanNodeParams,
    /// Ranges measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub ranges: Option<u64>,
    /// Ranges left out, smaller than `min_range_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub ranges_below_minimum: Option<u64>,
    /// Their bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub bytes_below_minimum: Option<u64>,
    /// The smallest range measured, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub min_range_bytes: Option<u64>,
    /// The buffer placed on the node, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub size_bytes: Option<u64>,
    /// The bytes of the ranges measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub bytes_measured: Option<u64>,
    /// The node's memory, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub node_bytes: Option<u64>,
    /// `bytes_measured` over `node_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<f64>,
    /// The buffer's pages whose frame the kernel did not tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pages_without_frame: Option<u64>,
    /// The share of the buffer on huge pages, where checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub huge_page_fraction: Option<f64>,
    /// The deficit beyond which a range is slow.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub slow_deficit: Option<f64>,
    /// The p-value below which it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub significance: Option<f64>,
    /// The slow ranges, as `range` names them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub slow_ranges: Option<Vec<String>>,
}

impl BenchmarkParams for ScanNodeRangesParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::SCAN];
    const METRICS: Metrics = Metrics::EndingWith(SCAN_NODE_SUFFIX);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips as round_trips;
    use serde_json::json;

    /// Each kind's written params read back and written again are the
    /// same text.
    #[test]
    fn every_kind_round_trips() {
        let node = json!({"node": 0, "threads": 2, "rounds": 3,
            "range_size_bytes": 1073741824, "kernel": "read", "simd": "avx2"});
        let mut range = node.clone();
        range.as_object_mut().unwrap().extend(
            json!({"range": "0x0-0x3fffffff", "range_start": 0, "range_end": 1073741824,
                "bytes": 2097152, "pages": 1, "passes": 8, "samples_gbs": [10.0, 11.5],
                "node_median_gbs": 10.5, "deficit": -0.02, "p_value": 1.0, "slow": false})
            .as_object()
            .unwrap()
            .clone(),
        );
        round_trips::<ScanRangeParams>(range);
        for huge in [json!({"huge_page_fraction": 1.0}), json!({})] {
            let mut ranges = node.clone();
            let map = ranges.as_object_mut().unwrap();
            map.extend(
                json!({"ranges": 4, "ranges_below_minimum": 1, "bytes_below_minimum": 4096,
                    "min_range_bytes": 2097152, "size_bytes": 8388608, "bytes_measured": 8388608,
                    "node_bytes": 17179869184_u64, "coverage": 0.0005,
                    "pages_without_frame": 0})
                .as_object()
                .unwrap()
                .clone(),
            );
            map.extend(huge.as_object().unwrap().clone());
            map.extend(
                json!({"slow_deficit": 0.1, "significance": 0.05, "slow_ranges": []})
                    .as_object()
                    .unwrap()
                    .clone(),
            );
            round_trips::<ScanNodeRangesParams>(ranges);
        }
    }
}
