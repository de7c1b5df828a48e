//! `matrix latency` and `matrix bandwidth`: a thread on each CPU node with
//! memory on each memory node (CPU-less ones included as targets).

use super::cell_size::CellSize;
use crate::bench::bandwidth::{run_bandwidth, BandwidthConfig};
use crate::bench::cell_classes::{
    cell_classes, default_draws, measure_classes, sample_of, Cell, CellClass, CellSource,
    ClassOutcome, Measured, SamplePlan, CLASS_TOLERANCE_FLOOR,
};
use crate::bench::context::Context;
use crate::bench::declared::{declared, Declared};
use crate::bench::error::BenchError;
use crate::bench::latency::{emit_latency, measure_latency, LatencyConfig};
use crate::bench::placed::{cpus_of_node, working_set_params};
use crate::interrupt::interrupted;
use crate::kernels::{kernel_by_name, ChaseOrder};
use crate::memory::MemoryPlacement;
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::threads::CpuOrder;
use crate::topology::Machine;
use crate::topology::{cpu_nodes, memory_nodes};
use numabench_schema::params::{
    to_params, CellFigure, CellRef, InferredCellParams, MatrixAsymmetryParams, MatrixCellParams,
};

/// Rows are CPU nodes (or CPUs, `matrix ... --per-cpu`), columns memory
/// nodes; `None` where not measured (interrupted).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeMatrix {
    /// What a row is: `CPU node`, or `CPU`.
    pub row_name: &'static str,
    /// The row keys (CPU nodes or CPUs), in order.
    pub rows: Vec<u32>,
    pub memory_nodes: Vec<u32>,
    pub values: Vec<Vec<Option<f64>>>,
    pub unit: &'static str,
    /// (row, column) positions whose figure was inferred, not measured
    /// (a sampled matrix): rendered with `*` and a footnote.
    pub inferred: Vec<(usize, usize)>,
}

impl NodeMatrix {
    /// The rows of `other` (same columns) after this matrix's, so a
    /// per-CPU matrix measured row by row is printed whole.
    pub fn append(&mut self, other: NodeMatrix) {
        let offset = self.rows.len();
        self.rows.extend(other.rows);
        self.values.extend(other.values);
        self.inferred.extend(
            other
                .inferred
                .into_iter()
                .map(|(row, column)| (row + offset, column)),
        );
    }

    /// The matrix as text: rows down, memory nodes across.
    pub fn render(&self, title: &str) -> String {
        let mut out = format!(
            "{title} ({}), {} down, memory node across:\n",
            self.unit, self.row_name
        );
        out.push_str(&format!("{:>8}", "cpu\\mem"));
        for node in &self.memory_nodes {
            out.push_str(&format!("{node:>10}"));
        }
        out.push('\n');
        for (index, (row, key)) in self.values.iter().zip(&self.rows).enumerate() {
            out.push_str(&format!("{key:>8}"));
            for (column, value) in row.iter().enumerate() {
                let mut cell = value.map_or("-".to_string(), crate::units::format_value);
                if self.inferred.contains(&(index, column)) {
                    cell.push('*');
                }
                out.push_str(&format!("{cell:>10}"));
            }
            out.push('\n');
        }
        if !self.inferred.is_empty() {
            let cells = self.values.iter().map(Vec::len).sum::<usize>();
            out.push_str(&crate::output::tables::inferred_note(
                self.inferred.len(),
                cells,
            ));
            out.push('\n');
        }
        out
    }
}

/// The order a node's measuring CPUs are taken in: tree order, so one
/// thread runs on the node's first CPU of the object tree.
pub const MATRIX_ORDER: CpuOrder = CpuOrder::Compact;

/// The CPUs of `cpu_node` that measure in `mode`: the first of the node in
/// [`MATRIX_ORDER`] (serial, and the latency matrix), or all of its allowed
/// CPUs in that order (parallel).
pub fn matrix_cpus(
    topology: &Machine,
    cpu_node: u32,
    mode: MatrixMode,
) -> Result<Vec<u32>, BenchError> {
    let mut cpus = MATRIX_ORDER.arrange(topology, &cpus_of_node(topology, cpu_node)?);
    if mode == MatrixMode::Serial {
        cpus.truncate(1);
    }
    Ok(cpus)
}

/// How many threads read in `matrix bandwidth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixMode {
    /// One thread (the CPU node's first allowed CPU in [`MATRIX_ORDER`]).
    Serial,
    /// Every allowed CPU of the CPU node at once, in [`MATRIX_ORDER`].
    Parallel,
}

