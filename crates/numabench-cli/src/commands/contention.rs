//! `numabench contention`.

use super::measuring::{measure_steps, size_or_dram};
use crate::args::ContentionArgs;
use crate::exit::{CliError, Status};
use numabench::bench::{resolve_cpu, resolve_node_with_memory, Step};
use numabench::threads::CpuOrder;

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
