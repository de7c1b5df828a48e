//! The sentences about the run: what the time budget cut or left, what a
//! cut plan cannot find, a matrix class left unfinished, and how long the
//! run took.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The metric of [`BudgetCutParams`].
pub const BUDGET_CUT: &str = "budget_cut";
/// A metric of [`BudgetParams`]: budget left that bought no more
/// measurements.
pub const BUDGET_LEFTOVER: &str = "budget_leftover";
/// A metric of [`BudgetParams`]: what a cut budget left unmeasured.
pub const BLIND_SPOT: &str = "blind_spot";
/// A metric of [`BudgetParams`] (a plan over its budget after every cut)
/// and of [`UnfinishedClassParams`] (a matrix class whose members the
/// budget did not finish).
pub const OVER_BUDGET: &str = "over_budget";
/// The metric of [`RunTimeParams`].
pub const RUN_TIME: &str = "run_time";

/// `budget_cut`: one cut the budget made (value: the seconds it saved by
/// the estimate).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetCutParams {
    /// What was cut (`sizes`, `repetitions`, `cpus`, `matrix-classes`,
    /// `working-sets`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cut: Option<String>,
    /// The budget, seconds; null when unlimited.
    pub budget_seconds: Option<f64>,
    /// The plan's estimate before the cut, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub before_seconds: Option<f64>,
    /// The plan's estimate after it, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub after_seconds: Option<f64>,
}

finding_params!(BudgetCutParams, BUDGET_CUT);

/// `budget_leftover`, `blind_spot`, and the `over_budget` of a plan that
/// stayed over its budget after every cut: the budget they were made
/// under.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetParams {
    /// The budget, seconds; null when unlimited.
    pub budget_seconds: Option<f64>,
}

finding_params!(BudgetParams, BUDGET_LEFTOVER, BLIND_SPOT, OVER_BUDGET);

/// The `over_budget` of a sampled matrix's class whose members disagreed
/// and which the budget's allowance did not finish (value: the cells
/// left inferred). An `over_budget` record carries these or
/// [`BudgetParams`]'s.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UnfinishedClassParams {
    /// The matrix (`matrix-latency`, `matrix-bandwidth`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<String>,
    /// The class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell_class: Option<u64>,
    /// Its cells not measured (inferred).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unfinished: Option<u64>,
    /// Its cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_cells: Option<u64>,
}

finding_params!(UnfinishedClassParams, OVER_BUDGET);

/// `run_time`: how long the run took against its estimate (value: the
/// elapsed seconds).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunTimeParams {
    /// The plan's estimate, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub estimated_seconds: Option<f64>,
    /// The run's time, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub elapsed_seconds: Option<f64>,
    /// Elapsed over estimated (0 without an estimate).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub elapsed_over_estimate: Option<f64>,
    /// The calibration of the estimate's rates, seconds (part of both);
    /// an older numabench did not write it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibration_seconds: Option<f64>,
    /// The rates the estimate was made with; an older numabench did not
    /// write them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate_rates: Option<EstimateRatesParams>,
}

/// The rates of numabench's cost model that a run's estimate was made
/// with (the library's `bench::CostModel`). A key a record lacks (an
/// older numabench, a file written by hand) reads as 0 or empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct EstimateRatesParams {
    /// Bytes per second of a bandwidth buffer built (allocated, placed,
    /// touched, verified).
    pub setup_bytes_per_second: f64,
    /// The same for a chase buffer, its random chain laid too.
    pub chase_setup_bytes_per_second: f64,
    /// One thread's read rate, bytes per second.
    pub thread_bytes_per_second: f64,
    /// All threads' read rate together, bytes per second; null when each
    /// thread adds its own (written as null, not left out).
    pub all_threads_bytes_per_second: Option<f64>,
    /// Seconds per dependent load from memory.
    pub load_seconds: f64,
    /// Seconds every measurement costs besides its work.
    pub measurement_seconds: f64,
    /// Seconds per repetition of a cache-to-cache pair.
    pub c2c_repetition_seconds: f64,
    /// `assumed` (the fixed assumptions) or `calibrated` (measured on this
    /// machine before the run).
    pub source: String,
}

finding_params!(RunTimeParams, RUN_TIME);
