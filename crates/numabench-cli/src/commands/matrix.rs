//! `numabench matrix latency` and `numabench matrix bandwidth`.

use super::measuring::{measure, size_or_dram};
use crate::args::{MatrixArgs, MatrixCommand, MatrixModeArg};
use crate::exit::{CliError, Status};
use numabench::bench::{memory_nodes, run_bandwidth_matrix, run_latency_matrix, MatrixMode};

pub fn run(command: &MatrixCommand) -> Result<Status, CliError> {
    match command {
        MatrixCommand::Latency(args) => run_matrix(args, None),
        MatrixCommand::Bandwidth(args) => run_matrix(
            &args.matrix,
            Some(match args.mode {
                MatrixModeArg::Serial => MatrixMode::Serial,
                MatrixModeArg::Parallel => MatrixMode::Parallel,
            }),
        ),
    }
}

fn run_matrix(args: &MatrixArgs, bandwidth: Option<MatrixMode>) -> Result<Status, CliError> {
    if args.per_cpu {
        return super::per_cpu_matrix::run(args, bandwidth);
    }
    let show_grid = !args.output.json;
    measure(
        &args.run,
        &args.output,
        |context| {
            size_or_dram(
                &context.topology,
                args.size,
                &context.topology.allowed.cpus,
                &memory_nodes(&context.topology),
            )
        },
        |context, size, pipeline| {
            let (matrix, title) = match bandwidth {
                None => (
                    run_latency_matrix(context, size, pipeline)?,
                    "Idle latency".to_string(),
                ),
                Some(mode) => (
                    run_bandwidth_matrix(context, mode, size, pipeline)?,
                    format!("Read bandwidth ({})", mode.name()),
                ),
            };
            if show_grid {
                println!("\n{}", matrix.render(&title));
            }
            Ok(())
        },
    )
}
