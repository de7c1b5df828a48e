//! `numabench matrix latency` and `numabench matrix bandwidth`'s flags.

use super::parse::{parse_simd_arg, parse_size_arg};
use super::shared::{MeasureArgs, OutputArgs};
use clap::{Args, Subcommand, ValueEnum};
use numabench::kernels::SimdLevel;

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
    /// Working set of every cell. Default: 4x the caches in front of one node's CPUs and one memory node (the largest over the cells; at least 256MiB): a cell's threads are one node's.
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
