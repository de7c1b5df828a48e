//! `numabench bandwidth`.

use super::measuring::measure_steps;
use crate::args::BandwidthArgs;
use crate::exit::{CliError, Status};
use numabench::bench::{
    check_memory_fits, default_sweep_sizes, resolve_cpu, resolve_node_with_memory, working_set_for,
    BandwidthConfig, BenchError, Context, Step,
};
use numabench::kernels::KERNELS;
use numabench::memory::MemoryPlacement;
use numabench::threads::CpuOrder;

pub fn run(args: &BandwidthArgs) -> Result<Status, CliError> {
    if let Some(list) = &args.each_cpu {
        return super::each_cpu::bandwidth(args, list.as_ref());
    }
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            context.simd = args.simd;
            // CPUs numabench chose are in --cpu-order, shown and recorded.
            let chosen = args.cpus.is_none().then_some(args.cpu_order.into());
            Ok(validate(args, context)?
                .into_iter()
                .map(Step::bandwidth)
                .map(|step| match chosen {
                    Some(order) => step.in_order(order),
                    None => step,
                })
                .collect())
        },
        |_, _| {},
        |_, _| {},
    )
}

fn validate(args: &BandwidthArgs, context: &Context) -> Result<Vec<BandwidthConfig>, BenchError> {
    let topology = &context.topology;
    let allowed = CpuOrder::from(args.cpu_order).all_allowed(topology);
    let cpus = match (&args.cpus, args.threads) {
        (Some(list), _) => list
            .0
            .iter()
            .map(|&cpu| resolve_cpu(topology, cpu))
            .collect::<Result<Vec<_>, _>>()?,
        (None, Some(threads)) if threads as usize > allowed.len() => {
            return Err(BenchError::Invalid(format!(
                "--threads {threads} is more than the {} CPUs this process may use",
                allowed.len()
            )))
        }
        (None, Some(threads)) => allowed[..threads as usize].to_vec(),
        (None, None) => allowed,
    };
    let memory = if let Some(node) = args.mem_node {
        MemoryPlacement::bind(resolve_node_with_memory(topology, node)?)
    } else if let Some(interleave) = &args.interleave {
        let policy = &interleave.0;
        MemoryPlacement::Policy(numabench::memory::MemoryPolicy {
            nodes: policy
                .nodes
                .iter()
                .map(|&node| resolve_node_with_memory(topology, node))
                .collect::<Result<_, _>>()?,
            ..policy.clone()
        })
    } else {
        MemoryPlacement::FirstTouch {
            nodes: topology.nodes_of_cpus(&cpus),
        }
    };
    let nodes = memory.expected_nodes();
    let sizes = if args.sweep {
        default_sweep_sizes(topology, &cpus, &nodes)
    } else if args.size.is_empty() {
        vec![working_set_for(topology, &cpus, &nodes).bytes]
    } else {
        crate::args::all_items(&args.size)
    };
    if let Some(&largest) = sizes.iter().max() {
        check_memory_fits(topology, &nodes, largest)?;
    }
    let kernels: Vec<_> = if args.kernel.is_empty() {
        KERNELS.iter().collect()
    } else {
        args.kernel.clone()
    };
    // Size by size, every kernel at each: a sweep's curve fills in from the caches outwards.
    Ok(sizes
        .iter()
        .flat_map(|&size| kernels.iter().map(move |kernel| (size, *kernel)))
        .map(|(size, kernel)| BandwidthConfig::new(kernel, cpus.clone(), size, memory.clone()))
        .collect())
}
