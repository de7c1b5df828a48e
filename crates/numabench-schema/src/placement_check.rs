//! What a placement check found: where a buffer's pages are against where
//! they were asked to be, and how much of it got huge pages. Records carry
//! these as `placement.verified` (`docs/results.md`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The outcome of asking the kernel where a buffer's pages are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// Where the pages were when the measurement ended, present only when
    /// the kernel moved some of them while it ran (demotion to a slower
    /// tier, promotion, NUMA balancing): the figure then measured a
    /// placement that changed under it, and `achieved` is false when what
    /// was left no longer passes the threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<MovedPages>,
}

/// The pages of a buffer after its measurement, when some had moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MovedPages {
    /// Pages that left their node: over the nodes, the pages each lost.
    pub pages: u64,
    /// Pages on each node afterwards, keyed by node index.
    pub pages_per_node: BTreeMap<u32, u64>,
    /// Fraction of pages where they were asked to be, afterwards.
    pub fraction_as_requested: f64,
}

impl MovedPages {
    /// What moved between two per-node counts of one buffer's pages
    /// (`None` when no node lost a page).
    pub fn between(
        before: &BTreeMap<u32, u64>,
        after: &BTreeMap<u32, u64>,
        fraction_as_requested: f64,
    ) -> Option<Self> {
        let pages: u64 = before
            .iter()
            .map(|(node, count)| count.saturating_sub(after.get(node).copied().unwrap_or(0)))
            .sum();
        (pages > 0).then(|| Self {
            pages,
            pages_per_node: after.clone(),
            fraction_as_requested,
        })
    }
}

/// How much of a buffer really got huge pages (`/proc/self/smaps`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// A `fraction_as_requested`: `as_requested` pages of `pages` (0 for
    /// no pages: nothing was placed as requested).
    pub fn fraction(as_requested: f64, pages: u64) -> f64 {
        if pages == 0 {
            0.0
        } else {
            as_requested / pages as f64
        }
    }

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
        let moved = checks.iter().any(|check| check.moved.is_some()).then(|| {
            let mut after = BTreeMap::new();
            for check in checks {
                let counts = check
                    .moved
                    .as_ref()
                    .map_or(&check.pages_per_node, |moved| &moved.pages_per_node);
                for (node, count) in counts {
                    *after.entry(*node).or_insert(0) += count;
                }
            }
            MovedPages {
                pages: checks
                    .iter()
                    .filter_map(|check| check.moved.as_ref())
                    .map(|moved| moved.pages)
                    .sum(),
                pages_per_node: after,
                fraction_as_requested: checks
                    .iter()
                    .map(|check| {
                        check
                            .moved
                            .as_ref()
                            .map_or(check.fraction_as_requested, |moved| {
                                moved.fraction_as_requested
                            })
                    })
                    .reduce(f64::min)
                    .unwrap_or(0.0),
            }
        });
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
            moved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(u32, u64)]) -> BTreeMap<u32, u64> {
        pairs.iter().copied().collect()
    }

    fn check(pages: u64, fraction: f64, threshold: f64) -> PlacementCheck {
        PlacementCheck {
            pages,
            pages_per_node: counts(&[(0, pages)]),
            fraction_as_requested: fraction,
            achieved: fraction >= threshold,
            huge_pages: None,
            moved: None,
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
        assert!(all_good.moved.is_none());
    }

    #[test]
    fn pages_that_left_their_node_are_counted_once() {
        let before = counts(&[(0, 100)]);
        let after = counts(&[(0, 40), (2, 60)]);
        let moved = MovedPages::between(&before, &after, 0.4).unwrap();
        assert_eq!(moved.pages, 60);
        assert_eq!(moved.pages_per_node, after);
        assert!(MovedPages::between(&before, &before, 1.0).is_none());
        // Several arrays: the moved one's pages afterwards, the others' as checked.
        let mut array = check(100, 1.0, 0.95);
        array.moved = Some(moved);
        let merged = PlacementCheck::all_of(&[array, check(100, 1.0, 0.95)]);
        let moved = merged.moved.unwrap();
        assert_eq!(moved.pages, 60);
        assert_eq!(moved.pages_per_node, counts(&[(0, 140), (2, 60)]));
        assert_eq!(moved.fraction_as_requested, 0.4);
    }
}
