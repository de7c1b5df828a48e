//! `latency --each-cpu [LIST]` and `bandwidth --each-cpu [LIST]`: one
//! pinned thread on each CPU in turn, one step per CPU (its plan shows
//! each CPU's memory node, working set and the caches in front).

use super::bandwidth::BandwidthArgs;
use super::latency::LatencyArgs;
use super::measuring::measure_steps;
use crate::args::IdList;
use crate::exit::{CliError, Status};
use numabench::bench::{
    check_memory_fits, each_cpu_dram_bytes, each_cpu_memory, resolve_cpu, resolve_node_with_memory,
    BenchError, Context, EachCpu, PerCpuMeasure, Step, PER_CPU_ORDER,
};
use numabench::kernels::KERNELS;
use serde_json::Map;

/// `latency --each-cpu`.
pub fn latency(args: &LatencyArgs, list: Option<&IdList>) -> Result<Status, CliError> {
    let sizes = crate::args::all_items(&args.size);
    let measure = PerCpuMeasure::Latency(args.order.into());
    run(&args.run, &args.output, |context| {
        let (each, chosen) = validate(context, list, args.mem_node, sizes, "latency")?;
        Ok(steps(context, &each, &measure, chosen))
    })
}

/// `bandwidth --each-cpu`.
pub fn bandwidth(args: &BandwidthArgs, list: Option<&IdList>) -> Result<Status, CliError> {
    let sizes = crate::args::all_items(&args.size);
    let kernels: Vec<_> = if args.kernel.is_empty() {
        KERNELS.iter().collect()
    } else {
        args.kernel.clone()
    };
    let measure = PerCpuMeasure::Bandwidth(kernels);
    run(&args.run, &args.output, |context| {
        context.simd = args.simd;
        let (each, chosen) = validate(context, list, args.mem_node, sizes, "bandwidth")?;
        Ok(steps(context, &each, &measure, chosen))
    })
}

fn run(
    run: &crate::args::MeasureArgs,
    output: &crate::args::OutputArgs,
    build: impl FnOnce(&mut Context) -> Result<Vec<Step>, BenchError>,
) -> Result<Status, CliError> {
    measure_steps(run, output, build, |_, _| {}, |_, _| {})
}

/// One step per CPU; CPUs numabench chose (no LIST) are in
/// [`PER_CPU_ORDER`], named in the plan and the records.
fn steps(context: &Context, each: &EachCpu, measure: &PerCpuMeasure, chosen: bool) -> Vec<Step> {
    Step::each_cpu(&context.topology, each, measure)
        .into_iter()
        .map(|step| {
            if chosen {
                step.in_order(PER_CPU_ORDER)
            } else {
                step
            }
        })
        .collect()
}

/// The CPUs of `list` in the order given (every allowed CPU in
/// [`PER_CPU_ORDER`] without one: then `true`), each existing and
/// allowed; `--mem-node` a node with memory; every CPU's working set
/// fitting where its memory goes. Nothing is allocated.
fn validate(
    context: &Context,
    list: Option<&IdList>,
    mem_node: Option<u32>,
    sizes: Vec<u64>,
    benchmark: &'static str,
) -> Result<(EachCpu, bool), BenchError> {
    let topology = &context.topology;
    let cpus = match list {
        Some(list) => list
            .0
            .iter()
            .map(|&cpu| resolve_cpu(topology, cpu))
            .collect::<Result<Vec<_>, _>>()?,
        None => PER_CPU_ORDER.all_allowed(topology),
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
    let each = EachCpu {
        cpus,
        mem_node,
        sizes,
        max_repeat: None,
        benchmark,
        labels: Map::new(),
    };
    Ok((each, list.is_none()))
}
