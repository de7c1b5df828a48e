//! `numabench mlp`.

use super::measuring::{
    choose_cpu, choose_memory_node, chosen_cpu_step, measure_steps, size_or_dram,
};
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
