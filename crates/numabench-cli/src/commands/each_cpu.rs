//! `latency --each-cpu [LIST]` and `bandwidth --each-cpu [LIST]`: one
//! pinned thread on each CPU in turn.

use super::measuring::measure;
use crate::args::{BandwidthArgs, IdList, LatencyArgs};
use crate::exit::{CliError, Status};
use numabench::bench::{
    check_memory_fits, each_cpu_dram_bytes, each_cpu_memory, resolve_cpu, resolve_node_with_memory,
    run_bandwidth_each_cpu, run_latency_each_cpu, BenchError, Context, EachCpu,
};
use numabench::kernels::KERNELS;
use serde_json::Map;

/// `latency --each-cpu`.
pub fn latency(args: &LatencyArgs, list: Option<&IdList>) -> Result<Status, CliError> {
    let sizes = crate::args::all_items(&args.size);
    measure(
        &args.run,
        &args.output,
        "--each-cpu",
        |context| validate(context, list, args.mem_node, sizes, "latency"),
        |context, each, pipeline| run_latency_each_cpu(context, &each, args.order.into(), pipeline),
    )
}

/// `bandwidth --each-cpu`.
pub fn bandwidth(args: &BandwidthArgs, list: Option<&IdList>) -> Result<Status, CliError> {
    let sizes = crate::args::all_items(&args.size);
    let kernels: Vec<_> = if args.kernel.is_empty() {
        KERNELS.iter().collect()
    } else {
        args.kernel.clone()
    };
    measure(
        &args.run,
        &args.output,
        "--each-cpu",
        |context| validate(context, list, args.mem_node, sizes, "bandwidth"),
        |context, each, pipeline| {
            let mut context = context.clone();
            context.simd = args.simd;
            run_bandwidth_each_cpu(&context, &each, &kernels, pipeline)
        },
    )
}

/// The CPUs of `list` (every allowed CPU without one), each existing and
/// allowed, in the order given; `--mem-node` a node with memory; every
/// CPU's working set fitting where its memory goes. Nothing is allocated.
fn validate(
    context: &Context,
    list: Option<&IdList>,
    mem_node: Option<u32>,
    sizes: Vec<u64>,
    benchmark: &'static str,
) -> Result<EachCpu, BenchError> {
    let topology = &context.topology;
    let cpus = match list {
        Some(list) => list
            .0
            .iter()
            .map(|&cpu| resolve_cpu(topology, cpu))
            .collect::<Result<Vec<_>, _>>()?,
        None => topology.allowed.cpus.clone(),
    };
    let mem_node = mem_node
        .map(|node| resolve_node_with_memory(topology, node))
        .transpose()?;
    for &cpu in &cpus {
        let largest = sizes
            .iter()
            .copied()
            .max()
            .unwrap_or_else(|| each_cpu_dram_bytes(topology, cpu, mem_node));
        let nodes = each_cpu_memory(topology, cpu, mem_node).expected_nodes();
        check_memory_fits(topology, &nodes, largest)?;
    }
    Ok(EachCpu {
        cpus,
        mem_node,
        sizes,
        max_repeat: None,
        benchmark,
        labels: Map::new(),
    })
}
