//! The document `--plan --json` prints for every command that plans steps
//! (characterize, the micro-benchmarks, the applications, placement-study):
//! a type, so the CLI writes it by serializing it and what reads a plan
//! (the CLI's tests, a user's tool) reads it through the same type rather
//! than by string keys. The fields are in the order the document has
//! always had them (docs/plan.md); the parts a command adds only where it
//! has them are left out rather than written as null.

use super::budget::BudgetOutcome;
use super::plan::{total_seconds, PlanStep};
use serde::{Deserialize, Serialize};

/// A plan as `--plan --json` prints it (schema in docs/plan.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanDocument {
    /// Where the topology came from: this machine, or the `--topology`
    /// file the plan was made for.
    pub topology_source: String,
    /// The sum of the steps' estimates, seconds.
    pub estimated_seconds: f64,
    /// Every step, in the order a run takes them.
    pub steps: Vec<PlanStep>,
    /// The node splits of `placement-study --node-splits`; absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_splits: Option<NodeSplitsPlan>,
    /// What the time budget cut, where the command has one; absent where it
    /// has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetOutcome>,
}

impl PlanDocument {
    /// The plan of `steps` on the topology from `topology_source`, its
    /// estimate their sum; no splits, no budget.
    pub fn new(topology_source: &str, steps: Vec<PlanStep>) -> Self {
        Self {
            topology_source: topology_source.to_string(),
            estimated_seconds: total_seconds(&steps),
            steps,
            node_splits: None,
            budget: None,
        }
    }
}

/// The node splits a `placement-study --node-splits` would run (key
/// `node_splits` of its plan), as the table before its steps lists them;
/// made from the enumeration by `experiments::SplitEnumeration::plan`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeSplitsPlan {
    /// The worker threads spread over the nodes.
    pub threads: usize,
    /// The SLIT deduplicated splits mapped onto each other by a node
    /// permutation (false: no SLIT, no split deduplicated).
    pub symmetry_used: bool,
    /// The limit stopped the enumeration: more splits may exist.
    pub truncated: bool,
    /// Each distinct split that fits, in the order of the plan's steps.
    pub splits: Vec<PlannedSplit>,
    /// Each distinct split that does not fit, and why.
    pub skipped: Vec<SkippedSplitPlan>,
}

/// One split of [`NodeSplitsPlan::splits`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedSplit {
    /// Threads per node in node order, `4/0/0/0`.
    pub split: String,
    /// The workers' CPUs.
    pub cpus: Vec<u32>,
    /// The first splits found equivalent to it, written as `split`.
    pub equivalent: Vec<String>,
    /// How many equivalent splits were found in all.
    pub equivalent_count: usize,
}

/// One split of [`NodeSplitsPlan::skipped`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedSplitPlan {
    /// Threads per node in node order.
    pub split: String,
    /// Why it cannot run, as a phrase.
    pub reason: String,
}
