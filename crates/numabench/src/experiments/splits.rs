//! Node splits: the distinct ways to spread T worker threads over the
//! nodes with CPUs (the thesis compared 2/4/4/2 against 6/6 and inner
//! against outer nodes). A split is written threads per node in node
//! order, every node of the topology counted ("2/2/0/0"). Two splits are
//! the same experiment when a permutation of the nodes that preserves the
//! SLIT (and each node's number of allowed CPUs) maps one onto the other;
//! without a SLIT no two different splits are assumed alike.

use crate::bench::{NodeSplitsPlan, PlannedSplit, SkippedSplitPlan};
use crate::threads::CpuOrder;
use crate::topology::colours::{colour_of, refine};
use crate::topology::Machine;

/// How many candidate assignments the enumeration examines at most (a
/// machine with many symmetric nodes has a huge number of equivalent
/// ones); past it the enumeration stops and says so.
pub const MAX_CANDIDATES: usize = 20_000;

/// Equivalent splits remembered per distinct split (for `--plan`).
const EQUIVALENTS_KEPT: usize = 8;

/// A distinct split that fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSplit {
    /// Threads per node, in the topology's node order.
    pub threads_per_node: Vec<usize>,
    /// The workers' CPUs: per node in node order, cores first within it.
    pub cpus: Vec<u32>,
    /// Splits found equivalent to this one by SLIT symmetry (the first few).
    pub equivalent: Vec<Vec<usize>>,
    /// How many equivalent splits were found in all.
    pub equivalent_count: usize,
}

impl NodeSplit {
    /// "2/2/0/0".
    pub fn text(&self) -> String {
        split_text(&self.threads_per_node)
    }
}

/// A distinct split that does not fit, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedSplit {
    pub threads_per_node: Vec<usize>,
    pub reason: String,
}

/// The outcome of [`enumerate_node_splits`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitEnumeration {
    /// Distinct splits that fit, in order: all on one node, evenly over 2,
    /// 4, 8, ... nodes, evenly over other node counts, then uneven ones
    /// (fewer nodes first).
    pub splits: Vec<NodeSplit>,
    /// Distinct splits that were skipped (a node has fewer CPUs than its share).
    pub skipped: Vec<SkippedSplit>,
    /// True when the SLIT was used to deduplicate (false: no SLIT).
    pub symmetry_used: bool,
    /// True when the limit or [`MAX_CANDIDATES`] stopped the enumeration
    /// before every split was considered.
    pub truncated: bool,
}

impl SplitEnumeration {
    /// The listing of `--plan --json` (key `node_splits` beside the steps)
    /// for `threads` threads: each split with its CPUs and its equivalents,
    /// the skipped ones with why.
    pub fn plan(&self, threads: usize) -> NodeSplitsPlan {
        NodeSplitsPlan {
            threads,
            symmetry_used: self.symmetry_used,
            truncated: self.truncated,
            splits: self
                .splits
                .iter()
                .map(|split| PlannedSplit {
                    split: split.text(),
                    cpus: split.cpus.clone(),
                    equivalent: split.equivalent.iter().map(|s| split_text(s)).collect(),
                    equivalent_count: split.equivalent_count,
                })
                .collect(),
            skipped: self
                .skipped
                .iter()
                .map(|skipped| SkippedSplitPlan {
                    split: split_text(&skipped.threads_per_node),
                    reason: skipped.reason.clone(),
                })
                .collect(),
        }
    }
}

/// Threads per node written "a/b/c".
pub fn split_text(threads_per_node: &[usize]) -> String {
    threads_per_node
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join("/")
}

/// The split of a list of worker CPUs (threads per node of the topology,
/// in node order); `None` when a worker is unpinned or its CPU is in no node.
pub fn node_split_of_cpus(topology: &Machine, cpus: &[Option<u32>]) -> Option<String> {
    let mut counts = vec![0usize; topology.nodes.len()];
    for cpu in cpus {
        let node = topology.node_of_cpu((*cpu)?)?;
        let position = topology.nodes.iter().position(|info| info.index == node)?;
        counts[position] += 1;
    }
    Some(split_text(&counts))
}

/// The allowed CPUs of each node, cores first (one hardware thread of
/// every core before any sibling), in the topology's node order.
fn allowed_cpus_per_node(topology: &Machine) -> Vec<Vec<u32>> {
    topology
        .nodes
        .iter()
        .map(|node| CpuOrder::CoresFirst.arrange(topology, &node.cpus))
        .collect()
}

