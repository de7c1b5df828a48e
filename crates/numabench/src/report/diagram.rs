//! The node diagram of a `topo --json` document: each package a box holding
//! its NUMA nodes, each node a box with its CPUs, its memory and its row of
//! distances; CPU-less (memory-only) nodes drawn apart (orange outline,
//! white fill, "memory only"), so they read in greyscale too. Drawn with
//! plotters' drawing primitives (rectangles and text).

use super::html;
use crate::parse::format_id_list;
use crate::topology::Machine;
use plotters::prelude::*;
use plotters::style::FontStyle;

/// One node as the diagram shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeBox {
    pub index: u64,
    /// CPU list text (`0-1`, `0,2,5`); empty for a CPU-less node.
    pub cpus: String,
    pub cpu_count: usize,
    /// Memory size text (`458.1 MiB`), empty when unknown.
    pub memory: String,
    /// The CPUs nearest a CPU-less node's memory (its HMAT initiators).
    pub near_cpus: String,
    /// Its row of the distance matrix.
    pub distances: Vec<u64>,
}

impl NodeBox {
    pub fn cpuless(&self) -> bool {
        self.cpu_count == 0
    }
}

/// A package (or `None`: not known) and its nodes, in node order.
pub type PackageBox = (Option<u64>, Vec<NodeBox>);

/// CPU numbers as a set of ranges (`0-3,6`).
pub fn cpu_ranges(cpus: &[u32]) -> String {
    format_id_list(cpus)
}

/// The packages and their nodes of a `topo --json` document (packages in
/// index order, unknown last); None when it lists no nodes.
pub fn package_boxes(t: &Machine) -> Option<Vec<PackageBox>> {
    if t.nodes.is_empty() {
        return None;
    }
    let mut packages: Vec<PackageBox> = Vec::new();
    for (position, node) in t.nodes.iter().enumerate() {
        let boxed = NodeBox {
            index: u64::from(node.index),
            cpus: cpu_ranges(&node.cpus),
            cpu_count: node.cpus.len(),
            memory: html::bytes(node.memory_total_bytes as f64),
            near_cpus: cpu_ranges(&node.locality_cpus),
            distances: t
                .distances
                .as_ref()
                .and_then(|rows| rows.get(position))
                .cloned()
                .unwrap_or_default(),
        };
        let package = node.package.map(u64::from);
        match packages.iter_mut().find(|(p, _)| *p == package) {
            Some((_, list)) => list.push(boxed),
            None => packages.push((package, vec![boxed])),
        }
    }
    packages.sort_by_key(|(p, _)| p.unwrap_or(u64::MAX));
    Some(packages)
}

const NODE_WIDTH: i32 = 200;
const NODE_HEIGHT: i32 = 84;
const GAP: i32 = 14;
const TITLE: i32 = 28;

/// The diagram as inline SVG, or None when the document lists no nodes.
pub fn node_diagram(t: &Machine) -> Option<String> {
    let packages = package_boxes(t)?;
    let tallest = packages.iter().map(|(_, n)| n.len()).max().unwrap_or(1) as i32;
    let width = GAP + packages.len() as i32 * (NODE_WIDTH + 3 * GAP);
    let height = TITLE + GAP + tallest * (NODE_HEIGHT + GAP) + GAP;
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (width as u32, height as u32)).into_drawing_area();
        draw(&root, &packages).ok()?;
        root.present().ok()?;
    }
    Some(svg)
}

