//! The node matrices' plan: its `characterize` steps, the steps of its command,
//! and what `--plan` and a time budget read of its work ([`Planned`]).

use super::cell_size::CellSize;
use super::measure::*;
use super::run::*;
use crate::bench::characterize::{Defaults, Steps};
use crate::bench::context::Context;
use crate::bench::estimate::Cost;
use crate::bench::placed::working_set_for;
use crate::bench::plan::Facts;
use crate::bench::step::{Planned, Step};
use crate::topology::Machine;
use crate::topology::{cpu_nodes, memory_nodes};

/// The DRAM working set of a matrix's cells: 4x the caches in front of
/// one row's CPUs and one memory node (the largest over the rows and
/// nodes), not of every CPU of the machine: a cell's threads are one
/// node's, and a one-thread chase through 4x every cache of a 24-node
/// server (1.9 GiB) cost 5 s a cell where 4x its own (68 MiB) measures
/// the same memory latency.
fn cell_working_set(topology: &Machine, d: &Defaults, kind: MatrixKind) -> u64 {
    rows_working_set(topology, &d.memory, kind).unwrap_or(d.dram)
}

/// The largest of [`working_set_for`] one row's CPUs and one of `memory`;
/// `None` where there is no row or no memory node.
fn rows_working_set(topology: &Machine, memory: &[u32], kind: MatrixKind) -> Option<u64> {
    matrix_rows(topology, kind)
        .iter()
        .flat_map(|cpus| {
            memory
                .iter()
                .map(move |&node| working_set_for(topology, cpus, &[node]).bytes)
        })
        .max()
}

/// The default working set of the `matrix` command's cells: as
/// `characterize`'s, 4x the caches in front of one row's CPUs and one
/// memory node (the largest over the rows and the memory nodes), at least
/// the DRAM floor; where there is no row, that of every allowed CPU.
pub fn matrix_cell_working_set(topology: &Machine, kind: MatrixKind) -> u64 {
    let memory = memory_nodes(topology);
    rows_working_set(topology, &memory, kind)
        .unwrap_or_else(|| working_set_for(topology, &topology.allowed.cpus, &memory).bytes)
}

/// `matrix-latency`: the whole matrix in one step.
pub(in crate::bench) fn characterize_latency(d: &Defaults, steps: &mut Steps) {
    steps.push(
        format!("latency matrix {}x{}", d.cpu_nodes.len(), d.memory.len()),
        MatrixWork {
            kind: MatrixKind::Latency,
            size: CellSize::Default(cell_working_set(d.topology, d, MatrixKind::Latency)),
            sample: None,
        },
        MATRIX_ORDER,
    );
}

/// `matrix-bandwidth`: the serial matrix, then the parallel one.
pub(in crate::bench) fn characterize_bandwidth(d: &Defaults, steps: &mut Steps) {
    for mode in [MatrixMode::Serial, MatrixMode::Parallel] {
        steps.push(
            format!("bandwidth matrix ({})", mode.name()),
            MatrixWork {
                kind: MatrixKind::Bandwidth(mode),
                size: CellSize::Default(cell_working_set(
                    d.topology,
                    d,
                    MatrixKind::Bandwidth(mode),
                )),
                sample: None,
            },
            MATRIX_ORDER,
        );
    }
}

impl Step {
    /// One row of a per-CPU matrix: one thread on `cpu`, memory on every
    /// memory node in turn, working set `size`.
    pub fn cpu_matrix_row(cpu: u32, kind: MatrixKind, size: u64) -> Self {
        let (benchmark, what) = match kind {
            MatrixKind::Latency => ("matrix-latency", "latency"),
            MatrixKind::Bandwidth(_) => ("matrix-bandwidth", "read bandwidth"),
        };
        Self::of(
            benchmark,
            format!("{what} matrix row of CPU {cpu}"),
            CpuRow { cpu, kind, size },
        )
        .in_order(MATRIX_ORDER)
    }

    /// The latency matrix, every CPU node x every memory node.
    pub fn latency_matrix(size: impl Into<CellSize>) -> Self {
        Self::of(
            "matrix-latency",
            "latency matrix".to_string(),
            MatrixWork {
                kind: MatrixKind::Latency,
                size: size.into(),
                sample: None,
            },
        )
        .in_order(MATRIX_ORDER)
    }

    /// The bandwidth matrix in `mode`.
    pub fn bandwidth_matrix(mode: MatrixMode, size: impl Into<CellSize>) -> Self {
        Self::of(
            "matrix-bandwidth",
            format!("bandwidth matrix ({})", mode.name()),
            MatrixWork {
                kind: MatrixKind::Bandwidth(mode),
                size: size.into(),
                sample: None,
            },
        )
        .in_order(MATRIX_ORDER)
    }
}

