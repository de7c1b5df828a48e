//! `numabench stream`.

use super::app::run_app;
use crate::args::StreamArgs;
use crate::exit::{CliError, Status};
use numabench::workloads::{AppChoice, StreamKernel};
use std::path::Path;

/// STREAM's array size from `--size` or its rule.
/// (`plan`: of the topology a plan describes; a topology file that gives
/// no free memory counts its nodes' total.)
pub fn stream_elements(
    size: Option<u64>,
    plan: bool,
    topology_file: Option<&Path>,
) -> Result<usize, CliError> {
    let topology = super::measuring::topology(plan, topology_file)?;
    let free: u64 = topology
        .nodes
        .iter()
        .map(|node| node.memory_free_bytes.unwrap_or(node.memory_total_bytes))
        .sum();
    Ok(match size {
        Some(bytes) => (bytes / 8).max(1) as usize,
        None => {
            // The team runs on the allowed CPUs, its memory on their nodes.
            let nodes = numabench::topology::cpu_nodes(&topology);
            let in_front = topology.cache_bytes_in_front(&topology.allowed.cpus, &nodes);
            // Half the free memory, less under this process's memory limit.
            let budget = numabench::bench::within_memory_limit(&topology, free / 2);
            StreamKernel::default_elements(in_front, budget)
        }
    })
}

pub fn run(args: &StreamArgs) -> Result<Status, CliError> {
    let choice = AppChoice::Stream {
        elements: stream_elements(
            args.size,
            args.app.planning.plan,
            args.app.planning.topology.as_deref(),
        )?,
        iterations: args.iterations as usize,
        simd: args.simd,
    };
    run_app(choice, &args.app, &args.output)
}