fn draw(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    packages: &[PackageBox],
) -> Result<(), Box<dyn std::error::Error>> {
    root.fill(&WHITE)?;
    let text = |size: f64| ("sans-serif", size).into_font().color(&BLACK);
    let bold = ("sans-serif", 14.0)
        .into_font()
        .style(FontStyle::Bold)
        .color(&BLACK);
    let cpu_fill = RGBColor(86, 180, 233).mix(0.25);
    let orange = RGBColor(213, 94, 0);
    for (column, (package, nodes)) in packages.iter().enumerate() {
        let x = GAP + column as i32 * (NODE_WIDTH + 3 * GAP);
        let bottom = TITLE + GAP + nodes.len() as i32 * (NODE_HEIGHT + GAP);
        root.draw(&Rectangle::new(
            [(x, 4), (x + NODE_WIDTH + 2 * GAP, bottom)],
            ShapeStyle::from(&RGBColor(90, 90, 90)).stroke_width(1),
        ))?;
        let name = package.map_or_else(|| "package ?".to_string(), |p| format!("package {p}"));
        root.draw(&Text::new(name, (x + 8, 10), text(13.0)))?;
        for (row, node) in nodes.iter().enumerate() {
            let top = TITLE + GAP + row as i32 * (NODE_HEIGHT + GAP);
            let left = x + GAP;
            let corner = [(left, top), (left + NODE_WIDTH, top + NODE_HEIGHT)];
            if node.cpuless() {
                root.draw(&Rectangle::new(corner, WHITE.filled()))?;
                root.draw(&Rectangle::new(
                    corner,
                    ShapeStyle::from(&orange).stroke_width(3),
                ))?;
            } else {
                root.draw(&Rectangle::new(corner, cpu_fill.filled()))?;
                root.draw(&Rectangle::new(
                    corner,
                    ShapeStyle::from(&BLACK).stroke_width(1),
                ))?;
            }
            let title = if node.cpuless() {
                format!("NUMA node {}: memory only", node.index)
            } else {
                format!("NUMA node {}", node.index)
            };
            root.draw(&Text::new(title, (left + 8, top + 6), bold.clone()))?;
            let cpus = if node.cpuless() {
                match node.near_cpus.is_empty() {
                    true => "CPU-less".to_string(),
                    false => format!("CPU-less, near CPUs {}", node.near_cpus),
                }
            } else {
                format!("CPUs {} ({})", node.cpus, node.cpu_count)
            };
            let memory = match node.memory.is_empty() {
                true => "memory ?".to_string(),
                false => format!("memory {}", node.memory),
            };
            let distances = match node.distances.is_empty() {
                true => String::new(),
                false => format!(
                    "distances {}",
                    node.distances
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            };
            for (k, line) in [cpus, memory, distances].into_iter().enumerate() {
                root.draw(&Text::new(
                    line,
                    (left + 8, top + 27 + 17 * k as i32),
                    text(12.0),
                ))?;
            }
        }
    }
    Ok(())
}

/// The diagram's data as a table: one row per node.
pub fn diagram_table(packages: &[PackageBox]) -> html::Table {
    let mut table = html::Table::new(&["package", "node", "CPUs", "memory", "distances"]);
    for (package, nodes) in packages {
        for node in nodes {
            table.push(vec![
                package.map_or_else(|| "?".to_string(), |p| p.to_string()),
                node.index.to_string(),
                if node.cpuless() {
                    "none (memory only)".to_string()
                } else {
                    node.cpus.clone()
                },
                node.memory.clone(),
                node.distances
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(" "),
            ]);
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three packages of one node each, and a CPU-less node 3 in package 1
    /// near CPUs 2-3, with asymmetric distances.
    fn four_nodes() -> Machine {
        let mut t = crate::topology::synthetic("pack:3 [numa(memory=1GiB)] core:2 pu:1");
        let mut cpuless = t.nodes[1].clone();
        cpuless.index = 3;
        cpuless.cpus.clear();
        cpuless.cpuless = true;
        cpuless.locality_cpus = vec![2, 3];
        t.nodes.push(cpuless);
        t.distances = Some(vec![
            vec![10, 21, 31, 32],
            vec![24, 10, 21, 17],
            vec![31, 24, 10, 28],
            vec![32, 17, 28, 10],
        ]);
        t
    }

    #[test]
    fn nodes_are_grouped_by_package_with_their_distances() {
        let packages = package_boxes(&four_nodes()).unwrap();
        let shape: Vec<(Option<u64>, Vec<u64>)> = packages
            .iter()
            .map(|(p, nodes)| (*p, nodes.iter().map(|n| n.index).collect()))
            .collect();
        assert_eq!(
            shape,
            [
                (Some(0), vec![0]),
                (Some(1), vec![1, 3]),
                (Some(2), vec![2])
            ]
        );
        let cpuless = &packages[1].1[1];
        assert!(cpuless.cpuless());
        assert_eq!(cpuless.near_cpus, "2-3");
        assert_eq!(cpuless.distances, [32, 17, 28, 10]);
        assert_eq!(packages[0].1[0].memory, "1 GiB");
        assert_eq!(packages[0].1[0].cpus, "0-1");
        assert_eq!(cpu_ranges(&[5, 0, 1, 2, 7]), "0-2,5,7");
        let mut no_nodes = four_nodes();
        no_nodes.nodes.clear();
        assert!(package_boxes(&no_nodes).is_none());
    }

    #[test]
    fn the_diagram_draws_every_node_and_marks_the_cpuless_one() {
        let svg = node_diagram(&four_nodes()).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        for node in 0..4 {
            assert!(svg.contains(&format!("node {node}")), "node {node}: {svg}");
        }
        assert_eq!(svg.matches("memory only").count(), 1, "{svg}");
        assert_eq!(svg.matches("package ").count(), 3, "{svg}");
        assert!(svg.contains("distances 32 17 28 10"), "{svg}");
        let table = diagram_table(&package_boxes(&four_nodes()).unwrap());
        assert_eq!(table.rows.len(), 4);
    }
}