/// The CPUs of a matrix's rows, each row's in [`MATRIX_ORDER`].
fn matrix_rows(topology: &Machine, kind: MatrixKind) -> Vec<Vec<u32>> {
    let mode = match kind {
        MatrixKind::Latency => MatrixMode::Serial,
        MatrixKind::Bandwidth(mode) => mode,
    };
    cpu_nodes(topology)
        .into_iter()
        .filter_map(|node| matrix_cpus(topology, node, mode).ok())
        .collect()
}

/// One matrix row's cells: a chase, or a read by the row's threads, per
/// memory node.
fn row_cost(kind: MatrixKind, bytes: u64, threads: usize, count: usize) -> Cost {
    match kind {
        MatrixKind::Latency => Cost::Chase { bytes, count },
        MatrixKind::Bandwidth(_) => Cost::Stream {
            bytes,
            threads,
            count,
        },
    }
}

/// How much slower than local memory a row's CPUs reach `mem_node`, for
/// the estimate: the square root of the SLIT distance over the row's
/// local one (1 where the topology gives none), at most 4. Firmware's
/// distances overstate the latency ratio: 21 on two-socket Intel and 32 on
/// AMD are about 1.5-2x measured, where the plain ratio says 2.1 and 3.2;
/// the root says 1.45 and 1.8 (and 1.1 for a sub-NUMA cluster's 12).
fn slowdown(topology: &Machine, cpu_node: u32, mem_node: u32) -> f64 {
    match (
        topology.distance(cpu_node, mem_node),
        topology.distance(cpu_node, cpu_node),
    ) {
        (Some(distance), Some(local)) if local > 0 => {
            (distance as f64 / local as f64).sqrt().clamp(1.0, 4.0)
        }
        _ => 1.0,
    }
}

/// The costs of one row's `cells` (memory nodes): the local ones at the
/// rates measured on local memory, the others grouped by how much slower
/// they are ([`slowdown`]), so a remote cell is not costed at local rates.
fn row_costs(
    topology: &Machine,
    kind: MatrixKind,
    bytes: u64,
    cpu_node: u32,
    threads: usize,
    cells: &[u32],
) -> Vec<Cost> {
    let mut groups: Vec<(f64, usize)> = Vec::new();
    for &mem_node in cells {
        let factor = slowdown(topology, cpu_node, mem_node);
        match groups.iter_mut().find(|(f, _)| *f == factor) {
            Some((_, count)) => *count += 1,
            None => groups.push((factor, 1)),
        }
    }
    groups
        .into_iter()
        .map(|(factor, count)| match (factor > 1.0, kind) {
            (false, _) => row_cost(kind, bytes, threads, count),
            (true, MatrixKind::Latency) => Cost::RemoteChase {
                bytes,
                count,
                slowdown: factor,
            },
            (true, MatrixKind::Bandwidth(_)) => Cost::RemoteStream {
                bytes,
                threads,
                count,
                slowdown: factor,
            },
        })
        .collect()
}

impl Planned for MatrixWork {
    fn facts(&self, topology: &Machine, _: &Context) -> Facts {
        let mem_nodes = memory_nodes(topology);
        let rows = matrix_rows(topology, self.kind);
        // Sampled: each row's cells of the classes' samples only.
        let sampled = self.sample.as_ref().map(MatrixSample::cells);
        let costs = cpu_nodes(topology)
            .iter()
            .zip(&rows)
            .flat_map(|(&node, cpus)| {
                let cells: Vec<u32> = match &sampled {
                    Some(cells) => cells
                        .iter()
                        .filter(|(row, _)| *row == node)
                        .map(|&(_, mem)| mem)
                        .collect(),
                    None => mem_nodes.clone(),
                };
                row_costs(
                    topology,
                    self.kind,
                    self.size.bytes(),
                    node,
                    cpus.len(),
                    &cells,
                )
            })
            .collect();
        // A cell's caches: one row's CPUs', one node's memory-side cache.
        let per_cell = rows
            .iter()
            .flat_map(|cpus| {
                mem_nodes
                    .iter()
                    .map(move |&node| topology.cache_bytes_in_front(cpus, &[node]))
            })
            .max();
        Facts {
            caches_in_front: per_cell,
            ..Facts::new(
                rows.iter().map(Vec::len).max().unwrap_or(0),
                rows.concat(),
                mem_nodes,
                vec![self.size.bytes()],
                costs,
            )
        }
    }

    fn sample_rule(&self) -> Option<String> {
        self.sample.as_ref().map(MatrixSample::rule)
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![self.size.bytes_mut()]
    }
}

impl Planned for CpuRow {
    fn facts(&self, topology: &Machine, _: &Context) -> Facts {
        let mem_nodes = memory_nodes(topology);
        let costs = match topology.node_of_cpu(self.cpu) {
            Some(node) => row_costs(topology, self.kind, self.size, node, 1, &mem_nodes),
            None => vec![row_cost(self.kind, self.size, 1, mem_nodes.len())],
        };
        Facts::new(1, vec![self.cpu], mem_nodes, vec![self.size], costs)
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}
