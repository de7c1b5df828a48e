//! `numabench mg` (and cg).

use super::app::run_app;
use crate::args::NpbArgs;
use crate::exit::{CliError, Status};
use numabench::workloads::{AppChoice, CgKernel, MgKernel, NpbClass};
use std::path::Path;

/// Half the free memory of the allowed nodes, less under this process's
/// memory limit: what the default class may take (`plan`: of the topology
/// a plan describes; where it gives no free memory, the total).
fn budget_bytes(plan: bool, topology_file: Option<&Path>) -> Result<u64, CliError> {
    let topology = super::measuring::topology(plan, topology_file)?;
    let free: u64 = topology
        .nodes
        .iter()
        .filter(|node| topology.allowed.nodes.contains(&node.index))
        .map(|node| node.memory_free_bytes.unwrap_or(node.memory_total_bytes))
        .sum();
    Ok(numabench::bench::within_memory_limit(&topology, free / 2))
}

/// The class from `--class`, or the default for this machine.
pub fn class_or_default(
    class: Option<NpbClass>,
    memory_for: fn(NpbClass) -> u64,
    plan: bool,
    topology_file: Option<&Path>,
) -> Result<NpbClass, CliError> {
    match class {
        Some(class) => Ok(class),
        None => Ok(AppChoice::default_class(
            memory_for,
            budget_bytes(plan, topology_file)?,
        )),
    }
}

pub fn run_mg(args: &NpbArgs) -> Result<Status, CliError> {
    let class = class_or_default(
        args.class,
        MgKernel::memory_bytes_for,
        args.app.planning.plan,
        args.app.planning.topology.as_deref(),
    )?;
    run_app(AppChoice::Mg { class }, &args.app, &args.output)
}

pub fn run_cg(args: &NpbArgs) -> Result<Status, CliError> {
    let class = class_or_default(
        args.class,
        CgKernel::memory_bytes_for,
        args.app.planning.plan,
        args.app.planning.topology.as_deref(),
    )?;
    run_app(AppChoice::Cg { class }, &args.app, &args.output)
}
