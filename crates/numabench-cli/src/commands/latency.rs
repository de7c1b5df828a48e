//! `numabench latency`.

use super::measuring::{choose_cpu, chosen_cpu_step, measure_steps};
use crate::args::LatencyArgs;
use crate::exit::{CliError, Status};
use numabench::bench::{
    check_memory_fits, default_sweep_sizes, resolve_cpu, resolve_node_with_memory,
    within_memory_limit, working_set_for, BenchError, Context, LatencyConfig, Step,
};
use numabench::memory::MemoryPlacement;

pub fn run(args: &LatencyArgs) -> Result<Status, CliError> {
    if let Some(list) = &args.each_cpu {
        return super::each_cpu::latency(args, list.as_ref());
    }
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            // One step per size: the plan shows each, the run emits the same records.
            let config = validate(args, context)?;
            Ok(config
                .sizes
                .iter()
                .map(|&size| {
                    let step = Step::latency(LatencyConfig {
                        sizes: vec![size],
                        ..config.clone()
                    });
                    chosen_cpu_step(step, args.cpu)
                })
                .collect())
        },
        |_, _| {},
        |_, _| {},
    )
}

fn validate(args: &LatencyArgs, context: &Context) -> Result<LatencyConfig, BenchError> {
    let topology = &context.topology;
    let cpu = choose_cpu(topology, args.cpu, args.cpu_node)?;
    let writer_cpu = args
        .writer_cpu
        .map(|writer| {
            resolve_cpu(topology, writer)
                .map_err(|error| BenchError::Invalid(format!("--writer-cpu {writer}: {error}")))
        })
        .transpose()?;
    // The thread that first touches the pages: the chaser, or with
    // --writer-cpu the writer, which builds the chain in its own memory.
    let toucher = writer_cpu.unwrap_or(cpu);
    let memory = match args.mem_node {
        Some(node) => MemoryPlacement::bind(resolve_node_with_memory(topology, node)?),
        None => MemoryPlacement::FirstTouch {
            nodes: topology.node_of_cpu(toucher).into_iter().collect(),
        },
    };
    let nodes = memory.expected_nodes();
    let sizes = if args.sweep {
        default_sweep_sizes(topology, &[cpu], &nodes)
    } else if args.size.is_empty() {
        // 1 GiB, or more where the caches in front of this CPU need it;
        // less where this process's memory limit needs it.
        let dram = working_set_for(topology, &[cpu], &nodes).bytes.max(1 << 30);
        vec![within_memory_limit(topology, dram)]
    } else {
        crate::args::all_items(&args.size)
    };
    if let Some(&largest) = sizes.iter().max() {
        check_memory_fits(topology, &nodes, largest)?;
    }
    Ok(LatencyConfig {
        sizes,
        cpu,
        memory,
        order: args.order.into(),
        writer_cpu,
    })
}
