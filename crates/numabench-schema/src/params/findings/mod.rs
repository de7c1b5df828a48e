//! The findings' parameters: characterize's sentences about the machine
//! and the run (`summary` records, [`crate::benchmark::SUMMARY`]), one
//! type per kind of finding (or one shared by kinds whose params are the
//! same), claimed by the finding's metric ([`super::Metrics::Named`]).
//! A summary record carries its `sentence` first, then these fields.
//!
//! The metric names are numabench's `FindingKind` as written; they are
//! spelled here as constants because this crate cannot see that type,
//! and a test of numabench checks every kind's name against the constant
//! its type claims. Each field reads as `None` where a record lacks it
//! (a file written by an older numabench); the schema requires what
//! numabench always writes, and never a figure that may be null (a ratio
//! with nothing under it is written as null).

/// `impl BenchmarkParams` for a finding's params type: `summary` records
/// whose metric is one of these.
macro_rules! finding_params {
    ($type:ty, $($metric:expr),+) => {
        impl crate::params::BenchmarkParams for $type {
            const BENCHMARKS: &'static [&'static str] = &[crate::benchmark::SUMMARY];
            const METRICS: crate::params::Metrics =
                crate::params::Metrics::Named(&[$($metric),+]);
        }
    };
}

mod budget;
mod declared;
mod interference;
mod latency;
mod memory;
mod nodes;
mod pages;
mod parallelism;
mod rests_on;

pub use budget::{
    BudgetCutParams, BudgetParams, EstimateRatesParams, RunTimeParams, UnfinishedClassParams,
    BLIND_SPOT, BUDGET_CUT, BUDGET_LEFTOVER, OVER_BUDGET, RUN_TIME,
};
pub use declared::{
    DeclaredGapParams, DeclaredMismatchParams, DeclaredRowParams, DECLARED_GAP, DECLARED_MISMATCH,
};
pub use interference::{InterferenceFindingParams, INTERFERENCE};
pub use latency::{IdleLatencyParams, MemoryLatencyParams, IDLE_LATENCY, MEMORY_LATENCY};
pub use memory::{
    BandwidthSaturationParams, MemoryBandwidthParams, SerialInitParams, BANDWIDTH_SATURATION,
    MEMORY_BANDWIDTH, SERIAL_INIT,
};
pub use nodes::{
    CpulessNodeParams, SlowCpuParams, SlowNodePairParams, SlowNodeParams, CPULESS_NODE, SLOW_CPU,
    SLOW_NODE, SLOW_NODE_PAIR,
};
pub use pages::{HugePagesParams, PlacementVerifiedParams, HUGE_PAGES, PLACEMENT_VERIFIED};
pub use parallelism::{C2cFindingParams, MlpFindingParams, C2C, MLP};
pub use rests_on::{AdviceParams, DoctorWarningParams, ADVICE, DOCTOR_WARNING};

/// A pair of figures, smallest then largest (`[100.0, 190.0]`).
pub type Span = [f64; 2];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips;
    use serde_json::json;

    /// Params as numabench writes them read back and write again as the
    /// same text: a flattened level map keeps its place before
    /// `measured_as_memory`, a null budget stays null, an absent latency
    /// pair stays absent.
    #[test]
    fn findings_params_round_trip() {
        assert_round_trips::<IdleLatencyParams>(json!({"cpu": 0, "l1_ns": 1.23,
            "l1_size_bytes": 24576, "memory_ns": 101.0, "memory_size_bytes": 2147483648u64,
            "measured_as_memory": ["L3"]}));
        assert_round_trips::<BudgetCutParams>(json!({"cut": "sizes", "budget_seconds": null,
            "before_seconds": 200.0, "after_seconds": 120.0}));
        assert_round_trips::<BudgetParams>(json!({"budget_seconds": 60.0}));
        assert_round_trips::<InterferenceFindingParams>(json!({"pairs": 3,
            "bandwidth_victim_node": 1, "bandwidth_aggressor_node": 2,
            "bandwidth_load": "writes", "bandwidth_ratio": 0.4, "bandwidth_p_value": 0.01}));
        assert_round_trips::<MemoryLatencyParams>(json!({"local_ns": [100.0, 100.0],
            "remote_ns": [190.0, 210.0], "worst_cpu_node": 1, "worst_mem_node": 0,
            "value_is": "worst remote latency over local", "ci95_rel": 0.0}));
        assert_round_trips::<C2cFindingParams>(json!({"same_node_ns": [30.0, 34.0],
            "cross_node_ns": [120.0, 140.0]}));
        let read: IdleLatencyParams =
            serde_json::from_value(json!({"cpu": 2, "l1_ns": 1.5})).unwrap();
        assert_eq!(
            (read.cpu, read.levels["l1_ns"].as_f64()),
            (Some(2), Some(1.5))
        );
    }
}
