//! Memory-level parallelism and core-to-core latency.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The metric of [`MlpFindingParams`].
pub const MLP: &str = "mlp";
/// The metric of [`C2cFindingParams`]: the finding is named as its
/// benchmark.
pub const C2C: &str = crate::benchmark::C2C;

/// `mlp`: one core's curve of pointer chains (value: the most misses it
/// keeps in flight).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MlpFindingParams {
    /// The chains at the curve's highest ratio.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub chains_at_best: Option<u64>,
    /// The fewest chains reaching 90% of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub chains_reaching_90_percent: Option<u64>,
    /// The chain counts measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub chains_measured: Option<u64>,
}

finding_params!(MlpFindingParams, MLP);

/// `c2c`: core-to-core latency by relation (value: the highest, ns).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct C2cFindingParams {
    /// Per relation, nearest first, `<relation>_ns` (`same_core_ns`,
    /// `cross_node_ns`, ...): its smallest and largest latency, ns. Read
    /// back, it holds every key of the record (its `sentence` too).
    #[serde(flatten)]
    pub relations: Map<String, Value>,
}

finding_params!(C2cFindingParams, C2C);
