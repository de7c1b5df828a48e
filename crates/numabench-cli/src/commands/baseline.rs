//! `--baseline one-node` in plans: the baseline's step, or a note on
//! stderr when the threads do not fit on one node.

use super::app::app_plan;
use numabench::bench::PlanStep;
use numabench::experiments::{one_node_config, AppRunConfig};
use numabench::topology::Machine;
use numabench::workloads::AppChoice;

/// The baseline step of `config` (labelled as such), or `None` after
/// saying on stderr why it would not run.
pub fn baseline_plan(
    topology: &Machine,
    choice: &AppChoice,
    config: &AppRunConfig,
) -> Option<PlanStep> {
    match one_node_config(topology, config) {
        Ok(baseline) => {
            let mut step = app_plan(topology, choice, &baseline);
            step.label = format!("one-node baseline: {}", step.label);
            Some(step)
        }
        Err(reason) => {
            eprintln!("numabench: note: one-node baseline {reason}");
            None
        }
    }
}
