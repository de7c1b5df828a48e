//! The micro-benchmarks and their registry. Each benchmark validates its
//! configuration against the topology before allocating anything, places
//! and verifies its memory, pins its threads, and emits records through the
//! output pipeline as each one is measured.

mod app_budget;
mod backend;
mod bandwidth;
mod budget;
mod c2c;
pub mod cache;
mod calibration;
pub mod cell_classes;
mod characterize;
mod contention;
mod context;
mod cost_calibration;
mod declared;
mod error;
mod estimate;
pub mod interference;
mod latency;
mod latency_writer;
mod loaded_latency;
mod matrix;
mod mlp;
mod moved;
mod per_cpu;
#[cfg(test)]
mod per_cpu_tests;
mod placed;
mod plan;
mod plan_document;
pub mod plugin;
mod registry;
mod scaling;
pub mod scan;
mod step;
mod step_runner;
pub mod tiers;
mod working_set_cut;

pub use app_budget::{fit_app_budget, stream_floor_elements, AppKnobs};
pub use backend::Backend;
pub use bandwidth::{
    bandwidth_record, measure_bandwidth, run_bandwidth, BandwidthConfig, BandwidthResult,
};
pub use budget::{
    fit_budget, fit_measurements, Budget, BudgetOutcome, Cut, MatrixCut, DEFAULT_BUDGET_SECONDS,
    REPEAT_FLOOR,
};
pub use characterize::{characterize_plan, Defaults, Steps, CHARACTERIZE_ORDER};
pub use contention::{run_contention, ContentionSummary};
pub use context::Context;
pub use cost_calibration::{calibrate_cost_model, calibration_estimate_seconds};
pub use error::BenchError;
pub use estimate::{CostModel, MEASURED_ERROR};
pub use latency::{
    default_sweep_sizes, emit_latency, measure_latency, run_latency, LatencyConfig,
    LatencyMeasurement,
};
pub use latency_writer::WriterPasses;
pub use loaded_latency::{
    run_loaded_latency, LoadedLatencyConfig, LoadedPoint, TrafficMix, CURVE_DELAYS, DEFAULT_DELAYS,
};
pub use matrix::{
    matrix_cell_working_set, matrix_cpus, run_bandwidth_matrix, run_cpu_row, run_latency_matrix,
    run_node_matrix, run_sampled_matrix, CellSize, MatrixKind, MatrixMode, MatrixSample,
    NodeMatrix, MATRIX_ORDER,
};
pub use mlp::{
    run_mlp, run_mlp_threads, MlpConfig, MlpThreadsConfig, Pinning, ThreadMemory, MAX_CHAINS,
};
pub use per_cpu::{
    each_cpu_dram_bytes, each_cpu_memory, per_cpu_sample, EachCpu, OneCpu, PerCpuMeasure,
    PER_CPU_ORDER, RULE_EVERY_CPU,
};
pub use placed::{
    check_allocation, check_memory_fits, check_node_memory_fits, check_within_memory_limit,
    cpus_of_node, insert_cache_params, limit_usable_bytes, resolve_cpu, resolve_node_with_memory,
    safe_working_set_bytes, within_memory_limit, working_set_for, working_set_of_buffers,
    PlacedBuffer, WorkingSet, CACHE_MULTIPLE, HUGE_PAGE_THRESHOLD, MIN_DRAM_WORKING_SET,
    PROCESS_HEADROOM,
};
pub use plan::{app_plan_step, plan_of, total_seconds, PlanStep};
pub use plan_document::{NodeSplitsPlan, PlanDocument, PlannedSplit, SkippedSplitPlan};
pub use registry::{find, registry, select, BenchmarkInfo, SelectionError};
pub use scaling::{
    reader_nodes, run_scaling, scaling_counts, scaling_cpus, ScalingPoint, SCALING_ORDER,
};
pub use step::Step;
pub use step_runner::StepRunner;
