//! `numabench mg` (and cg).

use super::app::run_app;
use crate::args::NpbArgs;
use crate::exit::{CliError, Status};
use numabench::apps::{AppChoice, CgKernel, MgKernel, NpbClass};

/// Free memory of the allowed nodes, for the default class (`plan`: of
/// the topology a plan describes; where it gives no free memory, the total).
fn free_bytes(plan: bool) -> Result<u64, CliError> {
    let topology = super::measuring::topology(plan)?;
    Ok(topology
        .nodes
        .iter()
        .filter(|node| topology.allowed.nodes.contains(&node.index))
        .map(|node| node.memory_free_bytes.unwrap_or(node.memory_total_bytes))
        .sum())
}

/// The class from `--class`, or the default for this machine.
pub fn class_or_default(
    class: Option<NpbClass>,
    memory_for: fn(NpbClass) -> u64,
    plan: bool,
) -> Result<NpbClass, CliError> {
    match class {
        Some(class) => Ok(class),
        None => Ok(AppChoice::default_class(memory_for, free_bytes(plan)? / 2)),
    }
}

pub fn run_mg(args: &NpbArgs) -> Result<Status, CliError> {
    let class = class_or_default(args.class, MgKernel::memory_bytes_for, args.app.plan)?;
    run_app(AppChoice::Mg { class }, &args.app, &args.output)
}

pub fn run_cg(args: &NpbArgs) -> Result<Status, CliError> {
    let class = class_or_default(args.class, CgKernel::memory_bytes_for, args.app.plan)?;
    run_app(AppChoice::Cg { class }, &args.app, &args.output)
}
