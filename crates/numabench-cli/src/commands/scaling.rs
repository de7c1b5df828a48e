//! `numabench scaling`.

use super::measuring::{choose_memory_node, measure, size_or_dram};
use crate::args::ScalingArgs;
use crate::exit::{CliError, Status};
use numabench::bench::run_scaling;

pub fn run(args: &ScalingArgs) -> Result<Status, CliError> {
    measure(
        &args.run,
        &args.output,
        |context| {
            let topology = &context.topology;
            let node = choose_memory_node(topology, args.mem_node, topology.allowed.cpus[0])?;
            // Up to every allowed CPU reads node `node`'s memory.
            let cpus = &topology.allowed.cpus;
            Ok((node, size_or_dram(topology, args.size, cpus, &[node])?))
        },
        |context, (node, size), pipeline| {
            run_scaling(context, args.kernel, node, size, pipeline).map(drop)
        },
    )
}
