//! `numabench loaded-latency`.

use super::measuring::{choose_cpu, choose_memory_node, measure_steps};
use crate::args::LoadedLatencyArgs;
use crate::exit::{CliError, Status};
use numabench::bench::{
    check_memory_fits, working_set_of_buffers, BenchError, LoadedLatencyConfig, Step, CURVE_DELAYS,
    DEFAULT_DELAYS,
};
use numabench::memory::MemoryPlacement;
use numabench::threads::CpuOrder;

pub fn run(args: &LoadedLatencyArgs) -> Result<Status, CliError> {
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            let topology = &context.topology;
            let order = CpuOrder::from(args.cpu_order);
            let ordered = order.all_allowed(topology);
            let chaser = match args.cpu {
                Some(_) => choose_cpu(topology, args.cpu, None)?,
                None => ordered[0],
            };
            let nodes = match &args.mem_node {
                None => vec![choose_memory_node(topology, None, chaser)?],
                Some(list) => list
                    .0
                    .iter()
                    .map(|&node| choose_memory_node(topology, Some(node), chaser))
                    .collect::<Result<_, _>>()?,
            };
            let generators: Vec<u32> = ordered.into_iter().filter(|&cpu| cpu != chaser).collect();
            if generators.is_empty() {
                return Err(BenchError::Invalid(
                    "loaded-latency needs at least two allowed CPUs (one chases, the others load)"
                        .into(),
                ));
            }
            // The chase and every generator each get a buffer of this size.
            let buffers = 1 + generators.len() as u64;
            let size = args.size.unwrap_or_else(|| {
                working_set_of_buffers(topology, &[chaser], &nodes, buffers).bytes
            });
            for &node in &nodes {
                check_memory_fits(topology, &[node], size * buffers)?;
            }
            let delays = match (args.curve, args.delays.is_empty()) {
                (true, _) => CURVE_DELAYS.to_vec(),
                (false, true) => DEFAULT_DELAYS.to_vec(),
                (false, false) => args.delays.clone(),
            };
            // One step per node and mix: each node's family of curves.
            let mut steps = Vec::new();
            for &node in &nodes {
                for &mix in &args.mix {
                    steps.push(
                        Step::loaded_latency(LoadedLatencyConfig {
                            chaser_cpu: chaser,
                            generator_cpus: generators.clone(),
                            memory: MemoryPlacement::bind(node),
                            size,
                            delays: delays.clone(),
                            mix,
                        })
                        // The generators (and the chaser, without --cpu) in --cpu-order.
                        .in_order(order),
                    );
                }
            }
            Ok(steps)
        },
        |_, _| {},
        |_, _| {},
    )
}
