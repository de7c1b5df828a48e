//! `numabench latency`: its flags and its run (a step per size, or each
//! CPU in turn with `--each-cpu`).

use super::measuring::{choose_cpu, chosen_cpu_step, measure_steps};
use crate::args::parse::{parse_list_arg, parse_sizes_arg, IdList, Listed};
use crate::args::shared::{MeasureArgs, OutputArgs};
use crate::args::ChaseOrderArg;
use crate::exit::{CliError, Status};
use clap::Args;
use numabench::bench::{
    check_memory_fits, default_sweep_sizes, resolve_cpu, resolve_node_with_memory,
    within_memory_limit, working_set_for, BenchError, Context, LatencyConfig, Step,
};
use numabench::memory::MemoryPlacement;

/// Load-to-use latency from a CPU to a node's memory.
///
/// Example: numabench latency --cpu-node 0 --mem-node 1 --sweep
///
/// A pinned thread chases a random pointer cycle through a buffer placed
/// on a chosen node (ns and core cycles per load, the core clock measured
/// on the chasing CPU); by default random within TLB-sized blocks (the
/// idle latency MLC and multichase report).
#[derive(Debug, Args)]
pub struct LatencyArgs {
    /// Working-set size(s), e.g. 32K,1M,1G. Default: 1GiB, or the DRAM working set (4x every cache in front) when larger (or --sweep); less under a memory limit (topo shows it). A size the limit cannot hold is refused.
    #[arg(long, value_name = "SIZE,...", value_parser = parse_sizes_arg, conflicts_with = "sweep")]
    pub size: Vec<Listed<u64>>,
    /// Sweep sizes from half the L1 cache, doubling, to the DRAM working set (4x every cache in front of the CPU and memory).
    #[arg(long)]
    pub sweep: bool,
    /// CPU the chasing thread is pinned to.
    #[arg(long, value_name = "N", conflicts_with = "cpu_node")]
    pub cpu: Option<u32>,
    /// Run on the first allowed CPU of this node.
    #[arg(long, value_name = "NODE")]
    pub cpu_node: Option<u32>,
    /// Bind the buffer to this node (default: first touch by the chasing thread).
    #[arg(long, value_name = "NODE")]
    pub mem_node: Option<u32>,
    /// Order of the chase: tlb-block (idle latency), random (plus page walks), page-local.
    #[arg(long, value_enum, default_value_t = ChaseOrderArg::TlbBlock)]
    pub order: ChaseOrderArg,
    /// Measure from each CPU of LIST in turn (numactl syntax; without LIST every allowed CPU), one pinned thread, memory on that CPU's node (or --mem-node); one record per CPU, then each CPU's ratio to its node's median. Default size: each CPU's DRAM working set.
    #[arg(long, value_name = "LIST", num_args = 0..=1, value_parser = parse_list_arg, conflicts_with_all = ["cpu", "cpu_node", "sweep"])]
    pub each_cpu: Option<Option<IdList>>,
    /// The remote-cache chase: a thread on CPU C builds the chain in its own memory (first touch on C's node, unless --mem-node) and rewrites it before every pass; the chasing CPU follows it without flushing: lines come from C's caches (Modified) while the size fits there, else from C's memory. With --sweep: the remote-cache plateau, then (remote) DRAM.
    #[arg(long, value_name = "C", conflicts_with = "each_cpu")]
    pub writer_cpu: Option<u32>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

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
