//! What is measured with the workloads: one run of a workload under a
//! placement and its records ([`run_repeated`], [`emit_app_records`]), the
//! migration cost, the one-node baseline, thread scaling, node splits, and
//! the placement study (its grid, runs and verdicts, scheduled by
//! [`crate::study`]).

mod baseline;
mod execute;
mod migration_cost;
mod placement_study;
mod scaling;
mod splits;

pub use baseline::{one_node_config, run_one_node_baseline, run_with_one_node_baseline};
pub use execute::{
    emit_app_records, placement_note, run_once, run_repeated, worker_cpus, AppRun, AppRunConfig,
    AppSummary, BaselineNotRun, OneNodeBaseline,
};
pub use migration_cost::migration_cost_seconds;
pub use placement_study::{
    exclusion, fastest, render_study, repeatability, run_placement_study, run_study_baselines,
    smallest_p_value, study_baselines, study_grid, study_placements, verdict_record, Exclusion,
    Fastest, NoSplitFits, PlacementStudyError, Repeatability, StudyGrid, StudyGridRequest,
    StudyRow, MIN_RUNS_FOR_REPEATABILITY, SIGNIFICANCE,
};
pub use scaling::{
    nodes_used, parse_thread_counts, run_thread_scaling, scaling_configs, scaling_cpus,
    scaling_order_name, sweep_counts, ScalingError, ScalingRow, ThreadCountsError,
    CORES_FIRST_BY_NODE,
};
pub use splits::{
    enumerate_node_splits, node_split_of_cpus, one_node_cpus, split_text, NodeSplit, SkippedSplit,
    SplitEnumeration,
};

#[cfg(test)]
mod params_tests;
