//! Matrix cells by symmetry class: pairs (CPU node, memory node) that the
//! topology cannot tell apart — same SLIT distances both ways, same
//! package relation, same HMAT values, same CPU count and caches on the
//! CPU side, same kind, size and memory-side cache on the memory side —
//! found by colour refinement ([`crate::topology::colours`]). A budget
//! may measure each class at its representative and about sqrt(n) seeded
//! random members (more where the budget leaves time), and infer the
//! rest, unless the members disagree beyond their own confidence
//! intervals: then the class's further members are measured, as far as
//! the budget allows (the firmware hid an asymmetry). Local cells (a
//! node's CPUs reading its own memory) are always measured: a slow node
//! shows there and nowhere else.

use crate::kernels::{mix, SplitMix64};
use crate::topology::colours::{colour_of, refine};
use crate::topology::Machine;
use serde::Serialize;

/// A matrix cell: (CPU node, memory node).
pub type Cell = (u32, u32);

/// The fewest members drawn at random besides the representative.
pub const CLASS_DRAWS: usize = 2;

/// The smallest disagreement between two members of a class that counts
/// (3%), whatever their confidence intervals: below it a difference is
/// not worth a finding.
pub const CLASS_TOLERANCE_FLOOR: f64 = 0.03;

/// Members drawn at random besides the representative of a class of `n`
/// cells, by default: about sqrt(n), at least [`CLASS_DRAWS`], at most
/// every other member; every member for a class of local cells.
pub fn default_draws(class: &CellClass) -> usize {
    let n = class.cells.len();
    if class.cells.iter().all(|(cpu, mem)| cpu == mem) {
        return n.saturating_sub(1);
    }
    ((n as f64).sqrt().ceil() as usize)
        .max(CLASS_DRAWS)
        .min(n.saturating_sub(1))
}

/// The tolerance two figures of a class are compared with: twice their
/// combined 95% intervals (relative), at least [`CLASS_TOLERANCE_FLOOR`].
pub fn tolerance(a: &Measured, b: &Measured) -> f64 {
    (2.0 * (a.ci95_rel.powi(2) + b.ci95_rel.powi(2)).sqrt()).max(CLASS_TOLERANCE_FLOOR)
}

/// A measured cell: its figure and the relative half-width of its 95%
/// interval (0 where unknown: the floor then decides).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub value: f64,
    pub ci95_rel: f64,
}

/// One class of cells the topology cannot tell apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellClass {
    /// Numbered from 0 in the order of their first cell (row by row).
    pub id: usize,
    /// Every cell of the class, row by row; the first is the representative.
    pub cells: Vec<Cell>,
}

/// The share of the largest size of a group that a node's memory may fall
/// short of and still count as the same size: the firmware and the kernel
/// reserve a little on some nodes (node 0 most, typically under 1-2% of a
/// server's node), so equal DIMMs never give equal totals; one DIMM of 12
/// missing (11/12) makes a size of its own.
const SAME_SIZE_SHARE: f64 = 31.0 / 32.0;

/// What a small node may fall short by and still count as the same size,
/// whatever its share: a guest of 512 MiB nodes shows 470 MiB on node 0.
const SAME_SIZE_BYTES: u64 = 256 << 20;

/// A size group for each of `sizes` (in their order): sorted from the
/// largest, a size within [`SAME_SIZE_SHARE`] (or [`SAME_SIZE_BYTES`]) of
/// its group's largest joins it, else starts the next group; no memory is
/// a group of its own (-1). Groups, not fixed buckets: 188 and 193 GiB are
/// one size wherever they fall, where rounding a logarithm splits a pair
/// straddling a boundary.
fn size_groups(sizes: &[u64]) -> Vec<i64> {
    let mut distinct: Vec<u64> = sizes.iter().copied().filter(|&size| size > 0).collect();
    distinct.sort_unstable_by(|a, b| b.cmp(a));
    distinct.dedup();
    let same = |size: u64, head: u64| {
        size as f64 >= head as f64 * SAME_SIZE_SHARE || head - size <= SAME_SIZE_BYTES
    };
    let mut heads: Vec<u64> = Vec::new();
    for &size in &distinct {
        match heads.last() {
            Some(&head) if same(size, head) => {}
            _ => heads.push(size),
        }
    }
    sizes
        .iter()
        .map(|&size| match size {
            0 => -1,
            // The group whose head is the smallest head at or above it.
            _ => heads.iter().rposition(|&head| head >= size).unwrap_or(0) as i64,
        })
        .collect()
}

