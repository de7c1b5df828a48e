//! `numabench matrix latency` and `numabench matrix bandwidth`.

use super::measuring::measure_sampled_steps;
use crate::args::{MatrixArgs, MatrixCommand, MatrixModeArg};
use crate::exit::{CliError, Status};
use numabench::bench::{
    check_memory_fits, matrix_cell_working_set, MatrixCut, MatrixKind, MatrixMode, Step,
};
use numabench::kernels::SimdLevel;
use numabench::topology::memory_nodes;

pub fn run(command: &MatrixCommand) -> Result<Status, CliError> {
    match command {
        MatrixCommand::Latency(args) => run_matrix(args, None, None),
        MatrixCommand::Bandwidth(args) => run_matrix(
            &args.matrix,
            Some(match args.mode {
                MatrixModeArg::Serial => MatrixMode::Serial,
                MatrixModeArg::Parallel => MatrixMode::Parallel,
            }),
            args.simd,
        ),
    }
}

fn run_matrix(
    args: &MatrixArgs,
    bandwidth: Option<MatrixMode>,
    simd: Option<SimdLevel>,
) -> Result<Status, CliError> {
    if args.per_cpu {
        let kind = bandwidth.map_or(MatrixKind::Latency, MatrixKind::Bandwidth);
        return super::per_cpu_matrix::run(args, kind, simd);
    }
    let show_grid = args.output.records;
    let matrix = match args.full_matrix {
        true => MatrixCut::Never,
        false => MatrixCut::Seeded(crate::args::DEFAULT_CLASS_SEED),
    };
    measure_sampled_steps(
        &args.run,
        &args.output,
        matrix,
        |context| {
            context.simd = simd;
            // Default: 4x the caches in front of one row's CPUs and one
            // node, as characterize's matrices (not every CPU's caches).
            let kind = bandwidth.map_or(MatrixKind::Latency, MatrixKind::Bandwidth);
            let size = args
                .size
                .unwrap_or_else(|| matrix_cell_working_set(&context.topology, kind));
            check_memory_fits(&context.topology, &memory_nodes(&context.topology), size)?;
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
