//! `numabench interference`'s flags.

use super::parse::{parse_list_arg, parse_mix_arg, parse_size_arg, IdList};
use super::shared::{MeasureArgs, OutputArgs};
use clap::Args;
use numabench::bench::TrafficMix;

#[derive(Debug, Args)]
pub struct InterferenceArgs {
    /// Victim nodes: whose latency and read bandwidth are measured, from a CPU of the node (of the
    /// nearest node with CPUs for a CPU-less one). Default: every node with memory.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub victim: Option<IdList>,
    /// Aggressor nodes: loaded by the threads of their CPUs (of the nearest node with CPUs for a
    /// CPU-less one), never the victim's core (its CPU or an SMT sibling). Default: every node with memory, up to 8 nodes;
    /// beyond, one node per SLIT distance from each victim (itself first).
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub aggressor: Option<IdList>,
    /// The aggressors' traffic, one measurement each: reads, writes, 3:1, 2:1, 1:1, and with
    /// non-temporal writes 3:1-nt, 2:1-nt, 1:1-nt, nt-writes.
    #[arg(long, value_name = "MIX,...", default_value = "reads,writes", value_delimiter = ',', value_parser = parse_mix_arg)]
    pub load: Vec<TrafficMix>,
    /// Aggressor threads per pair. Default: every CPU near the aggressor node but the victim's core's.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub aggressor_threads: Option<u32>,
    /// The victim's buffer (each aggressor thread streams its share of it, at least 32MiB).
    /// Default: the DRAM working set of the victim's CPU (4x the caches in front, at least
    /// 256MiB), within what the nodes can hold.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Interleaved rounds: each measures every victim alone and under every load once, in a
    /// rotated order.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
