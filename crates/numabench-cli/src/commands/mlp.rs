//! `numabench mlp`.

use super::measuring::{choose_cpu, choose_memory_node, measure, size_or_dram};
use crate::args::MlpArgs;
use crate::exit::{CliError, Status};
use numabench::bench::run_mlp;
use numabench::memory::MemoryPlacement;

pub fn run(args: &MlpArgs) -> Result<Status, CliError> {
    measure(
        &args.run,
        &args.output,
        |context| {
            let topology = &context.topology;
            let cpu = choose_cpu(topology, args.cpu, args.cpu_node)?;
            let node = choose_memory_node(topology, args.mem_node, cpu)?;
            Ok((cpu, node, size_or_dram(topology, args.size, &[node])?))
        },
        |context, (cpu, node, size), pipeline| {
            run_mlp(context, cpu, MemoryPlacement::Bind(node), size, pipeline)
        },
    )
}
