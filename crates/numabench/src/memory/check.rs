//! How far a placement is from what was asked: the share of an
//! interleave's pages that sit on their fair share of nodes. The check's
//! data (`PlacementCheck`) is a wire type of the schema crate.

use std::collections::{BTreeMap, BTreeSet};

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

    #[test]
    fn an_interleave_over_one_node_is_a_bind() {
        let mixed = counts(&[(0, 90), (1, 10)]);
        assert_eq!(interleave_fraction(&mixed, 100, &[0], 1), 0.9);
        assert_eq!(interleave_fraction(&mixed, 100, &[0, 0], 1), 0.9);
    }
}
