//! `numabench scaling`'s flags.

use super::parse::{parse_kernel_arg, parse_size_arg};
use super::shared::{CpuOrderArg, MeasureArgs, OutputArgs};
use clap::Args;
use numabench::kernels::KernelSpec;

#[derive(Debug, Args)]
pub struct ScalingArgs {
    /// The node whose memory is read (default: the node of the first allowed CPU).
    #[arg(long, value_name = "NODE")]
    pub mem_node: Option<u32>,
    /// Kernel: read, write, copy, triad, write-nt, copy-nt, triad-nt.
    #[arg(long, value_name = "NAME", value_parser = parse_kernel_arg, default_value = "read")]
    pub kernel: &'static KernelSpec,
    /// The order threads are added in: cores-first (one per core, spread over L3 domains,
    /// before any SMT sibling), compact (tree order: siblings together), scatter.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst)]
    pub cpu_order: CpuOrderArg,
    /// Working set. Default: DRAM-sized.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
