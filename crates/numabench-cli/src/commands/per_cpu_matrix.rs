//! `matrix latency --per-cpu` and `matrix bandwidth --per-cpu`: a row per
//! allowed CPU (one step each: one thread on it against every memory
//! node), printed as one grid at the end.

use super::matrix::MatrixArgs;
use super::measuring::measure_steps;
use crate::exit::{CliError, Status};
use numabench::bench::{
    check_memory_fits, working_set_for, BenchError, MatrixKind, MatrixMode, NodeMatrix, Step,
    MATRIX_ORDER,
};
use numabench::topology::memory_nodes;

/// Runs the per-CPU matrix of `kind`; bandwidth only in `serial` mode
/// (one thread per CPU).
pub fn run(
    args: &MatrixArgs,
    kind: MatrixKind,
    simd: Option<numabench::kernels::SimdLevel>,
) -> Result<Status, CliError> {
    let show_grid = args.output.records;
    let mut grid: Option<NodeMatrix> = None;
    let status = measure_steps(
        &args.run,
        &args.output,
        |context| {
            context.simd = simd;
            if kind == MatrixKind::Bandwidth(MatrixMode::Parallel) {
                return Err(BenchError::Invalid(
                    "--per-cpu measures one thread per CPU: it cannot be combined with --mode parallel"
                        .into(),
                ));
            }
            let topology = &context.topology;
            let nodes = memory_nodes(topology);
            MATRIX_ORDER
                .all_allowed(topology)
                .into_iter()
                .map(|cpu| {
                    // --size, or this CPU's one-thread DRAM working set over every memory node.
                    let size = args
                        .size
                        .unwrap_or_else(|| working_set_for(topology, &[cpu], &nodes).bytes);
                    // Each cell binds the buffer to one node: it must fit each.
                    for node in &nodes {
                        check_memory_fits(topology, &[*node], size)?;
                    }
                    Ok(Step::cpu_matrix_row(cpu, kind, size))
                })
                .collect()
        },
        |_, _| {},
        |_, row| match (&mut grid, row) {
            (Some(grid), Some(row)) => grid.append(row),
            (slot @ None, row) => *slot = row,
            (Some(_), None) => {}
        },
    )?;
    if let (true, Some(grid)) = (show_grid, grid) {
        let title = match kind {
            MatrixKind::Latency => "Idle latency per CPU",
            MatrixKind::Bandwidth(_) => "Read bandwidth per CPU (serial)",
        };
        println!("\n{}", grid.render(title));
    }
    Ok(status)
}
