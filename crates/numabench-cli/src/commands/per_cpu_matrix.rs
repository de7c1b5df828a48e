//! `matrix latency --per-cpu` and `matrix bandwidth --per-cpu`: a row per
//! allowed CPU, one thread on it, against every memory node.

use super::measuring::{measure, size_or_dram};
use crate::args::MatrixArgs;
use crate::exit::{CliError, Status};
use numabench::bench::{
    memory_nodes, run_bandwidth_matrix_per_cpu, run_latency_matrix_per_cpu, working_set_for,
    BenchError, MatrixMode,
};

/// Runs the per-CPU matrix; `bandwidth` is the `--mode` of `matrix
/// bandwidth` (only `serial`: one thread per CPU), `None` for latency.
pub fn run(args: &MatrixArgs, bandwidth: Option<MatrixMode>) -> Result<Status, CliError> {
    let show_grid = !args.output.json;
    measure(
        &args.run,
        &args.output,
        "--per-cpu",
        |context| {
            if bandwidth == Some(MatrixMode::Parallel) {
                return Err(BenchError::Invalid(
                    "--per-cpu measures one thread per CPU: it cannot be combined with --mode parallel"
                        .into(),
                ));
            }
            let topology = &context.topology;
            let nodes = memory_nodes(topology);
            // One thread reads at a time: the largest one-thread DRAM working set.
            let dram = topology
                .allowed
                .cpus
                .iter()
                .map(|&cpu| working_set_for(topology, &[cpu], &nodes).bytes)
                .max()
                .unwrap_or(0);
            size_or_dram(topology, Some(args.size.unwrap_or(dram)), &[], &nodes)
        },
        |context, size, pipeline| {
            let (matrix, title) = match bandwidth {
                None => (
                    run_latency_matrix_per_cpu(context, size, pipeline)?,
                    "Idle latency per CPU",
                ),
                Some(_) => (
                    run_bandwidth_matrix_per_cpu(context, size, pipeline)?,
                    "Read bandwidth per CPU (serial)",
                ),
            };
            if show_grid {
                println!("\n{}", matrix.render(title));
            }
            Ok(())
        },
    )
}
