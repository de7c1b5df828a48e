//! What is measured with the workloads: one run of a workload under a
//! placement and its records ([`run_repeated`], [`emit_app_records`]), the
//! migration cost, the one-node baseline, thread scaling, node splits, and
//! the placement study (its grid, runs and verdicts, scheduled by
//! [`crate::study`]).

mod baseline;
mod execute;
mod migration_cost;
mod scaling;
mod splits;
mod study;
mod study_grid;
mod study_run;
mod study_verdict;

pub use baseline::{one_node_config, run_one_node_baseline, run_with_one_node_baseline};
pub use execute::{
    emit_app_records, placement_note, run_once, run_repeated, worker_cpus, AppRun, AppRunConfig,
    AppSummary, BaselineNotRun, OneNodeBaseline,
};
pub use migration_cost::migration_cost_seconds;
pub use scaling::{
    nodes_used, parse_thread_counts, run_thread_scaling, scaling_configs, scaling_cpus,
    scaling_order_name, sweep_counts, ScalingError, ScalingRow, ThreadCountsError,
    CORES_FIRST_BY_NODE,
};
pub use splits::{
    enumerate_node_splits, node_split_of_cpus, one_node_cpus, split_text, NodeSplit, SkippedSplit,
    SplitEnumeration,
};
pub use study::{render_study, StudyRow};
pub use study_grid::{
    run_study_baselines, study_baselines, study_grid, study_placements, NoSplitFits, StudyGrid,
    StudyGridRequest,
};
pub use study_run::{run_placement_study, verdict_record, PlacementStudyError};
pub use study_verdict::{
    exclusion, fastest, repeatability, smallest_p_value, Exclusion, Fastest, Repeatability,
    MIN_RUNS_FOR_REPEATABILITY, SIGNIFICANCE,
};
