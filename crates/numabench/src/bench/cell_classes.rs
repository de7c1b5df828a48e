//! Matrix cells by symmetry class: pairs (CPU node, memory node) that the
//! topology cannot tell apart — same SLIT distances both ways, same
//! package relation, same HMAT values, same CPU count and caches on the
//! CPU side, same kind, size and memory-side cache on the memory side —
//! found by colour refinement ([`crate::topology::colours`]). A budget
//! may measure each class at its representative and a few seeded random
//! members, and infer the rest, unless the members disagree (then the
//! class is measured in full: the firmware hid an asymmetry).

use crate::topology::colours::{colour_of, refine};
use crate::topology::Machine;
use serde::Serialize;

/// A matrix cell: (CPU node, memory node).
pub type Cell = (u32, u32);

/// Members drawn at random besides the representative, by default.
pub const CLASS_DRAWS: usize = 2;

/// Members that differ from their class's representative by more than
/// this fraction (of the representative's value) disagree: the class is
/// measured in full.
pub const CLASS_TOLERANCE: f64 = 0.10;

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
/// reserve a little on some nodes (node 0 most), so equal DIMMs never give
/// equal totals.
const SAME_SIZE_SHARE: f64 = 7.0 / 8.0;

/// A size group for each of `sizes` (in their order): sorted from the
/// largest, a size within [`SAME_SIZE_SHARE`] of its group's largest joins
/// it, else starts the next group; no memory is a group of its own (-1).
/// Groups, not fixed buckets: 188 and 193 GiB are one size wherever they
/// fall, where rounding a logarithm splits a pair straddling a boundary.
fn size_groups(sizes: &[u64]) -> Vec<i64> {
    let mut distinct: Vec<u64> = sizes.iter().copied().filter(|&size| size > 0).collect();
    distinct.sort_unstable_by(|a, b| b.cmp(a));
    distinct.dedup();
    let mut heads: Vec<u64> = Vec::new();
    for &size in &distinct {
        match heads.last() {
            Some(&head) if size as f64 >= head as f64 * SAME_SIZE_SHARE => {}
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

/// A small seeded generator (SplitMix64): the same seed draws the same
/// members on every machine and every run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The cells of `class` measured first: its representative, then `draws`
/// other members drawn without replacement with `seed` (the class's id
/// mixed in, so classes draw independently).
pub fn sample_of(class: &CellClass, seed: u64, draws: usize) -> Vec<Cell> {
    let mut rest: Vec<Cell> = class.cells[1..].to_vec();
    let mut rng = SplitMix(seed ^ colour_of(class.id));
    let mut sample = vec![class.cells[0]];
    for _ in 0..draws.min(rest.len()) {
        let pick = (rng.next() % rest.len() as u64) as usize;
        sample.push(rest.swap_remove(pick));
    }
    sample
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
    /// The sampled members disagreed beyond [`CLASS_TOLERANCE`], so every
    /// cell was measured.
    pub measured_in_full: bool,
}

/// Measures `classes` with `measure`: each class's [`sample_of`] first;
/// where a sampled member differs from the representative by more than
/// `tolerance` (a fraction of the representative), every other cell of the
/// class too (`measured_in_full`); else the unsampled cells are inferred
/// from the representative. With `full`, every cell is measured.
pub fn measure_classes<E>(
    classes: &[CellClass],
    seed: u64,
    draws: usize,
    tolerance: f64,
    full: bool,
    mut measure: impl FnMut(Cell, &CellClass) -> Result<Option<f64>, E>,
) -> Result<Vec<ClassOutcome>, E> {
    let mut outcomes = Vec::new();
    for class in classes {
        let sample = if full {
            class.cells.clone()
        } else {
            sample_of(class, seed, draws)
        };
        let mut figures: Vec<(Cell, Option<f64>)> = Vec::new();
        for &cell in &sample {
            figures.push((cell, measure(cell, class)?));
        }
        let representative = figures[0].1;
        let disagree = match representative {
            Some(reference) if reference != 0.0 => figures.iter().any(|(_, value)| {
                value.is_some_and(|v| ((v - reference) / reference).abs() > tolerance)
            }),
            _ => false,
        };
        let measured_in_full = disagree && !full;
        let mut cells = Vec::new();
        for &cell in &class.cells {
            if let Some(&(_, value)) = figures.iter().find(|(c, _)| *c == cell) {
                cells.push((cell, value, CellSource::Measured));
            } else if measured_in_full {
                cells.push((cell, measure(cell, class)?, CellSource::Measured));
            } else {
                cells.push((
                    cell,
                    representative,
                    CellSource::InferredFrom(class.cells[0]),
                ));
            }
        }
        outcomes.push(ClassOutcome {
            class: class.clone(),
            cells,
            measured_in_full,
        });
    }
    Ok(outcomes)
}

#[cfg(test)]
#[path = "cell_classes_tests.rs"]
mod tests;