impl MatrixMode {
    pub fn name(self) -> &'static str {
        match self {
            MatrixMode::Serial => "serial",
            MatrixMode::Parallel => "parallel",
        }
    }
}

/// What a matrix cell measures: idle latency (one thread), or read
/// bandwidth of the row's threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixKind {
    Latency,
    Bandwidth(MatrixMode),
}

/// One row of a grid: its key, the CPUs that measure, and the params
/// every cell of the row records (`cpu_node`; a per-CPU row's `per_cpu`
/// and `cpu` before it).
struct GridRow {
    key: u32,
    cpus: Vec<u32>,
    labels: MatrixCellParams,
}

/// A sampled matrix's labels of a cell: measured or inferred, its class
/// and the class's size.
#[derive(Clone, Copy)]
struct ClassLabels<'a> {
    cell: &'a str,
    class: &'a CellClass,
}

/// The params of one cell's record, measured or inferred: the row's
/// params, the class's, `mem_node`, `cpu_order`, the cell's SLIT distance
/// and the firmware's declared values, and for bandwidth `mode`.
fn cell_labels(
    context: &Context,
    row: &GridRow,
    memory_node: u32,
    kind: MatrixKind,
    class: Option<ClassLabels>,
) -> MatrixCellParams {
    let topology = &context.topology;
    let (mode, declared) = match kind {
        MatrixKind::Latency => (
            None,
            declared(topology, Declared::Latency, &row.cpus[..1], memory_node),
        ),
        MatrixKind::Bandwidth(mode) => (
            Some(mode.name().to_string()),
            declared(topology, Declared::Bandwidth, &row.cpus, memory_node),
        ),
    };
    MatrixCellParams {
        cell: class.map(|class| class.cell.to_string()),
        cell_class: class.map(|class| class.class.id as u64),
        class_cells: class.map(|class| class.class.cells.len() as u64),
        mem_node: Some(memory_node),
        cpu_order: Some(MATRIX_ORDER.name().to_string()),
        slit_distance: row_distance(topology, &row.cpus, memory_node),
        mode,
        declared,
        ..row.labels.clone()
    }
}

/// One cell: `row`'s CPUs against memory bound on `memory_node`, its
/// record carrying [`cell_labels`]. The figure: the latency's median, or
/// the best bandwidth, with the 95% interval of its repetitions.
fn measure_cell(
    context: &Context,
    row: &GridRow,
    memory_node: u32,
    kind: MatrixKind,
    size: CellSize,
    class: Option<ClassLabels>,
    pipeline: &mut Pipeline,
) -> Result<Option<Measured>, BenchError> {
    let size = size.for_node(&context.topology, memory_node);
    let labels = to_params(&cell_labels(context, row, memory_node, kind, class));
    let memory = MemoryPlacement::bind(memory_node);
    Ok(match kind {
        MatrixKind::Latency => {
            let config = LatencyConfig {
                sizes: vec![size],
                cpu: row.cpus[0],
                memory,
                order: ChaseOrder::default(),
                writer_cpu: None,
            };
            let measured = measure_latency(context, &config, size)?;
            let ci95_rel = measured
                .convergence
                .and_then(|convergence| convergence.ci95_rel)
                .unwrap_or(0.0);
            emit_latency(
                context,
                &config,
                size,
                &measured,
                "matrix-latency",
                &labels,
                pipeline,
            )?
            .map(|value| Measured { value, ci95_rel })
        }
        MatrixKind::Bandwidth(_) => {
            let read = kernel_by_name("read").expect("read kernel is registered");
            let config = BandwidthConfig::new(read, row.cpus.clone(), size, memory)
                .labelled("matrix-bandwidth", labels);
            let result = run_bandwidth(context, &config, pipeline)?;
            Some(Measured {
                value: result.gigabytes_per_second.max(),
                ci95_rel: result.convergence.ci95_rel.unwrap_or(0.0),
            })
        }
    })
}

