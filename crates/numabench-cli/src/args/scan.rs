//! `numabench scan`'s flags.

use super::parse::{parse_list_arg, parse_size_arg, IdList};
use super::shared::{MeasureArgs, OutputArgs};
use clap::Args;

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Nodes to scan. Default: every node with memory this process may use.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub node: Option<IdList>,
    /// Bytes allocated on each node. Default: 3/4 of the node's free memory, at most 64GiB, within
    /// this process's memory limit.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Bytes of one physical range (whole 2MiB pages).
    #[arg(long, value_name = "SIZE", default_value = "1GiB", value_parser = parse_size_arg)]
    pub range_size: u64,
    /// Least bytes of a range in the buffer for it to be measured. Default: the smaller of 64MiB
    /// and a quarter of --range-size, at least 4x the caches in front of the node.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub min_range: Option<u64>,
    /// Interleaved rounds: each reads every range of a node once, in a rotated order.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    /// Threads reading each node: 1, half, all or a number (of the node's CPUs, the nearest ones
    /// for a CPU-less node).
    #[arg(long, value_name = "N", default_value = "all")]
    pub threads: String,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
