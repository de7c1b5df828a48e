//! What a placement check found: where a buffer's pages are against where
//! they were asked to be, and how much of it got huge pages. Records carry
//! these as `placement.verified` (`docs/results.md`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
