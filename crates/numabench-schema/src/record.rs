//! One measured result.

use crate::{PlacementCheck, PlacementStatus, Summary};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Version of the results schema (`docs/results.md`).
pub const RESULTS_SCHEMA_VERSION: u32 = 2;

/// The version of JSON Lines files whose lines are told apart by `"type"`,
/// a metadata line first ([`crate::Line`]): every file before version 2,
/// and the MPI monitor's files still.
pub const TYPED_LINES_SCHEMA_VERSION: u32 = 1;

/// Fixed units: records never carry anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
/// kernel says the pages actually are. Written with `status`, the verdict
/// of `verified` ([`Placement::status`]); reading ignores it (it follows
/// from `verified`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(into = "PlacementWire")]
pub struct Placement {
    /// What was requested, for example `{"cpus": [0], "memory": "bind:1"}`.
    pub requested: Map<String, Value>,
    /// What the page-location query found; `None` when nothing was checked
    /// (then the record does not claim any placement was achieved).
    pub verified: Option<PlacementCheck>,
}

impl Placement {
    /// `verified`, `misplaced` or `unverifiable` (with its reason) for a
    /// checked placement; `None` when nothing was checked.
    pub fn status(&self) -> Option<PlacementStatus> {
        self.verified.as_ref().map(PlacementCheck::status)
    }

    /// `requested` read through its type; `None` when a key does not have
    /// its type's shape.
    pub fn requested_as(&self) -> Option<crate::RequestedPlacement> {
        serde_json::from_value(Value::Object(self.requested.clone())).ok()
    }
}

/// Its schema is the written form's ([`PlacementWire`]): `status` included.
impl JsonSchema for Placement {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Placement".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        PlacementWire::json_schema(generator)
    }
}

/// [`Placement`] as written: its fields and the derived `status`.
#[derive(Serialize, JsonSchema)]
struct PlacementWire {
    requested: Map<String, Value>,
    verified: Option<PlacementCheck>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<PlacementStatus>,
}

impl From<Placement> for PlacementWire {
    fn from(placement: Placement) -> Self {
        let status = placement.status();
        PlacementWire {
            requested: placement.requested,
            verified: placement.verified,
            status,
        }
    }
}

/// One result: a metric of a benchmark with its parameters, placement and
/// statistics over repetitions. `value` is the headline figure (which
/// statistic it is depends on the metric, see `docs/results.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// A measured figure: its value is the median of its repetitions'
    /// `stats`.
    pub fn of_median(
        benchmark: &str,
        metric: &str,
        unit: Unit,
        stats: Summary,
        params: Map<String, Value>,
        placement: Placement,
    ) -> Record {
        Record {
            benchmark: benchmark.to_string(),
            metric: metric.to_string(),
            value: stats.median,
            unit,
            params,
            placement,
            stats,
        }
    }
}

#[cfg(test)]
mod tests {
    //! Structural: how a placement is written, from counts given here.
    use super::*;

    fn placement(verified: Option<PlacementCheck>) -> Placement {
        Placement {
            requested: Map::new(),
            verified,
        }
    }

    #[test]
    fn a_checked_placement_is_written_with_its_status_and_read_back() {
        let unseen = PlacementCheck {
            moved: None,
            pages: 12,
            pages_per_node: Default::default(),
            fraction_as_requested: 0.0,
            achieved: false,
            huge_pages: None,
        };
        let json = serde_json::to_value(placement(Some(unseen.clone()))).unwrap();
        assert_eq!(json["status"]["state"], "unverifiable", "{json}");
        assert_eq!(
            json["status"]["reason"], "all 12 pages not present when read",
            "{json}"
        );
        let back: Placement = serde_json::from_value(json).unwrap();
        assert_eq!(back, placement(Some(unseen)));
    }

    #[test]
    fn an_unchecked_placement_has_no_status() {
        let json = serde_json::to_value(placement(None)).unwrap();
        assert_eq!(json, serde_json::json!({"requested": {}, "verified": null}));
    }

    /// A measured figure's value is its median.
    #[test]
    fn a_figure_of_a_median_takes_its_value_from_the_stats() {
        let stats = Summary::single(7.5);
        let record = Record::of_median(
            "latency",
            "latency",
            Unit::Nanoseconds,
            stats,
            Map::new(),
            placement(None),
        );
        assert_eq!((record.value, record.stats), (7.5, stats));
        assert_eq!(
            (record.benchmark.as_str(), record.metric.as_str()),
            ("latency", "latency")
        );
    }
}
