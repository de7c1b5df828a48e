//! The firmware's tables against the measured figures: an order the
//! measurement contradicts, and a gap it contradicts.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of [`DeclaredMismatchParams`].
pub const DECLARED_MISMATCH: &str = "declared_mismatch";
/// The metric of [`DeclaredGapParams`].
pub const DECLARED_GAP: &str = "declared_gap";

/// What the two declared findings start with: the row and the declared
/// param compared.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeclaredRowParams {
    /// The CPU node (the matrix row).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpu_node: Option<u64>,
    /// The declared param compared (`slit_distance`,
    /// `declared_latency_ns`, `declared_bandwidth_mib_s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub declared: Option<String>,
}

/// `declared_mismatch`: from a CPU node, the firmware declares one memory
/// node nearer than another that measured no slower (value: the far
/// node's latency over the near one's).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeclaredMismatchParams {
    #[serde(flatten)]
    pub row: DeclaredRowParams,
    /// The node declared nearer.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub near_node: Option<u64>,
    /// The node declared farther.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub far_node: Option<u64>,
    /// The near node's declared figure (SLIT distance, or ns).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub declared_near: Option<f64>,
    /// The far node's declared figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub declared_far: Option<f64>,
    /// The two cells' combined 95% interval, relative: a ratio within
    /// twice it is not told apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci95_rel: Option<f64>,
}

finding_params!(DeclaredMismatchParams, DECLARED_MISMATCH);

/// `declared_gap`: from a CPU node, the HMAT's gap between a memory node
/// and the row's best declared one, against the measured gap (value:
/// measured over declared).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeclaredGapParams {
    #[serde(flatten)]
    pub row: DeclaredRowParams,
    /// The row's best declared memory node.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub best_node: Option<u64>,
    /// The memory node whose gap is contradicted.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub node: Option<u64>,
    /// The best node's declared figure (ns or MiB/s).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub declared_best: Option<f64>,
    /// The node's declared figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub declared_node: Option<f64>,
    /// How many times worse the HMAT declares the node than the best.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub declared_gap: Option<f64>,
    /// How many times worse it measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub measured_gap: Option<f64>,
    /// The factor either gap must exceed the other by to be named.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub gap_factor: Option<f64>,
}

finding_params!(DeclaredGapParams, DECLARED_GAP);
