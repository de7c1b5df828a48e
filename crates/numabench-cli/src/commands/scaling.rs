//! `numabench scaling`: its flags and its run.

use super::measuring::{choose_memory_node, measure_steps, size_or_dram};
use crate::args::parse::{parse_kernel_arg, parse_size_arg};
use crate::args::shared::{CpuOrderArg, MeasureArgs, OutputArgs};
use crate::exit::{CliError, Status};
use clap::Args;
use numabench::bench::Step;
use numabench::kernels::KernelSpec;

/// How many cores saturate a node's memory bandwidth.
///
/// Example: numabench scaling
///
/// Bandwidth of one node's memory as 1, 2, ... all of a node's CPUs read
/// it, locally and from the farthest node; threads are added cores-first
/// (one per core, spread over L3 domains, before any SMT sibling).
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

pub fn run(args: &ScalingArgs) -> Result<Status, CliError> {
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            let topology = &context.topology;
            let node = choose_memory_node(topology, args.mem_node, topology.allowed.cpus[0])?;
            // Up to every allowed CPU reads node `node`'s memory.
            let cpus = &topology.allowed.cpus;
            let size = size_or_dram(topology, args.size, cpus, &[node])?;
            Ok(vec![Step::scaling(
                args.kernel,
                node,
                size,
                args.cpu_order.into(),
            )])
        },
        |_, _| {},
        |_, _| {},
    )
}
