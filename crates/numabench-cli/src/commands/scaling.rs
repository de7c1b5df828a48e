//! `numabench scaling`.

use super::measuring::{choose_memory_node, measure_steps, size_or_dram};
use crate::args::ScalingArgs;
use crate::exit::{CliError, Status};
use numabench::bench::Step;

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
