//! `numabench loaded-latency`'s flags.

use super::parse::{parse_list_arg, parse_mix_arg, parse_size_arg, IdList};
use super::shared::{CpuOrderArg, MeasureArgs, OutputArgs};
use clap::Args;
use numabench::bench::TrafficMix;

#[derive(Debug, Args)]
pub struct LoadedLatencyArgs {
    /// CPU of the chasing thread (default: the first allowed CPU in --cpu-order); every other allowed CPU generates traffic.
    #[arg(long, value_name = "N")]
    pub cpu: Option<u32>,
    /// The order the allowed CPUs are taken in: the chaser is the first (unless --cpu), the
    /// generators follow in this order: cores-first, compact, scatter.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst)]
    pub cpu_order: CpuOrderArg,
    /// Node(s) holding the chased buffer and the traffic, CPU-less ones included (default: the
    /// chaser's node); one curve per node and mix: a family per node.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub mem_node: Option<IdList>,
    /// Read:write mix(es) of the traffic: reads, 3:1, 2:1, 1:1, writes; with non-temporal
    /// (streaming) writes: 3:1-nt, 2:1-nt, 1:1-nt, nt-writes. A list draws one curve per mix.
    #[arg(long, value_name = "MIX,...", default_value = "reads", value_delimiter = ',', value_parser = parse_mix_arg)]
    pub mix: Vec<TrafficMix>,
    /// Delays between a generator's requests (nop iterations, ~1 cycle each), light to heavy. Default: 2000,1000,500,250,120,60,30,0.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        conflicts_with = "curve"
    )]
    pub delays: Vec<u32>,
    /// A full curve from idle to saturation, as Mess draws it: 24 delays (4000 down to 0, about
    /// 1.35x apart), 25 points with the idle one.
    #[arg(long)]
    pub curve: bool,
    /// Working set of the chase and of each generator. Default: DRAM-sized, at most 256MiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