/// The first `threads` CPUs, cores first, of the node holding `cpu`, or
/// `Err(max)` with the most that node can take.
pub fn one_node_cpus(
    topology: &Machine,
    cpu: u32,
    threads: usize,
) -> Result<(u32, Vec<u32>), usize> {
    let node = topology.node_of_cpu(cpu).ok_or(0usize)?;
    let info = topology.node(node).ok_or(0usize)?;
    let cpus = CpuOrder::CoresFirst.arrange(topology, &info.cpus);
    if cpus.len() < threads {
        return Err(cpus.len());
    }
    Ok((node, cpus[..threads].to_vec()))
}

/// Each node's colour after refining (threads, allowed CPUs, self distance)
/// by the colours of the other nodes at each distance, as often as there
/// are nodes (colour refinement). Splits that a distance- and
/// capacity-preserving node permutation maps onto each other get the same
/// colours, permuted; so sorted colours that differ prove two splits
/// distinct without a search, and a search need only map nodes of equal
/// colour onto each other.
fn node_colours(distances: &[Vec<u64>], capacity: &[usize], split: &[usize]) -> Vec<u64> {
    let initial = (0..split.len())
        .map(|i| colour_of((split[i], capacity[i], distances[i][i])))
        .collect();
    refine(initial, |i, j| {
        colour_of((distances[i][j], distances[j][i]))
    })
}

/// The sorted node colours of a split: equal for equivalent splits.
fn signature(colours: &[u64]) -> Vec<u64> {
    let mut sorted = colours.to_vec();
    sorted.sort_unstable();
    sorted
}

/// Whether a node permutation preserving the distances and the allowed CPU
/// counts maps split `a` onto split `b` (backtracking over nodes of equal
/// colour, see [`node_colours`]).
fn equivalent(
    distances: &[Vec<u64>],
    capacity: &[usize],
    (a, colours_a): (&[usize], &[u64]),
    (b, colours_b): (&[usize], &[u64]),
) -> bool {
    if signature(colours_a) != signature(colours_b) {
        return false;
    }
    #[allow(clippy::too_many_arguments)]
    fn extend(
        position: usize,
        image: &mut Vec<usize>,
        used: &mut [bool],
        distances: &[Vec<u64>],
        capacity: &[usize],
        a: &[usize],
        b: &[usize],
        colours: (&[u64], &[u64]),
    ) -> bool {
        if position == a.len() {
            return true;
        }
        for target in 0..a.len() {
            if used[target]
                || a[position] != b[target]
                || colours.0[position] != colours.1[target]
                || capacity[position] != capacity[target]
                || distances[position][position] != distances[target][target]
                || !(0..position).all(|earlier| {
                    distances[earlier][position] == distances[image[earlier]][target]
                        && distances[position][earlier] == distances[target][image[earlier]]
                })
            {
                continue;
            }
            used[target] = true;
            image.push(target);
            if extend(
                position + 1,
                image,
                used,
                distances,
                capacity,
                a,
                b,
                colours,
            ) {
                return true;
            }
            image.pop();
            used[target] = false;
        }
        false
    }
    let mut used = vec![false; a.len()];
    extend(
        0,
        &mut Vec::new(),
        &mut used,
        distances,
        capacity,
        a,
        b,
        (colours_a, colours_b),
    )
}

/// Partitions of `total` into exactly `parts` parts, each at most `cap`,
/// non-increasing, in descending lexicographic order; no more than
/// [`MAX_CANDIDATES`] in `out` (a large T has astronomically many).
fn partitions(total: usize, parts: usize, cap: usize, out: &mut Vec<Vec<usize>>) {
    fn go(
        left: usize,
        parts: usize,
        cap: usize,
        prefix: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if out.len() >= MAX_CANDIDATES {
            return;
        }
        if parts == 0 {
            if left == 0 {
                out.push(prefix.clone());
            }
            return;
        }
        // Each remaining part is at least 1 and at most min(cap, left - (parts - 1)).
        if left < parts || left > parts * cap {
            return;
        }
        let highest = cap.min(left - (parts - 1));
        for part in (1..=highest).rev() {
            prefix.push(part);
            go(left - part, parts - 1, part, prefix, out);
            prefix.pop();
        }
    }
    go(total, parts, cap, &mut Vec::new(), out);
}

/// The next permutation in descending lexicographic order (`false` when
/// `values` was the last, ascending one).
fn previous_permutation(values: &mut [usize]) -> bool {
    let Some(pivot) = (1..values.len()).rev().find(|&i| values[i - 1] > values[i]) else {
        return false;
    };
    let pivot = pivot - 1;
    let swap = (pivot + 1..values.len())
        .rev()
        .find(|&i| values[i] < values[pivot])
        .expect("a smaller value follows the pivot");
    values.swap(pivot, swap);
    values[pivot + 1..].reverse();
    values[pivot + 1..].sort_unstable_by(|x, y| y.cmp(x));
    true
}