/// Each node's colour (by position in `topology.nodes`) after refinement.
fn node_colours(topology: &Machine) -> Vec<u64> {
    let nodes = &topology.nodes;
    let sizes: Vec<u64> = nodes.iter().map(|node| node.memory_total_bytes).collect();
    let groups = size_groups(&sizes);
    let initial = nodes
        .iter()
        .zip(groups)
        .map(|(node, group)| {
            colour_of((
                node.cpus.len(),
                topology.cpu_cache_bytes(&node.cpus),
                node.cpuless,
                &node.kind,
                group,
                topology.memory_side_cache_bytes(&[node.index]),
            ))
        })
        .collect();
    refine(initial, |i, j| edge(topology, i, j))
}

/// What relates node `i` to node `j` (positions): distances both ways,
/// whether they share a package, and the HMAT values from `i`'s CPUs to
/// `j`'s memory.
fn edge(topology: &Machine, i: usize, j: usize) -> u64 {
    let nodes = &topology.nodes;
    let distance = |a: usize, b: usize| {
        topology
            .distances
            .as_ref()
            .and_then(|rows| rows.get(a).and_then(|row| row.get(b)).copied())
    };
    let same_package = nodes[i].package.is_some() && nodes[i].package == nodes[j].package;
    let mut declared: Vec<(&str, u64)> = topology
        .memory_attributes
        .iter()
        .filter(|value| {
            value.initiator_node == Some(nodes[i].index) && value.target_node == nodes[j].index
        })
        .map(|value| (value.name.as_str(), value.value))
        .collect();
    declared.sort_unstable();
    colour_of((distance(i, j), distance(j, i), same_package, declared))
}

/// The classes of the cells `rows` x `columns` (CPU nodes x memory nodes,
/// OS indexes), each class's cells row by row.
pub fn cell_classes(topology: &Machine, rows: &[u32], columns: &[u32]) -> Vec<CellClass> {
    let colours = node_colours(topology);
    let position = |node: u32| topology.nodes.iter().position(|info| info.index == node);
    let mut classes: Vec<(u64, CellClass)> = Vec::new();
    for &row in rows {
        for &column in columns {
            let (Some(i), Some(j)) = (position(row), position(column)) else {
                continue;
            };
            let colour = colour_of((
                colours[i],
                colours[j],
                edge(topology, i, j),
                edge(topology, j, i),
                i == j,
            ));
            match classes.iter_mut().find(|(c, _)| *c == colour) {
                Some((_, class)) => class.cells.push((row, column)),
                None => {
                    let id = classes.len();
                    classes.push((
                        colour,
                        CellClass {
                            id,
                            cells: vec![(row, column)],
                        },
                    ));
                }
            }
        }
    }
    classes.into_iter().map(|(_, class)| class).collect()
}

/// Every cell of `class` in the order a sample takes them: its
/// representative, then the other members shuffled with `seed` (the
/// class's id mixed in, so classes draw independently). Stable across
/// builds and machines ([`SplitMix64`]).
pub fn member_order(class: &CellClass, seed: u64) -> Vec<Cell> {
    let mut rest: Vec<Cell> = class.cells[1..].to_vec();
    let mut rng = SplitMix64::new(mix(seed ^ mix(class.id as u64)));
    rng.shuffle(&mut rest);
    let mut order = vec![class.cells[0]];
    order.extend(rest);
    order
}

