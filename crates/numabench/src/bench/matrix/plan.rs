//! The node matrices' plan: its `characterize` steps, the steps of its command,
//! and what `--plan` and a time budget read of its work ([`Planned`]).

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
    matrix_rows(topology, kind)
        .iter()
        .flat_map(|cpus| {
            d.memory
                .iter()
                .map(move |&node| working_set_for(topology, cpus, &[node]).bytes)
        })
        .max()
        .unwrap_or(d.dram)
}

/// `matrix-latency`: the whole matrix in one step.
pub(in crate::bench) fn characterize_latency(d: &Defaults, steps: &mut Steps) {
    steps.push(
        format!("latency matrix {}x{}", d.cpu_nodes.len(), d.memory.len()),
        MatrixWork {
            kind: MatrixKind::Latency,
            size: cell_working_set(d.topology, d, MatrixKind::Latency),
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
                size: cell_working_set(d.topology, d, MatrixKind::Bandwidth(mode)),
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
    pub fn latency_matrix(size: u64) -> Self {
        Self::of(
            "matrix-latency",
            "latency matrix".to_string(),
            MatrixWork {
                kind: MatrixKind::Latency,
                size,
                sample: None,
            },
        )
        .in_order(MATRIX_ORDER)
    }

    /// The bandwidth matrix in `mode`.
    pub fn bandwidth_matrix(mode: MatrixMode, size: u64) -> Self {
        Self::of(
            "matrix-bandwidth",
            format!("bandwidth matrix ({})", mode.name()),
            MatrixWork {
                kind: MatrixKind::Bandwidth(mode),
                size,
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

impl Planned for MatrixWork {
    fn facts(&self, topology: &Machine, _: &Context) -> Facts {
        let mem_nodes = memory_nodes(topology);
        let rows = matrix_rows(topology, self.kind);
        // Sampled: each row's cells of the classes' samples only.
        let sampled = self.sample.as_ref().map(MatrixSample::cells);
        let costs = cpu_nodes(topology)
            .iter()
            .zip(&rows)
            .map(|(node, cpus)| {
                let cells = sampled.as_ref().map_or(mem_nodes.len(), |cells| {
                    cells.iter().filter(|(row, _)| row == node).count()
                });
                row_cost(self.kind, self.size, cpus.len(), cells)
            })
            .collect();
        Facts::new(
            rows.iter().map(Vec::len).max().unwrap_or(0),
            rows.concat(),
            mem_nodes,
            vec![self.size],
            costs,
        )
    }

    fn sample_rule(&self) -> Option<String> {
        self.sample.as_ref().map(MatrixSample::rule)
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}

impl Planned for CpuRow {
    fn facts(&self, topology: &Machine, _: &Context) -> Facts {
        let mem_nodes = memory_nodes(topology);
        let cost = row_cost(self.kind, self.size, 1, mem_nodes.len());
        Facts::new(1, vec![self.cpu], mem_nodes, vec![self.size], vec![cost])
    }

    fn working_sets(&mut self) -> Vec<&mut u64> {
        vec![&mut self.size]
    }
}
