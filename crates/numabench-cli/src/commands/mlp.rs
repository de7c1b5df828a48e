//! `numabench mlp`.

use super::measuring::{choose_cpu, choose_memory_node, measure_steps, size_or_dram};
use crate::args::MlpArgs;
use crate::exit::{CliError, Status};
use numabench::bench::{MlpConfig, Step};
use numabench::memory::MemoryPlacement;

pub fn run(args: &MlpArgs) -> Result<Status, CliError> {
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            let topology = &context.topology;
            let cpu = choose_cpu(topology, args.cpu, args.cpu_node)?;
            let node = choose_memory_node(topology, args.mem_node, cpu)?;
            Ok(vec![Step::mlp(MlpConfig {
                cpu,
                memory: MemoryPlacement::bind(node),
                size: size_or_dram(topology, args.size, &[cpu], &[node])?,
                order: args.order.into(),
            })])
        },
        |_, _| {},
        |_, _| {},
    )
}
