//! The application kernels' parameters (`stream`, `cg`, `mg`: `numabench
//! apps`, its thread scaling and its placement study): a configuration's
//! run records ([`AppParams`]: `time`, `mops`, `first_iteration_time`,
//! STREAM's `<loop>_bandwidth`), a scaling point's ratios
//! ([`AppScalingParams`]) and a study's verdict ([`StudyVerdictParams`]).

mod run;
mod scaling;
mod verdict;

pub use run::{
    AppParams, AppRunParams, AppVerification, OneNodeParams, PagesParams, ScalingOrder,
    SplitParams, SpmvParams, StreamSimdParams,
};
pub use scaling::{AppScalingParams, APP_SCALING_METRICS};
pub use verdict::{ExcludedConfiguration, SlowestParams, StudyVerdictParams, STUDY_VERDICT};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a configuration's threads ran, as its run records and its scaling
/// ratios begin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AppThreads {
    /// The NPB class (`cg`, `mg`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Workers.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads: Option<u64>,
    /// Workers per CPU (over-decomposition); 1 normally.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads_per_cpu: Option<u64>,
    /// Nodes the workers' CPUs are on; null when unpinned (absent from
    /// records before it was written).
    pub nodes_used: Option<u64>,
}

/// The data placement scheme of a configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AppScheme {
    /// The scheme (`first-touch`, `serial`, `interleave`, `bind:1`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub placement: Option<String>,
    /// `kernel` or `emulated`, for a weighted interleave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weighted_mode: Option<String>,
}

/// A configuration's threads, data placement and thread scheme, as its run
/// records and its scaling ratios begin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AppConfiguration {
    #[serde(flatten)]
    pub threads: AppThreads,
    #[serde(flatten)]
    pub scheme: AppScheme,
    /// The thread scheme (`compact`, `scatter`, `unpinned`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub threads_placement: Option<String>,
}
