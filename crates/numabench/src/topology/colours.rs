//! Colour refinement (1-dimensional Weisfeiler-Leman): items that no
//! label-preserving permutation of the topology can tell apart end with
//! the same colour. Node splits (`experiments::splits`) and the classes of matrix
//! cells (`bench::cell_classes`) both refine node colours with it.

use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};

/// A stable hash of `value` (the same within one build of numabench).
pub fn colour_of(value: impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// Refines `initial` colours (one per item): each round an item's colour
/// becomes its own colour with the sorted multiset of (`edge(i, j)`,
/// colour of `j`) over every other item `j`, until the number of colours
/// stops growing (at most one round per item). Items a permutation that
/// keeps the initial colours and the edge labels maps onto each other end
/// with equal colours.
pub fn refine(initial: Vec<u64>, edge: impl Fn(usize, usize) -> u64) -> Vec<u64> {
    let count = initial.len();
    let classes = |colours: &[u64]| colours.iter().collect::<BTreeSet<_>>().len();
    let mut colours = initial;
    for _ in 0..count {
        let refined: Vec<u64> = (0..count)
            .map(|i| {
                let mut around: Vec<(u64, u64)> = (0..count)
                    .filter(|&j| j != i)
                    .map(|j| (edge(i, j), colours[j]))
                    .collect();
                around.sort_unstable();
                colour_of((colours[i], &around))
            })
            .collect();
        let stable = classes(&refined) == classes(&colours);
        colours = refined;
        if stable {
            break;
        }
    }
    colours
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path a-b-c: the two ends share a colour, the middle has its own;
    /// a cycle of four: one colour.
    #[test]
    fn ends_of_a_path_match_and_a_cycle_is_one_class() {
        let path = [[0, 1, 0], [1, 0, 1], [0, 1, 0]];
        let colours = refine(vec![0; 3], |i, j| path[i][j]);
        assert_eq!(colours[0], colours[2]);
        assert_ne!(colours[0], colours[1]);
        let cycle = [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]];
        let colours = refine(vec![0; 4], |i, j| cycle[i][j]);
        assert!(colours.iter().all(|&c| c == colours[0]));
    }
}
