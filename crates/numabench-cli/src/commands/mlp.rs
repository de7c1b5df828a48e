//! `numabench mlp`: one thread with 1..=16 chains, or with `--threads` /
//! `--cpus` many threads at once, pinned against unpinned.

use super::measuring::{
    choose_cpu, choose_memory_node, chosen_cpu_step, measure_steps, size_or_dram,
};
use crate::args::MlpArgs;
use crate::exit::{CliError, Status};
use numabench::bench::{
    check_memory_fits, resolve_cpu, resolve_node_with_memory, within_memory_limit, working_set_for,
    BenchError, Context, MlpConfig, MlpThreadsConfig, Pinning, Step, ThreadMemory, MAX_CHAINS,
};
use numabench::memory::MemoryPlacement;
use numabench::threads::CpuOrder;

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
