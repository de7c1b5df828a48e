//! The finding of an interference matrix: its worst significant pair for
//! latency and for bandwidth, or that none was measurable.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of [`InterferenceFindingParams`].
pub const INTERFERENCE: &str = "interference";

/// `interference` (value: the worst significant latency ratio, else 1,
/// or the largest latency change where no pair was significant). The
/// latency keys are there only with a significant latency pair, the
/// bandwidth keys only with a significant bandwidth pair.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InterferenceFindingParams {
    /// The pairs measured (the more of the latency and bandwidth cells).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pairs: Option<u64>,
    /// The node whose loads slowed most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_victim_node: Option<u64>,
    /// The node whose traffic slowed them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_aggressor_node: Option<u64>,
    /// That traffic (`reads`, `writes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_load: Option<String>,
    /// The pair's Holm-adjusted Mann-Whitney p.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_p_value: Option<f64>,
    /// The node whose read bandwidth fell most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_victim_node: Option<u64>,
    /// The node whose traffic cut it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_aggressor_node: Option<u64>,
    /// That traffic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_load: Option<String>,
    /// Its bandwidth loaded over alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_ratio: Option<f64>,
    /// The pair's Holm-adjusted Mann-Whitney p.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth_p_value: Option<f64>,
}

finding_params!(InterferenceFindingParams, INTERFERENCE);
