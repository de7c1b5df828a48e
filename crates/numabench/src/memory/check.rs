//! What a placement check found: where a buffer's pages are against where
//! they were asked to be, and how much of it got huge pages. Records carry
//! these as `placement.verified` (`docs/results.md`).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

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

impl PlacementCheck {
    /// The check of several buffers measured together (a kernel's arrays):
    /// achieved only when every buffer's own check is, so one misplaced
    /// array is not hidden behind well-placed ones. `fraction_as_requested`
    /// is the worst buffer's; pages and per-node counts are summed, and
    /// huge-page coverage combined. Nothing checked is not achieved.
    pub fn all_of(checks: &[PlacementCheck]) -> PlacementCheck {
        let mut pages_per_node = BTreeMap::new();
        for check in checks {
            for (node, count) in &check.pages_per_node {
                *pages_per_node.entry(*node).or_insert(0) += count;
            }
        }
        PlacementCheck {
            pages: checks.iter().map(|check| check.pages).sum(),
            pages_per_node,
            fraction_as_requested: checks
                .iter()
                .map(|check| check.fraction_as_requested)
                .reduce(f64::min)
                .unwrap_or(0.0),
            achieved: !checks.is_empty() && checks.iter().all(|check| check.achieved),
            huge_pages: HugePageCheck::combine(
                checks.iter().filter_map(|check| check.huge_pages.as_ref()),
            ),
        }
    }
}

/// The share of `pages` that an interleave over `nodes` placed as asked:
/// each node of the set holds its fair share, `ceil(pages / N)` (rounded
/// up to whole `granule_pages`, the pages the kernel places as one: 512
/// for 2 MiB huge pages, else 1), and pages beyond a node's fair share, or
/// on a node outside the set, are misplaced. So the result is
/// `sum over the set of min(count, fair share) / pages`: 1.0 for a
/// round-robin split, 1/N with every page on one node of N. Over one node
/// it is the share of pages on that node, as for a bind. `pages` includes
/// pages not present (they count as misplaced); 0.0 when it is 0.
pub fn interleave_fraction(
    pages_per_node: &BTreeMap<u32, u64>,
    pages: u64,
    nodes: &[u32],
    granule_pages: u64,
) -> f64 {
    let set: BTreeSet<u32> = nodes.iter().copied().collect();
    if pages == 0 || set.is_empty() {
        return 0.0;
    }
    let granule = granule_pages.max(1);
    let fair_share = pages.div_ceil(granule).div_ceil(set.len() as u64) * granule;
    let as_requested: u64 = set
        .iter()
        .map(|node| {
            pages_per_node
                .get(node)
                .copied()
                .unwrap_or(0)
                .min(fair_share)
        })
        .sum();
    as_requested as f64 / pages as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(u32, u64)]) -> BTreeMap<u32, u64> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn every_page_on_one_node_of_an_interleave_over_two_is_half_placed() {
        let all_on_0 = counts(&[(0, 100)]);
        assert_eq!(interleave_fraction(&all_on_0, 100, &[0, 1], 1), 0.5);
        assert_eq!(interleave_fraction(&all_on_0, 100, &[0, 1, 2, 3], 1), 0.25);
    }

    #[test]
    fn a_round_robin_split_is_fully_placed_even_when_uneven_by_a_page() {
        assert_eq!(
            interleave_fraction(&counts(&[(0, 50), (1, 50)]), 100, &[0, 1], 1),
            1.0
        );
        assert_eq!(
            interleave_fraction(&counts(&[(0, 2), (1, 1)]), 3, &[0, 1], 1),
            1.0
        );
        // 3 huge pages over two nodes: 2 + 1 of them is as even as it gets.
        assert_eq!(
            interleave_fraction(&counts(&[(0, 1024), (1, 512)]), 1536, &[0, 1], 512),
            1.0
        );
        let lopsided = interleave_fraction(&counts(&[(0, 60), (1, 40)]), 100, &[0, 1], 1);
        assert!((lopsided - 0.9).abs() < 1e-12, "{lopsided}");
    }

    #[test]
    fn pages_outside_the_set_or_not_present_are_misplaced() {
        let spread = counts(&[(0, 25), (1, 25), (2, 50)]);
        assert_eq!(interleave_fraction(&spread, 100, &[0, 1], 1), 0.5);
        assert_eq!(
            interleave_fraction(&counts(&[(0, 40), (1, 40)]), 100, &[0, 1], 1),
            0.8
        );
        assert_eq!(interleave_fraction(&BTreeMap::new(), 0, &[0, 1], 1), 0.0);
    }

    fn check(pages: u64, fraction: f64, threshold: f64) -> PlacementCheck {
        PlacementCheck {
            pages,
            pages_per_node: counts(&[(0, pages)]),
            fraction_as_requested: fraction,
            achieved: fraction >= threshold,
            huge_pages: None,
        }
    }

    /// Arrays at 100%, 90% and 100% averaged 96.7% and passed a 95%
    /// threshold; each array must pass on its own.
    #[test]
    fn one_misplaced_array_fails_the_whole_check() {
        let arrays = [
            check(100, 1.0, 0.95),
            check(100, 0.9, 0.95),
            check(100, 1.0, 0.95),
        ];
        let merged = PlacementCheck::all_of(&arrays);
        assert!(!merged.achieved);
        assert_eq!(merged.fraction_as_requested, 0.9);
        assert_eq!(merged.pages, 300);
        assert_eq!(merged.pages_per_node, counts(&[(0, 300)]));
        let all_good = PlacementCheck::all_of(&[check(10, 1.0, 0.95), check(30, 0.96, 0.95)]);
        assert!(all_good.achieved);
        assert_eq!(all_good.fraction_as_requested, 0.96);
        assert!(!PlacementCheck::all_of(&[]).achieved);
    }

    #[test]
    fn an_interleave_over_one_node_is_a_bind() {
        let mixed = counts(&[(0, 90), (1, 10)]);
        assert_eq!(interleave_fraction(&mixed, 100, &[0], 1), 0.9);
        assert_eq!(interleave_fraction(&mixed, 100, &[0, 0], 1), 0.9);
    }
}
