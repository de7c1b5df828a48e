//! `numabench latency`.

use super::measuring::{bench_error, context, pipeline};
use crate::args::{ChaseOrderArg, LatencyArgs};
use crate::exit::{CliError, Status};
use numabench::bench::{
    check_memory_fits, cpus_of_node, default_sweep_sizes, resolve_cpu, resolve_node_with_memory,
    run_latency, LatencyConfig,
};
use numabench::kernels::ChaseOrder;
use numabench::memory::MemoryPlacement;

pub fn run(args: &LatencyArgs) -> Result<Status, CliError> {
    let context = context(&args.run)?;
    let config = validate(args, &context).map_err(bench_error)?;
    let mut pipeline = pipeline(&args.output, &context)?;
    run_latency(&context, &config, &mut pipeline).map_err(bench_error)?;
    pipeline.finish().map_err(CliError::system)?;
    Ok(Status::Clean)
}

fn validate(
    args: &LatencyArgs,
    context: &numabench::bench::Context,
) -> Result<LatencyConfig, numabench::bench::BenchError> {
    let topology = &context.topology;
    let cpu = match (args.cpu, args.cpu_node) {
        (Some(cpu), _) => resolve_cpu(topology, cpu)?,
        (None, Some(node)) => cpus_of_node(topology, node)?[0],
        (None, None) => topology.allowed.cpus[0],
    };
    let memory = match args.mem_node {
        Some(node) => MemoryPlacement::Bind(resolve_node_with_memory(topology, node)?),
        None => MemoryPlacement::FirstTouch {
            nodes: topology.node_of_cpu(cpu).into_iter().collect(),
        },
    };
    let nodes = memory.expected_nodes();
    let free = nodes
        .iter()
        .filter_map(|node| topology.node(*node).and_then(|info| info.memory_free_bytes))
        .sum::<u64>();
    let sizes = if args.sweep {
        default_sweep_sizes(topology, Some(free).filter(|bytes| *bytes > 0))
    } else if args.size.is_empty() {
        vec![1 << 30]
    } else {
        args.size.clone()
    };
    if let Some(&largest) = sizes.iter().max() {
        check_memory_fits(topology, &nodes, largest)?;
    }
    Ok(LatencyConfig {
        sizes,
        cpu,
        memory,
        order: match args.order {
            ChaseOrderArg::Random => ChaseOrder::Random,
            ChaseOrderArg::PageLocal => ChaseOrder::PageLocal,
        },
    })
}