/// The cells of `class` measured first: its representative, then `draws`
/// other members drawn without replacement with `seed`
/// ([`member_order`]'s first ones).
pub fn sample_of(class: &CellClass, seed: u64, draws: usize) -> Vec<Cell> {
    let mut order = member_order(class, seed);
    order.truncate(draws + 1);
    order
}

/// Where a cell's figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CellSource {
    /// Measured.
    Measured,
    /// Not measured: the figure of this cell (its class's representative).
    InferredFrom(Cell),
}

/// What the sampler did with one class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassOutcome {
    pub class: CellClass,
    /// Every cell of the class, its figure (`None`: not measured, e.g.
    /// interrupted) and where it came from.
    pub cells: Vec<(Cell, Option<f64>, CellSource)>,
    /// Sampled members differed from the representative beyond their
    /// [`tolerance`].
    pub disagreed: bool,
    /// Every cell was measured.
    pub measured_in_full: bool,
    /// Cells of a class that disagreed left unmeasured: the allowance for
    /// further members ran out (inferred, and said so).
    pub unfinished: usize,
}

/// How a matrix is sampled: the seed of the draws, the members drawn
/// besides each class's representative (one count per class), and how
/// many further cells the classes that disagree may measure together.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplePlan {
    pub seed: u64,
    pub draws: Vec<usize>,
    /// Further cells for classes whose sample disagreed, all classes
    /// together (the budget's remainder); `usize::MAX`: no limit.
    pub allowance: usize,
}

/// Measures `classes` with `measure`: each class's sample first (its
/// representative and `plan.draws` members); where a sampled member
/// differs from the representative beyond their [`tolerance`], the
/// class's further members in [`member_order`], while `plan.allowance`
/// lasts; the cells not measured are inferred from the representative.
/// With `full`, every cell is measured.
pub fn measure_classes<E>(
    classes: &[CellClass],
    plan: &SamplePlan,
    full: bool,
    mut measure: impl FnMut(Cell, &CellClass) -> Result<Option<Measured>, E>,
) -> Result<Vec<ClassOutcome>, E> {
    let mut outcomes = Vec::new();
    let mut allowance = plan.allowance;
    for (index, class) in classes.iter().enumerate() {
        let order = member_order(class, plan.seed);
        let draws = match full {
            true => class.cells.len(),
            false => plan.draws.get(index).copied().unwrap_or(CLASS_DRAWS) + 1,
        };
        let mut figures: Vec<(Cell, Option<Measured>)> = Vec::new();
        for &cell in order.iter().take(draws) {
            figures.push((cell, measure(cell, class)?));
        }
        let representative = figures[0].1;
        let disagree = |figures: &[(Cell, Option<Measured>)]| match representative {
            Some(reference) if reference.value != 0.0 => figures.iter().any(|(_, figure)| {
                figure.is_some_and(|figure| {
                    ((figure.value - reference.value) / reference.value).abs()
                        > tolerance(&reference, &figure)
                })
            }),
            _ => false,
        };
        let disagreed = disagree(&figures);
        if disagreed && !full {
            for &cell in order.iter().skip(figures.len()) {
                if allowance == 0 {
                    break;
                }
                allowance -= 1;
                figures.push((cell, measure(cell, class)?));
            }
        }
        let unfinished = class.cells.len() - figures.len();
        let mut cells = Vec::new();
        for &cell in &class.cells {
            if let Some(&(_, figure)) = figures.iter().find(|(c, _)| *c == cell) {
                cells.push((cell, figure.map(|f| f.value), CellSource::Measured));
            } else {
                cells.push((
                    cell,
                    representative.map(|f| f.value),
                    CellSource::InferredFrom(class.cells[0]),
                ));
            }
        }
        outcomes.push(ClassOutcome {
            class: class.clone(),
            cells,
            disagreed,
            measured_in_full: unfinished == 0,
            unfinished: if disagreed { unfinished } else { 0 },
        });
    }
    Ok(outcomes)
}

#[cfg(test)]
#[path = "cell_classes_tests.rs"]
mod tests;