/// The one grid runner of every matrix: each row's CPUs against memory
/// bound on each memory node (CPU-less ones included), cell by cell,
/// each cell's record flushed as measured; the cells carry the row's
/// params, `mem_node`, `cpu_order` and, for bandwidth, `mode`.
fn run_grid(
    context: &Context,
    row_name: &'static str,
    rows: Vec<GridRow>,
    kind: MatrixKind,
    size: CellSize,
    pipeline: &mut Pipeline,
) -> Result<NodeMatrix, BenchError> {
    let memory_nodes = memory_nodes(&context.topology);
    let mut matrix = NodeMatrix {
        row_name,
        rows: rows.iter().map(|row| row.key).collect(),
        values: vec![vec![None; memory_nodes.len()]; rows.len()],
        memory_nodes: memory_nodes.clone(),
        unit: match kind {
            MatrixKind::Latency => "ns",
            MatrixKind::Bandwidth(_) => "GB/s",
        },
        inferred: Vec::new(),
    };
    for (index, row) in rows.iter().enumerate() {
        for (column, &memory_node) in memory_nodes.iter().enumerate() {
            if interrupted() {
                return Ok(matrix);
            }
            matrix.values[index][column] =
                measure_cell(context, row, memory_node, kind, size, None, pipeline)?
                    .map(|measured| measured.value);
        }
    }
    Ok(matrix)
}

/// Each CPU node's row: its [`matrix_cpus`] in the mode `kind` measures.
fn node_rows(topology: &Machine, kind: MatrixKind) -> Result<Vec<GridRow>, BenchError> {
    let mode = match kind {
        MatrixKind::Latency => MatrixMode::Serial,
        MatrixKind::Bandwidth(mode) => mode,
    };
    cpu_nodes(topology)
        .into_iter()
        .map(|node| {
            Ok(GridRow {
                key: node,
                cpus: matrix_cpus(topology, node, mode)?,
                labels: MatrixCellParams {
                    cpu_node: Some(node),
                    ..MatrixCellParams::default()
                },
            })
        })
        .collect()
}

/// The matrix of `kind` from each CPU node (its [`matrix_cpus`]) to each
/// memory node, working set `size`.
pub fn run_node_matrix(
    context: &Context,
    kind: MatrixKind,
    size: impl Into<CellSize>,
    pipeline: &mut Pipeline,
) -> Result<NodeMatrix, BenchError> {
    let rows = node_rows(&context.topology, kind)?;
    run_grid(context, "CPU node", rows, kind, size.into(), pipeline)
}

/// A node matrix measured by symmetry class (a time budget's cut): the
/// classes of (CPU node, memory node) cells, the seed that draws each
/// class's members ([`super::super::cell_classes`]), how many each class
/// draws, and how many further cells disagreeing classes may measure.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixSample {
    pub seed: u64,
    pub classes: Vec<CellClass>,
    /// Members drawn besides the representative, one count per class.
    pub draws: Vec<usize>,
    /// Further cells the classes whose members disagree may measure,
    /// together (what the budget leaves for it).
    pub allowance: usize,
}

impl MatrixSample {
    /// The classes of this topology's node matrix, members drawn with
    /// `seed`, each class's [`default_draws`], no allowance.
    pub fn new(topology: &Machine, seed: u64) -> Self {
        let classes = cell_classes(topology, &cpu_nodes(topology), &memory_nodes(topology));
        Self {
            seed,
            draws: classes.iter().map(default_draws).collect(),
            classes,
            allowance: 0,
        }
    }

    /// The cells measured unless a class's members disagree.
    pub fn cells(&self) -> Vec<Cell> {
        self.classes
            .iter()
            .zip(&self.draws)
            .flat_map(|(class, &draws)| sample_of(class, self.seed, draws))
            .collect()
    }

    /// Every cell of the matrix.
    pub fn total_cells(&self) -> usize {
        self.classes.iter().map(|class| class.cells.len()).sum()
    }

    /// One more member drawn in the class measured least (by share of
    /// its cells); false when every class is measured in full.
    pub fn draw_more(&mut self) -> bool {
        let least = self
            .classes
            .iter()
            .zip(&self.draws)
            .enumerate()
            .filter(|(_, (class, &draws))| draws + 1 < class.cells.len())
            .min_by(|a, b| {
                let share = |(class, draws): (&CellClass, &usize)| {
                    (*draws + 1) as f64 / class.cells.len() as f64
                };
                share(a.1).total_cmp(&share(b.1))
            })
            .map(|(index, _)| index);
        match least {
            Some(index) => {
                self.draws[index] += 1;
                true
            }
            None => false,
        }
    }

    /// How it samples, as the plan and the records state it.
    pub fn plan(&self) -> SamplePlan {
        SamplePlan {
            seed: self.seed,
            draws: self.draws.clone(),
            allowance: self.allowance,
        }
    }

