//! `numabench mlp`: its flags and its run: one thread with 1..=16 chains,
//! or with `--threads` / `--cpus` many threads at once, pinned against
//! unpinned.

use super::measuring::{
    choose_cpu, choose_memory_node, chosen_cpu_step, measure_steps, size_or_dram,
};
use crate::args::parse::{parse_list_arg, parse_size_arg, IdList};
use crate::args::shared::{CpuOrderArg, MeasureArgs, OutputArgs};
use crate::args::ChaseOrderArg;
use crate::exit::{CliError, Status};
use clap::Args;
use numabench::bench::{
    check_memory_fits, resolve_cpu, resolve_node_with_memory, within_memory_limit, working_set_for,
    BenchError, Context, MlpConfig, MlpThreadsConfig, Pinning, Step, ThreadMemory, MAX_CHAINS,
};
use numabench::memory::MemoryPlacement;
use numabench::threads::CpuOrder;

/// Memory-level parallelism: misses a core keeps in flight.
///
/// Example: numabench mlp --threads 4
///
/// k = 1..16 independent chases in one thread, each continuing where it
/// stopped, together reading the whole buffer; --threads N: N threads at
/// once, pinned against unpinned.
#[derive(Debug, Args)]
pub struct MlpArgs {
    /// CPU of the chasing thread (default: the first allowed CPU).
    #[arg(long, value_name = "N", conflicts_with = "cpu_node")]
    pub cpu: Option<u32>,
    /// Run on the first allowed CPU of this node.
    #[arg(long, value_name = "NODE")]
    pub cpu_node: Option<u32>,
    /// Bind the buffer to this node (default: the CPU's node).
    #[arg(long, value_name = "NODE")]
    pub mem_node: Option<u32>,
    /// Working set. Default: DRAM-sized.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Order of the chases, as for `latency`: tlb-block, random, page-local.
    #[arg(long, value_enum, default_value_t = ChaseOrderArg::TlbBlock)]
    pub order: ChaseOrderArg,
    /// Many threads chasing at once: N threads on the first N allowed CPUs in --cpu-order, each with its own buffer (on its CPU's node, or all on --mem-node), each running k chains; aggregate loads per second and latency per load, pinned against unpinned (interleaved) unless --pinned or --unpinned. Default --size per thread: the DRAM working set of all N threads divided among them, at least 64 MiB each.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), conflicts_with_all = ["cpu", "cpu_node"])]
    pub threads: Option<u32>,
    /// The threads' CPUs (numactl syntax), instead of --threads N.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg, conflicts_with_all = ["cpu", "cpu_node", "threads"])]
    pub cpus: Option<IdList>,
    /// The order --threads takes the allowed CPUs in (as for bandwidth).
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst, conflicts_with = "cpus")]
    pub cpu_order: CpuOrderArg,
    /// With --threads/--cpus: chains per thread to measure, each 1 to 16 (checked in every mode: 0 chains measure nothing).
    #[arg(long, value_name = "K,...", value_delimiter = ',', default_values_t = [1usize, 2, 4, 8, 16], value_parser = parse_chains_arg)]
    pub chains: Vec<usize>,
    /// With --threads/--cpus: only the unpinned run (the scheduler places the threads).
    #[arg(long, conflicts_with = "pinned")]
    pub unpinned: bool,
    /// With --threads/--cpus: only the pinned run.
    #[arg(long)]
    pub pinned: bool,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// One `--chains` value: 1 to 16 chains per thread (0 would measure nothing).
fn parse_chains_arg(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(k) if (1..=16).contains(&k) => Ok(k),
        _ => Err(format!(
            "--chains {text}: each value must be a whole number from 1 to 16"
        )),
    }
}

/// Smallest default buffer of one thread of `mlp --threads`.
const MIN_THREAD_BYTES: u64 = 64 << 20;

pub fn run(args: &MlpArgs) -> Result<Status, CliError> {
    let many = args.threads.is_some() || args.cpus.is_some();
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            if many {
                let config = threads_config(args, context)?;
                let chosen = args.cpus.is_none().then_some(args.cpu_order.into());
                let step = Step::mlp_threads(config);
                return Ok(vec![match chosen {
                    Some(order) => step.in_order(order),
                    None => step,
                }]);
            }
            if args.unpinned || args.pinned {
                return Err(BenchError::Invalid(
                    "--pinned and --unpinned need --threads N or --cpus LIST".into(),
                ));
            }
            let topology = &context.topology;
            let cpu = choose_cpu(topology, args.cpu, args.cpu_node)?;
            let node = choose_memory_node(topology, args.mem_node, cpu)?;
            let step = Step::mlp(MlpConfig {
                cpu,
                memory: MemoryPlacement::bind(node),
                size: size_or_dram(topology, args.size, &[cpu], &[node])?,
                order: args.order.into(),
            });
            Ok(vec![chosen_cpu_step(step, args.cpu)])
        },
        |_, _| {},
        |_, _| {},
    )
}

/// Validates `--threads`/`--cpus` and friends into a many-threaded run.
fn threads_config(args: &MlpArgs, context: &Context) -> Result<MlpThreadsConfig, BenchError> {
    let topology = &context.topology;
    let cpus = match (&args.cpus, args.threads) {
        (Some(list), _) => list
            .0
            .iter()
            .map(|&cpu| resolve_cpu(topology, cpu))
            .collect::<Result<Vec<_>, _>>()?,
        (None, Some(threads)) => {
            let allowed = CpuOrder::from(args.cpu_order).all_allowed(topology);
            if threads as usize > allowed.len() {
                return Err(BenchError::Invalid(format!(
                    "--threads {threads} is more than the {} CPUs this process may use",
                    allowed.len()
                )));
            }
            allowed[..threads as usize].to_vec()
        }
        (None, None) => unreachable!("called with --threads or --cpus"),
    };
    if let Some(&bad) = args.chains.iter().find(|&&k| k == 0 || k > MAX_CHAINS) {
        return Err(BenchError::Invalid(format!(
            "--chains {bad}: each value must be 1 to {MAX_CHAINS}"
        )));
    }
    let memory = match args.mem_node {
        Some(node) => ThreadMemory::Node(resolve_node_with_memory(topology, node)?),
        None => ThreadMemory::Local,
    };
    let mut config = MlpThreadsConfig {
        cpus,
        memory,
        size: 0,
        order: args.order.into(),
        chains: args.chains.clone(),
        pinning: match (args.pinned, args.unpinned) {
            (true, _) => Pinning::Pinned,
            (_, true) => Pinning::Unpinned,
            _ => Pinning::Both,
        },
    };
    let mut nodes = config.buffer_nodes_of(topology);
    nodes.sort_unstable();
    nodes.dedup();
    let threads = config.cpus.len() as u64;
    config.size = match args.size {
        Some(size) => size,
        None => {
            let each = (working_set_for(topology, &config.cpus, &nodes).bytes / threads)
                .max(MIN_THREAD_BYTES);
            // All threads' buffers together stay under the memory limit.
            within_memory_limit(topology, each.saturating_mul(threads)) / threads
        }
    };
    check_memory_fits(topology, &nodes, config.size.saturating_mul(threads))?;
    Ok(config)
}
