//! `numabench matrix latency` and `numabench matrix bandwidth`.

use super::measuring::{measure_steps, size_or_dram};
use crate::args::{MatrixArgs, MatrixCommand, MatrixModeArg};
use crate::exit::{CliError, Status};
use numabench::bench::{MatrixKind, MatrixMode, Step};
use numabench::topology::memory_nodes;

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
        let kind = bandwidth.map_or(MatrixKind::Latency, MatrixKind::Bandwidth);
        return super::per_cpu_matrix::run(args, kind);
    }
    let show_grid = args.output.records;
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            let size = size_or_dram(
                &context.topology,
                args.size,
                &context.topology.allowed.cpus,
                &memory_nodes(&context.topology),
            )?;
            Ok(vec![match bandwidth {
                None => Step::latency_matrix(size),
                Some(mode) => Step::bandwidth_matrix(mode, size),
            }])
        },
        |_, _| {},
        |_, matrix| {
            if let (true, Some(matrix)) = (show_grid, matrix) {
                let title = match bandwidth {
                    None => "Idle latency".to_string(),
                    Some(mode) => format!("Read bandwidth ({})", mode.name()),
                };
                println!("\n{}", matrix.render(&title));
            }
        },
    )
}
