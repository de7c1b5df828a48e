//! Findings from the placement checks records carry: huge pages and
//! verified placement.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of [`HugePagesParams`].
pub const HUGE_PAGES: &str = "huge_pages";
/// The metric of [`PlacementVerifiedParams`].
pub const PLACEMENT_VERIFIED: &str = "placement_verified";

/// `huge_pages`: how much of one benchmark's buffers got huge pages
/// (value: the share).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HugePagesParams {
    /// The benchmark whose buffers they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub of_benchmark: Option<String>,
    /// Where the huge pages came from (`thp`, `hugetlbfs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub source: Option<String>,
    /// The buffers' resident bytes checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub resident_bytes: Option<u64>,
}

finding_params!(HugePagesParams, HUGE_PAGES);

/// `placement_verified`: on what share of the checked pages the requested
/// placement was verified (value: the share).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlacementVerifiedParams {
    /// The pages checked, over every measurement.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pages: Option<u64>,
    /// The measurements whose pages were checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub checked_records: Option<u64>,
}

finding_params!(PlacementVerifiedParams, PLACEMENT_VERIFIED);
