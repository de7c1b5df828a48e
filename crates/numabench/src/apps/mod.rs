//! Application kernels run under placement schemes: NPB CG and MG, and
//! STREAM. They run on a [`Team`] of worker threads (pinned or not) and
//! keep their main arrays in [`SharedArray`]s that the team places by the
//! chosen [`PlacementScheme`].

mod baseline;
mod catalog;
mod execute;
mod huge_pages;
mod kernel;
mod migrate;
mod migration_cost;
mod next_touch;
mod observed;
mod placement;
mod scaling;
mod shared_array;
mod splits;
mod stream;
mod study;
mod study_grid;
mod study_run;
mod study_verdict;
mod team;

pub use baseline::{one_node_config, run_one_node_baseline, run_with_one_node_baseline};
pub use catalog::AppChoice;
pub use cg::CgKernel;
pub use execute::{
    emit_app_records, placement_note, run_once, run_repeated, worker_cpus, AppRun, AppRunConfig,
    AppSummary, OneNodeBaseline,
};
pub use kernel::{AppKernel, NpbClass, Verification};
pub use mg::MgKernel;
pub use migration_cost::migration_cost_seconds;
pub use observed::{observation_params, Observer, RunObservation, WorkerUsage};
pub use placement::{PlacementScheme, ThreadScheme};
pub use scaling::{
    nodes_used, parse_thread_counts, run_thread_scaling, scaling_configs, scaling_cpus,
    scaling_order_name, sweep_counts, ScalingError, ScalingRow, CORES_FIRST_BY_NODE,
};
pub use shared_array::SharedArray;
pub use splits::{
    enumerate_node_splits, node_split_of_cpus, one_node_cpus, split_text, NodeSplit, SkippedSplit,
    SplitEnumeration,
};
pub use stream::StreamKernel;
pub use study::{render_study, StudyRow};
pub use study_grid::{
    run_study_baselines, study_baselines, study_grid, study_placements, StudyGrid, StudyGridRequest,
};
pub use study_run::{run_placement_study, verdict_record, PlacementStudyError};
pub use study_verdict::{
    exclusion, fastest, repeatability, smallest_p_value, Exclusion, Fastest, Repeatability,
    MIN_RUNS_FOR_REPEATABILITY, SIGNIFICANCE,
};
pub use team::{plan_cpus, PageReport, Team, TeamError};

pub mod cg;
pub mod mg;
#[cfg(test)]
mod tests;
