//! `numabench mlp`'s flags.

use super::latency::ChaseOrderArg;
use super::parse::{parse_list_arg, parse_size_arg, IdList};
use super::shared::{CpuOrderArg, MeasureArgs, OutputArgs};
use clap::Args;

#[derive(Debug, Args)]
pub struct MlpArgs {
    /// CPU of the chasing thread (default: the first allowed CPU).
    #[arg(long, value_name = "N", conflicts_with = "cpu_node")]
    pub cpu: Option<u32>,
    /// Run on the first allowed CPU of this node.
    #[arg(long, value_name = "NODE")]
    pub cpu_node: Option<u32>,
    /// Bind the buffer to this node (default: the CPU's node).
    #[arg(long, value_name = "NODE")]
    pub mem_node: Option<u32>,
    /// Working set. Default: DRAM-sized.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Order of the chases, as for `latency`: tlb-block, random, page-local.
    #[arg(long, value_enum, default_value_t = ChaseOrderArg::TlbBlock)]
    pub order: ChaseOrderArg,
    /// Many threads chasing at once: N threads on the first N allowed CPUs in --cpu-order, each with its own buffer (on its CPU's node, or all on --mem-node), each running k chains; aggregate loads per second and latency per load, pinned against unpinned (interleaved) unless --pinned or --unpinned. Default --size per thread: the DRAM working set of all N threads divided among them, at least 64 MiB each.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), conflicts_with_all = ["cpu", "cpu_node"])]
    pub threads: Option<u32>,
    /// The threads' CPUs (numactl syntax), instead of --threads N.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg, conflicts_with_all = ["cpu", "cpu_node", "threads"])]
    pub cpus: Option<IdList>,
    /// The order --threads takes the allowed CPUs in (as for bandwidth).
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst, conflicts_with = "cpus")]
    pub cpu_order: CpuOrderArg,
    /// With --threads/--cpus: chains per thread to measure, each 1 to 16 (checked in every mode: 0 chains measure nothing).
    #[arg(long, value_name = "K,...", value_delimiter = ',', default_values_t = [1usize, 2, 4, 8, 16], value_parser = parse_chains_arg)]
    pub chains: Vec<usize>,
    /// With --threads/--cpus: only the unpinned run (the scheduler places the threads).
    #[arg(long, conflicts_with = "pinned")]
    pub unpinned: bool,
    /// With --threads/--cpus: only the pinned run.
    #[arg(long)]
    pub pinned: bool,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// One `--chains` value: 1 to 16 chains per thread (0 would measure nothing).
fn parse_chains_arg(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(k) if (1..=16).contains(&k) => Ok(k),
        _ => Err(format!(
            "--chains {text}: each value must be a whole number from 1 to 16"
        )),
    }
}
