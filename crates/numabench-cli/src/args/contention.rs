//! `numabench contention`'s flags.

use super::parse::{parse_list_arg, parse_size_arg, IdList};
use super::shared::{CpuOrderArg, MeasureArgs, OutputArgs};
use clap::Args;

#[derive(Debug, Args)]
pub struct ContentionArgs {
    /// The node all threads' memory is placed on (default: the node of the first allowed CPU).
    #[arg(long, value_name = "NODE")]
    pub node: Option<u32>,
    /// CPUs to read with, numactl syntax (default: every allowed CPU, in --cpu-order).
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub cpus: Option<IdList>,
    /// The order the allowed CPUs are taken in (the serial scenario's order, and the default
    /// node is the first CPU's): cores-first, compact, scatter.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst, conflicts_with = "cpus")]
    pub cpu_order: CpuOrderArg,
    /// Working set per scenario. Default: DRAM-sized.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