/// The distinct splits of `threads` threads over the nodes with allowed
/// CPUs, at most `max_splits` that fit (see [`SplitEnumeration`]).
pub fn enumerate_node_splits(
    topology: &Machine,
    threads: usize,
    max_splits: usize,
) -> SplitEnumeration {
    let per_node = allowed_cpus_per_node(topology);
    let capacity: Vec<usize> = per_node.iter().map(Vec::len).collect();
    let cpu_nodes: Vec<usize> = (0..capacity.len()).filter(|&i| capacity[i] > 0).collect();
    let count = cpu_nodes.len();
    let most = capacity.iter().copied().max().unwrap_or(0);
    // Shapes: even over 1, 2, 4, ... nodes, even over other counts, then the
    // uneven partitions whose parts could fit on some node, fewer nodes first.
    let mut shapes: Vec<Vec<usize>> = Vec::new();
    let mut even_counts: Vec<usize> = std::iter::successors(Some(1usize), |k| Some(k * 2))
        .take_while(|&k| k <= count)
        .collect();
    even_counts.extend((1..=count).filter(|k| !k.is_power_of_two()));
    for k in even_counts {
        if threads.is_multiple_of(k) && threads >= k {
            shapes.push(vec![threads / k; k]);
        }
    }
    for parts in 2..=count.min(threads) {
        let mut found = Vec::new();
        partitions(threads, parts, most, &mut found);
        shapes.extend(
            found
                .into_iter()
                .filter(|shape| shape.iter().any(|&p| p != shape[0])),
        );
        if shapes.len() >= MAX_CANDIDATES {
            break;
        }
    }
    let mut result = SplitEnumeration {
        splits: Vec::new(),
        skipped: Vec::new(),
        symmetry_used: topology.distances.is_some(),
        truncated: false,
    };
    let distances = topology.distances.clone();
    let mut candidates = 0usize;
    // The node colours of each kept and each skipped split, in their order.
    let mut kept_colours: Vec<Vec<u64>> = Vec::new();
    let mut skipped_colours: Vec<Vec<u64>> = Vec::new();
    'shapes: for shape in shapes {
        // The shape padded with zeros over the CPU nodes, walked through
        // its distinct arrangements.
        let mut arrangement = shape.clone();
        arrangement.resize(count, 0);
        arrangement.sort_unstable_by(|x, y| y.cmp(x));
        loop {
            if result.splits.len() >= max_splits || candidates >= MAX_CANDIDATES {
                result.truncated = true;
                break 'shapes;
            }
            candidates += 1;
            let mut split = vec![0usize; capacity.len()];
            for (slot, &node) in cpu_nodes.iter().enumerate() {
                split[node] = arrangement[slot];
            }
            let colours = distances
                .as_ref()
                .map(|matrix| node_colours(matrix, &capacity, &split))
                .unwrap_or_default();
            let same = |other: &[usize], other_colours: &[u64]| match &distances {
                Some(matrix) => equivalent(
                    matrix,
                    &capacity,
                    (&split, &colours),
                    (other, other_colours),
                ),
                None => split == other,
            };
            if let Some(known) = result
                .splits
                .iter_mut()
                .zip(&kept_colours)
                .find(|(known, known_colours)| same(&known.threads_per_node, known_colours))
                .map(|(known, _)| known)
            {
                if known.equivalent.len() < EQUIVALENTS_KEPT {
                    known.equivalent.push(split.clone());
                }
                known.equivalent_count += 1;
            } else if !result
                .skipped
                .iter()
                .zip(&skipped_colours)
                .any(|(known, known_colours)| same(&known.threads_per_node, known_colours))
            {
                match (0..split.len()).find(|&node| split[node] > capacity[node]) {
                    Some(node) => {
                        skipped_colours.push(colours.clone());
                        result.skipped.push(SkippedSplit {
                            reason: format!(
                                "node {} has {} allowed CPU(s) for {} threads",
                                topology.nodes[node].index, capacity[node], split[node]
                            ),
                            threads_per_node: split,
                        })
                    }
                    None => {
                        kept_colours.push(colours.clone());
                        result.splits.push(NodeSplit {
                            cpus: split
                                .iter()
                                .zip(&per_node)
                                .flat_map(|(&take, cpus)| cpus[..take].iter().copied())
                                .collect(),
                            threads_per_node: split,
                            equivalent: Vec::new(),
                            equivalent_count: 0,
                        })
                    }
                }
            }
            if !previous_permutation(&mut arrangement) {
                break;
            }
        }
    }
    result
}

#[cfg(test)]
#[path = "splits_tests.rs"]
mod tests;
