//! One measured result.

use crate::stats::Summary;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Version of the results schema (`docs/results.md`).
pub const RESULTS_SCHEMA_VERSION: u32 = 1;

/// Fixed units: records never carry anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Unit {
    /// Bandwidth, 10^9 bytes per second.
    #[serde(rename = "GB/s")]
    GigabytesPerSecond,
    /// Latency, nanoseconds.
    #[serde(rename = "ns")]
    Nanoseconds,
    /// CPU clock cycles (TSC).
    #[serde(rename = "cycles")]
    Cycles,
    /// Time, seconds.
    #[serde(rename = "s")]
    Seconds,
    /// Millions of operations per second (NPB's Mop/s).
    #[serde(rename = "Mop/s")]
    MegaOpsPerSecond,
    /// A dimensionless ratio.
    #[serde(rename = "ratio")]
    Ratio,
    /// A count.
    #[serde(rename = "count")]
    Count,
}

impl Unit {
    /// The unit as written in records and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::GigabytesPerSecond => "GB/s",
            Unit::Nanoseconds => "ns",
            Unit::Cycles => "cycles",
            Unit::Seconds => "s",
            Unit::MegaOpsPerSecond => "Mop/s",
            Unit::Ratio => "ratio",
            Unit::Count => "count",
        }
    }
}

/// Where the benchmark asked its threads and pages to be, and where the
/// kernel says the pages actually are.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Placement {
    /// What was requested, for example `{"cpus": [0], "memory": "bind:1"}`.
    pub requested: Map<String, Value>,
    /// What the page-location query found; `None` when nothing was checked
    /// (then the record does not claim any placement was achieved).
    pub verified: Option<PlacementCheck>,
}

/// The outcome of asking the kernel where a buffer's pages are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlacementCheck {
    /// Pages examined.
    pub pages: u64,
    /// Pages on each node, keyed by node index.
    pub pages_per_node: BTreeMap<u32, u64>,
    /// Fraction of pages that sit where they were asked to be (0..=1).
    pub fraction_as_requested: f64,
    /// True when the fraction reaches the benchmark's threshold (and, when
    /// huge pages were asked for, most of the buffer got them).
    pub achieved: bool,
    /// Huge-page coverage, present when huge pages were asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub huge_pages: Option<HugePageCheck>,
}

/// How much of a buffer really got huge pages (`/proc/self/smaps`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HugePageCheck {
    /// `hugetlbfs` (a reserved pool) or `thp` (transparent huge pages).
    pub source: String,
    /// Resident bytes of the mapping.
    pub resident_bytes: u64,
    /// Of those, bytes backed by huge pages.
    pub huge_bytes: u64,
    /// huge_bytes / resident_bytes (0..=1).
    pub fraction: f64,
}

impl HugePageCheck {
    /// The coverage of several buffers together (`None` when none was
    /// checked); the source is the first one's, or `mixed`.
    pub fn combine<'a>(checks: impl IntoIterator<Item = &'a HugePageCheck>) -> Option<Self> {
        let mut combined: Option<HugePageCheck> = None;
        for check in checks {
            let total = combined.get_or_insert_with(|| HugePageCheck {
                source: check.source.clone(),
                resident_bytes: 0,
                huge_bytes: 0,
                fraction: 0.0,
            });
            if total.source != check.source {
                total.source = "mixed".into();
            }
            total.resident_bytes += check.resident_bytes;
            total.huge_bytes += check.huge_bytes;
            total.fraction = if total.resident_bytes == 0 {
                0.0
            } else {
                total.huge_bytes as f64 / total.resident_bytes as f64
            };
        }
        combined
    }
}

/// One result: a metric of a benchmark with its parameters, placement and
/// statistics over repetitions. `value` is the headline figure (which
/// statistic it is depends on the metric, see `docs/results.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub benchmark: String,
    pub metric: String,
    pub value: f64,
    pub unit: Unit,
    pub params: Map<String, Value>,
    pub placement: Placement,
    pub stats: Summary,
}

impl Record {
    /// `params` as compact `key=value` text for tables.
    pub fn params_text(&self) -> String {
        self.params
            .iter()
            .map(|(key, value)| match value {
                Value::String(text) => format!("{key}={text}"),
                other => format!("{key}={other}"),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}
