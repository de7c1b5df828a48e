//! `numabench contention`: its flags and its run.

use super::measuring::{measure_steps, size_or_dram};
use crate::args::parse::{parse_list_arg, parse_size_arg, IdList};
use crate::args::shared::{CpuOrderArg, MeasureArgs, OutputArgs};
use crate::exit::{CliError, Status};
use clap::Args;
use numabench::bench::{resolve_cpu, resolve_node_with_memory, Step};
use numabench::threads::CpuOrder;

/// Cost of a serial initialisation: all threads on one node.
///
/// Example: numabench contention
///
/// Every thread reading one node's memory (as after a serial
/// initialisation), alone in turn and all at once, against each thread
/// reading its own node.
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

pub fn run(args: &ContentionArgs) -> Result<Status, CliError> {
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            let topology = &context.topology;
            let order = CpuOrder::from(args.cpu_order);
            let cpus = match &args.cpus {
                Some(list) => list
                    .0
                    .iter()
                    .map(|&cpu| resolve_cpu(topology, cpu))
                    .collect::<Result<Vec<_>, _>>()?,
                None => order.all_allowed(topology),
            };
            let node = match args.node {
                Some(node) => resolve_node_with_memory(topology, node)?,
                None => topology.node_of_cpu(cpus[0]).unwrap_or(0),
            };
            let size = size_or_dram(topology, args.size, &cpus, &[node])?;
            let step = Step::contention(cpus, node, size);
            // CPUs numabench chose are in --cpu-order, shown and recorded.
            Ok(vec![match args.cpus {
                Some(_) => step,
                None => step.in_order(order),
            }])
        },
        |_, _| {},
        |_, _| {},
    )
}
