//! `numabench matrix latency` and `numabench matrix bandwidth`: their
//! flags and their run.

use super::measuring::measure_sampled_steps;
use crate::args::parse::{parse_simd_arg, parse_size_arg};
use crate::args::shared::{MeasureArgs, OutputArgs};
use crate::exit::{CliError, Status};
use clap::{Args, Subcommand, ValueEnum};
use numabench::bench::{
    check_memory_fits, matrix_cell_working_set, CellSize, MatrixCut, MatrixKind, MatrixMode, Step,
};
use numabench::kernels::SimdLevel;
use numabench::topology::memory_nodes;

#[derive(Debug, Subcommand)]
pub enum MatrixCommand {
    /// Idle latency from each CPU node to each memory node (ns), chased
    /// random within TLB-sized blocks (`latency --order tlb-block`).
    Latency(MatrixArgs),
    /// Read bandwidth from each CPU node to each memory node (GB/s).
    Bandwidth(MatrixBandwidthArgs),
}

#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Working set of every cell; each memory node must have it free. Default: 4x the caches in front of one node's CPUs and one memory node (the largest over the cells; at least 256MiB): a cell's threads are one node's. A node that cannot safely hold the default (a quarter of its free memory) gets as much as is safe, its records' size saying so.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// A row per allowed CPU (one thread on it, compact order), not per CPU node: CPU x memory node; one step per row in --plan. Default size: each CPU's own one-thread DRAM working set over every memory node.
    #[arg(long)]
    pub per_cpu: bool,
    /// Measure every cell whatever --budget says. Otherwise, where the matrix is over the budget, it is measured by symmetry class as characterize's are (every node's own cell, about sqrt(n) members of each other class, seed 1; the rest inferred from their class's representative and marked as such).
    #[arg(long)]
    pub full_matrix: bool,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatrixModeArg {
    /// One thread per CPU node.
    Serial,
    /// Every allowed CPU of the CPU node at once (compact order).
    Parallel,
}

#[derive(Debug, Args)]
pub struct MatrixBandwidthArgs {
    /// One thread (serial) or all cores of the CPU node (parallel).
    #[arg(long, value_enum, default_value_t = MatrixModeArg::Serial)]
    pub mode: MatrixModeArg,
    /// Vector instructions: avx512, avx2, sse2, scalar. Default: the fastest, by a short calibration of every level the CPU has on each row's placed arrays.
    #[arg(long, value_name = "LEVEL", value_parser = parse_simd_arg)]
    pub simd: Option<SimdLevel>,
    #[command(flatten)]
    pub matrix: MatrixArgs,
}

pub fn run(command: &MatrixCommand) -> Result<Status, CliError> {
    match command {
        MatrixCommand::Latency(args) => run_matrix(args, None, None),
        MatrixCommand::Bandwidth(args) => run_matrix(
            &args.matrix,
            Some(match args.mode {
                MatrixModeArg::Serial => MatrixMode::Serial,
                MatrixModeArg::Parallel => MatrixMode::Parallel,
            }),
            args.simd,
        ),
    }
}

fn run_matrix(
    args: &MatrixArgs,
    bandwidth: Option<MatrixMode>,
    simd: Option<SimdLevel>,
) -> Result<Status, CliError> {
    if args.per_cpu {
        let kind = bandwidth.map_or(MatrixKind::Latency, MatrixKind::Bandwidth);
        return super::per_cpu_matrix::run(args, kind, simd);
    }
    let show_grid = args.output.records;
    let matrix = match args.full_matrix {
        true => MatrixCut::Never,
        false => MatrixCut::Seeded(crate::args::DEFAULT_CLASS_SEED),
    };
    measure_sampled_steps(
        &args.run,
        &args.output,
        matrix,
        |context| {
            context.simd = simd;
            // Default: 4x the caches in front of one row's CPUs and one
            // node, as characterize's matrices (not every CPU's caches).
            let kind = bandwidth.map_or(MatrixKind::Latency, MatrixKind::Bandwidth);
            // Each cell binds its buffer to one node: a given size must
            // fit every node on its own; the default fits each cell to its
            // node (CellSize::Default).
            let size = match args.size {
                Some(bytes) => {
                    for node in memory_nodes(&context.topology) {
                        check_memory_fits(&context.topology, &[node], bytes)?;
                    }
                    CellSize::Given(bytes)
                }
                None => CellSize::Default(matrix_cell_working_set(&context.topology, kind)),
            };
            Ok(vec![match bandwidth {
                None => Step::latency_matrix(size),
                Some(mode) => Step::bandwidth_matrix(mode, size),
            }])
        },
        |_, _| {},
        |_, matrix| {
            if let (true, Some(matrix)) = (show_grid, matrix) {
                let title = match bandwidth {
                    None => "Idle latency".to_string(),
                    Some(mode) => format!("Read bandwidth ({})", mode.name()),
                };
                println!("\n{}", matrix.render(&title));
            }
        },
    )
}