    /// The rule, as the plan and the records state it.
    pub fn rule(&self) -> String {
        format!(
            "by symmetry class: {} classes of {} cells, {} measured (local cells all; each other \
             class at its representative and about sqrt(n) members or more, drawn with seed {}), \
             the rest inferred; a class whose members differ beyond twice their combined 95% \
             intervals (at least {:.0}%) measures up to {} further cells",
            self.classes.len(),
            self.total_cells(),
            self.cells().len(),
            self.seed,
            CLASS_TOLERANCE_FLOOR * 100.0,
            self.allowance
        )
    }
}

/// [`run_node_matrix`] by symmetry class: each class measured at its
/// sample, further where its members disagree (within the sample's
/// allowance); measured cells' records say `cell: "measured"`, the
/// others' records (no measurement: the representative's figure, n = 1)
/// `cell: "inferred"` and `inferred_from`, with the cell's own SLIT
/// distance, declared values and cache params; every one names its
/// `cell_class` and `class_cells`. A class that disagreed also emits a
/// `class_asymmetry` record.
pub fn run_sampled_matrix(
    context: &Context,
    kind: MatrixKind,
    size: CellSize,
    sample: &MatrixSample,
    pipeline: &mut Pipeline,
) -> Result<NodeMatrix, BenchError> {
    let rows = node_rows(&context.topology, kind)?;
    let columns = memory_nodes(&context.topology);
    let row_of = |node: u32| rows.iter().position(|row| row.key == node);
    let outcomes = measure_classes(
        &sample.classes,
        &sample.plan(),
        false,
        |(cpu_node, memory_node), class| {
            let Some(index) = row_of(cpu_node) else {
                return Ok(None);
            };
            if interrupted() {
                return Ok(None);
            }
            let class = ClassLabels {
                cell: "measured",
                class,
            };
            measure_cell(
                context,
                &rows[index],
                memory_node,
                kind,
                size,
                Some(class),
                pipeline,
            )
        },
    )?;
    let mut matrix = NodeMatrix {
        row_name: "CPU node",
        rows: rows.iter().map(|row| row.key).collect(),
        values: vec![vec![None; columns.len()]; rows.len()],
        memory_nodes: columns.clone(),
        unit: match kind {
            MatrixKind::Latency => "ns",
            MatrixKind::Bandwidth(_) => "GB/s",
        },
        inferred: Vec::new(),
    };
    for outcome in &outcomes {
        for &((cpu_node, memory_node), value, source) in &outcome.cells {
            let (Some(index), Some(column)) = (
                row_of(cpu_node),
                columns.iter().position(|&node| node == memory_node),
            ) else {
                continue;
            };
            matrix.values[index][column] = value;
            if let (CellSource::InferredFrom(from), Some(value)) = (source, value) {
                matrix.inferred.push((index, column));
                let row = &rows[index];
                let class = ClassLabels {
                    cell: "inferred",
                    class: &outcome.class,
                };
                let params = MatrixCellParams {
                    inferred: Some(InferredCellParams {
                        inferred_from: CellRef {
                            cpu_node: from.0,
                            mem_node: from.1,
                        },
                        working_set: working_set_params(
                            &context.topology,
                            size.for_node(&context.topology, memory_node),
                            &row.cpus,
                            &[memory_node],
                        ),
                    }),
                    ..cell_labels(context, row, memory_node, kind, Some(class))
                };
                let (benchmark, metric, unit) = match kind {
                    MatrixKind::Latency => ("matrix-latency", "latency", Unit::Nanoseconds),
                    MatrixKind::Bandwidth(_) => (
                        "matrix-bandwidth",
                        "read_bandwidth",
                        Unit::GigabytesPerSecond,
                    ),
                };
                pipeline.emit(&Record {
                    benchmark: benchmark.into(),
                    metric: metric.into(),
                    value,
                    unit,
                    params: to_params(&params),
                    placement: Placement::default(),
                    stats: Sample::new([value])
                        .expect("a measured, finite figure")
                        .summary(),
                })?;
            }
        }
        if outcome.disagreed {
            emit_asymmetry(kind, outcome, pipeline)?;
        }
    }
    Ok(matrix)
}

