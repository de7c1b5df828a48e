//! `numabench bandwidth`: its flags and its run.

use super::measuring::measure_steps;
use crate::args::parse::{
    parse_kernel_arg, parse_list_arg, parse_simd_arg, parse_sizes_arg, IdList, Listed,
};
use crate::args::shared::{CpuOrderArg, MeasureArgs, OutputArgs};
use crate::exit::{CliError, Status};
use clap::Args;
use numabench::bench::{
    check_memory_fits, default_sweep_sizes, resolve_cpu, resolve_node_with_memory, working_set_for,
    BandwidthConfig, BenchError, Context, Step,
};
use numabench::kernels::KERNELS;
use numabench::kernels::{KernelSpec, SimdLevel};
use numabench::memory::MemoryPlacement;
use numabench::memory::PolicyTextError;
use numabench::threads::CpuOrder;

/// Memory bandwidth of read/write/copy/triad kernels.
///
/// Example: numabench bandwidth --kernel triad --threads 8 --mem-node 1
///
/// Pinned threads run read, write, copy, triad and their -nt
/// streaming-store variants over placed buffers (GB/s).
#[derive(Debug, Args)]
pub struct BandwidthArgs {
    /// Kernel(s): read, write, copy, triad, write-nt, copy-nt, triad-nt. Default: all.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',', value_parser = parse_kernel_arg)]
    pub kernel: Vec<&'static KernelSpec>,
    /// Number of threads, on the first N allowed CPUs in --cpu-order. Default: all allowed CPUs.
    #[arg(long, value_name = "N", conflicts_with = "cpus", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// The order --threads takes the allowed CPUs in: cores-first (one thread of every core,
    /// spread over L3 domains, before any SMT sibling), compact (tree order: siblings together),
    /// scatter (round robin over nodes, and over L3 domains within a node).
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst, conflicts_with = "cpus")]
    pub cpu_order: CpuOrderArg,
    /// CPUs to run on, numactl syntax (0-3,8).
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub cpus: Option<IdList>,
    /// Whole working set(s), all arrays and threads together, e.g. 1M,64M,2G. Default: the DRAM working set, 4x every cache in front of the threads and memory, at least 256MiB (or --sweep).
    #[arg(long, value_name = "SIZE,...", value_parser = parse_sizes_arg, conflicts_with = "sweep")]
    pub size: Vec<Listed<u64>>,
    /// Sweep working sets from half an L1 cache per thread, doubling, to the DRAM working set (4x every cache in front): bandwidth of every cache level and of DRAM.
    #[arg(long)]
    pub sweep: bool,
    /// Bind the arrays to this node (default: each thread touches its own share first).
    #[arg(long, value_name = "NODE", conflicts_with = "interleave")]
    pub mem_node: Option<u32>,
    /// Interleave the arrays' pages over these nodes (0-3), or weighted by node (0=3,2=1: three
    /// pages on node 0 for every one on node 2; the kernel's weighted interleave where its own
    /// weights are these, else emulated, as params.weighted_mode says).
    #[arg(long, value_name = "LIST", value_parser = parse_interleave_arg)]
    pub interleave: Option<InterleaveArg>,
    /// Measure one thread on each CPU of LIST in turn (numactl syntax; without LIST every allowed CPU), memory on that CPU's node (or --mem-node); one record per CPU and kernel, then each CPU's ratio to its node's median. Default size: each CPU's DRAM working set.
    #[arg(long, value_name = "LIST", num_args = 0..=1, value_parser = parse_list_arg, conflicts_with_all = ["cpus", "threads", "interleave", "sweep"])]
    pub each_cpu: Option<Option<IdList>>,
    /// Vector instructions: avx512, avx2, sse2, scalar. Default: the fastest, by a short calibration of every level the CPU has on the placed arrays before each measurement.
    #[arg(long, value_name = "LEVEL", value_parser = parse_simd_arg)]
    pub simd: Option<SimdLevel>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `--interleave`: a node list (plain interleave) or `NODE=WEIGHT,...`
/// (weighted interleave).
#[derive(Debug, Clone)]
pub struct InterleaveArg(pub numabench::memory::MemoryPolicy);

fn parse_interleave_arg(text: &str) -> Result<InterleaveArg, PolicyTextError> {
    use numabench::memory::MemoryPolicy;
    if text.contains('=') {
        MemoryPolicy::parse(&format!("weighted:{text}"))
            .expect("a weighted form")
            .map(InterleaveArg)
    } else {
        let nodes = parse_list_arg(text)?;
        Ok(InterleaveArg(MemoryPolicy::interleave(nodes.0)))
    }
}

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
