//! `numabench check`: a per-NUMA-node health check against a baseline,
//! for Slurm's `HealthCheckProgram`, LBNL NHC and Kubernetes'
//! node-problem-detector.
//!
//! - [`plan`]: what is measured per node (read and triad bandwidth with
//!   all the node's CPUs, local latency, latency to the nearest and the
//!   farthest other node; CPU-less memory nodes from their nearest CPU
//!   node), sized to fit a budget;
//! - [`fingerprint`]: the node type a baseline is keyed by, and what must
//!   not change on a healthy node of that type;
//! - [`baseline`]: the file (ReFrame-like references per metric, the plan);
//! - [`lock`]: one check at a time on a node;
//! - [`measure`] and [`run`]: one item measured, a check with retries,
//!   a baseline measured;
//! - [`records`]: the results as records (`--json`, `--jsonl`);
//! - [`slurm`]: this node's Slurm name, draining and resuming it as NHC
//!   does (never over someone else's reason).

pub mod baseline;
pub mod fingerprint;
pub mod lock;
pub mod measure;
pub mod plan;
pub mod records;
pub mod run;
pub mod slurm;

pub use baseline::{
    Baseline, BaselineEntry, BaselineError, BaselineFormatError, Reference, Written,
    BANDWIDTH_TOLERANCE_FLOOR, BASELINE_FORMAT, BASELINE_VERSION, LATENCY_TOLERANCE_FLOOR,
    SPREAD_MULTIPLE,
};
pub use fingerprint::{
    differences, node_fingerprint, this_node_fingerprint, Difference, Fingerprint, MEMORY_TOLERANCE,
};
pub use lock::{lock_checks, lock_path, CheckLock, LockError};
pub use measure::{measure_item, Attempt};
pub use plan::{
    item_seconds, plan_check, with_repeat, with_size, CheckItem, CheckPlan, CheckPlanEntry,
    CheckQuantity, CHECK_REPEAT, DEFAULT_BUDGET_SECONDS, LATENCY_SAMPLES,
};
pub use records::{
    item_params, item_record, metric, node_type_record, outcome_record, record_with,
};
pub use run::{
    figure, measure_baseline, run_check, CheckReport, Outcome, Problem, Tolerances, Verdict,
};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod wire_tests;