/// A class whose members disagreed: the largest difference from the
/// representative, as a ratio of it, the cells that differ beyond
/// [`CLASS_TOLERANCE_FLOOR`], and how many of the class's cells were
/// measured (`unfinished`: left inferred when the allowance ran out).
fn emit_asymmetry(
    kind: MatrixKind,
    outcome: &ClassOutcome,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let reference = outcome.cells[0].1.unwrap_or(0.0);
    let deviation = |value: f64| ((value - reference) / reference).abs();
    let measured = || {
        outcome
            .cells
            .iter()
            .filter(|cell| cell.2 == CellSource::Measured)
    };
    let differing: Vec<CellFigure> = measured()
        .filter_map(|&((cpu_node, mem_node), value, _)| {
            let value = value?;
            (deviation(value) > CLASS_TOLERANCE_FLOOR).then_some(CellFigure {
                cpu_node,
                mem_node,
                value,
            })
        })
        .collect();
    let worst = measured()
        .filter_map(|cell| cell.1)
        .map(deviation)
        .fold(0.0, f64::max);
    let (cpu_node, mem_node) = outcome.class.cells[0];
    let params = to_params(&MatrixAsymmetryParams {
        cell_class: Some(outcome.class.id as u64),
        class_cells: Some(outcome.class.cells.len() as u64),
        measured_cells: Some(measured().count() as u64),
        unfinished: Some(outcome.unfinished as u64),
        representative: Some(CellFigure {
            cpu_node,
            mem_node,
            value: reference,
        }),
        differing_cells: Some(differing),
        tolerance_floor: Some(CLASS_TOLERANCE_FLOOR),
    });
    pipeline.emit(&Record {
        benchmark: match kind {
            MatrixKind::Latency => "matrix-latency",
            MatrixKind::Bandwidth(_) => "matrix-bandwidth",
        }
        .into(),
        metric: "class_asymmetry".into(),
        value: worst,
        unit: Unit::Ratio,
        params,
        placement: Placement::default(),
        stats: Sample::new([worst]).expect("a finite ratio").summary(),
    })?;
    Ok(())
}

/// The idle latency matrix: [`run_node_matrix`] of [`MatrixKind::Latency`].
pub fn run_latency_matrix(
    context: &Context,
    size: impl Into<CellSize>,
    pipeline: &mut Pipeline,
) -> Result<NodeMatrix, BenchError> {
    run_node_matrix(context, MatrixKind::Latency, size, pipeline)
}

/// The read-bandwidth matrix in `mode`: [`run_node_matrix`] of
/// [`MatrixKind::Bandwidth`].
pub fn run_bandwidth_matrix(
    context: &Context,
    mode: MatrixMode,
    size: impl Into<CellSize>,
    pipeline: &mut Pipeline,
) -> Result<NodeMatrix, BenchError> {
    run_node_matrix(context, MatrixKind::Bandwidth(mode), size, pipeline)
}

/// One row of a per-CPU matrix (`matrix ... --per-cpu`): one thread on
/// `cpu` against every memory node; its cells carry `per_cpu: true`,
/// `cpu` and `cpu_node`.
pub fn run_cpu_row(
    context: &Context,
    cpu: u32,
    kind: MatrixKind,
    size: impl Into<CellSize>,
    pipeline: &mut Pipeline,
) -> Result<NodeMatrix, BenchError> {
    let row = GridRow {
        key: cpu,
        cpus: vec![cpu],
        labels: MatrixCellParams {
            per_cpu: Some(true),
            cpu: Some(cpu),
            cpu_node: context.topology.node_of_cpu(cpu),
            ..MatrixCellParams::default()
        },
    };
    run_grid(context, "CPU", vec![row], kind, size.into(), pipeline)
}

/// The SLIT distance from the row's CPUs to `memory_node`, when they sit on
/// one node and the firmware declares distances: what the findings compare
/// the measured ratios with.
fn row_distance(topology: &Machine, cpus: &[u32], memory_node: u32) -> Option<u64> {
    let node = topology.node_of_cpu(*cpus.first()?)?;
    cpus.iter()
        .all(|&cpu| topology.node_of_cpu(cpu) == Some(node))
        .then(|| topology.distance(node, memory_node))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threads::smt_server;

    /// Each node measures from its first CPU of the object tree, and in
    /// parallel from all its CPUs in tree order (siblings together), not in
    /// OS-index order.
    #[test]
    fn each_node_measures_from_its_cpus_in_tree_order() {
        let topology = smt_server(2, 8, 4);
        for node in [0, 1] {
            let all = matrix_cpus(&topology, node, MatrixMode::Parallel).unwrap();
            let node_cpus = cpus_of_node(&topology, node).unwrap();
            assert_eq!(all, CpuOrder::Compact.arrange(&topology, &node_cpus));
            assert_eq!(all[..2], [node * 32, node * 32 + 64]);
            let serial = matrix_cpus(&topology, node, MatrixMode::Serial).unwrap();
            assert_eq!(serial, all[..1]);
        }
    }
}
