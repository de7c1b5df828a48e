//! The record params that more than one reader looks at (report, compare,
//! summary, cluster), typed: their key names as constants in one place
//! ([`key`]), and [`Params`], a view of a record's `params` with one
//! accessor per shared field. Records on the wire are unchanged: `params`
//! stays an open JSON object, and a benchmark may write other keys that
//! only its own report section reads.
//!
//! The registry benchmarks' params are typed as well, one type per
//! benchmark ([`BenchmarkParams`], one file each here), written with
//! [`to_params`] and read with [`crate::Record::params_as`]; the shared
//! parts are flattened into them ([`WorkingSetParams`], [`ChaseOrderParams`],
//! [`SimdParams`]).

use serde_json::{Map, Value};

mod apps;
mod bandwidth;
mod cache;
mod chase;
mod check;
mod cluster;
mod compare;
mod contention;
mod convergence;
mod core_to_core;
mod counts;
pub mod findings;
mod interference;
mod latency;
mod loaded_latency;
mod matrix;
mod mlp;
mod mpi_monitor;
mod node_check;
mod node_keyed;
mod node_median;
mod observation;
mod overdecompose;
mod per_cpu;
mod run;
mod run_summary;
mod scaling;
mod scan;
mod simd;
mod tail;
mod tiers;
mod typed;
mod working_set;

pub use apps::{
    AppConfiguration, AppParams, AppRunParams, AppScalingParams, AppScheme, AppThreads,
    AppVerification, ExcludedConfiguration, OneNodeParams, PagesParams, ScalingOrder,
    SlowestParams, SplitParams, SpmvParams, StreamSimdParams, StudyVerdictParams,
    APP_SCALING_METRICS, STUDY_VERDICT,
};
pub use bandwidth::BandwidthParams;
pub use cache::CacheStateParams;
pub use chase::ChaseOrderParams;
pub use check::{
    CheckItemParams, CheckOutcomeParams, CheckPlanParams, FingerprintDifference, NodeTypeParams,
    CHECK_PLAN, NODE_TYPE_DIFFERENCES,
};
pub use cluster::{
    BaselineProblemParams, ClusterFailureParams, ClusterLabels, ClusterOutlierParams,
    ClusterStreamLabels, ClusterTopoParams, ClusterVerdictParams, DifferingSettingParams,
    HostRankParams, HostSettings, MessageParams, PingpongBestPartnerParams, PingpongPairParams,
    RuleParams, BEST_PARTNER_SUFFIX,
};
pub use compare::{CompareRatioParams, CompareUnmatchedParams, UNMATCHED};
pub use contention::{ContentionParams, ContentionRatioParams, CONTENTION_BANDWIDTH_SUFFIX};
pub use convergence::{ConvergenceParams, StoppedBy};
pub use core_to_core::C2cParams;
pub use counts::{CountsParams, PerfParams, ThreadUsageParams, TlpParams, WorkerUsageParams};
pub use interference::{InterferenceCellParams, InterferenceParams, INTERFERENCE_CELL_SUFFIX};
pub use latency::{CyclesParams, LatencyParams, WriterParams};
pub use loaded_latency::{LoadedLatencyParams, MemoryControllerParams};
pub use matrix::{
    CellFigure, CellRef, DeclaredParams, InferredCellParams, MatrixAsymmetryParams,
    MatrixCellParams, MATRIX_ASYMMETRY_SUFFIX,
};
pub use mlp::MlpParams;
pub use mpi_monitor::{
    MonitorBufferParams, MonitorCallParams, MonitorHostParams, MonitorPopParams, MonitorRankParams,
    MonitorRunTags, BUFFER_LOCAL_SHARE, CALL_METRICS, POP_METRICS, TLP_PREFIX,
};
pub use node_check::{CheckItem, CheckPlan, CheckQuantity, Fingerprint};
pub use node_median::{NodeMedianDeviation, NodeMedianRatioParams, NODE_MEDIAN_SUFFIX};
pub use observation::{ObservationParams, ObservationSample};
pub use overdecompose::{
    OverdecomposeCalibrationParams, OverdecomposeParams, OverdecomposeRunParams, SweepPoint,
    SweepRanks, OVERDECOMPOSE_CALIBRATION, OVERDECOMPOSE_RUN,
};
pub use per_cpu::{EachCpuFigureParams, EachCpuParams};
pub use run::{LeftoverParams, RunParams, RUN_WALL_TIME};
pub use run_summary::{
    Comparison, ObservedMeans, PolicySummaryParams, RunMeans, RunSummaryParams, ScanLabels,
    ScanRatioParams, ScanSummaryParams, RUN_SUMMARY, SCAN_RATIOS,
};
pub use scaling::{ScalingLabels, ScalingParams};
pub use scan::{ScanNodeParams, ScanNodeRangesParams, ScanRangeParams, SCAN_NODE_SUFFIX};
pub use simd::SimdParams;
pub use tail::TailParams;
pub use tiers::{
    AutoWeights, NodeWeights, TierSocketParams, TiersAdviceParams, TiersComparison, TiersLabels,
    TiersParams, TiersWeightsCheckParams, TIERS_ADVICE_SUFFIX, TIERS_WEIGHTS_CHECK_SUFFIX,
};
pub use typed::{
    to_labelled_params, to_params, typed_params_schemas, BenchmarkParams, Metrics,
    TypedParamsSchema,
};
pub use working_set::{CacheParams, WorkingSetParams};

/// Key names of the shared params.
pub mod key {
    /// The measuring CPU.
    pub const CPU: &str = "cpu";
    /// The node of the measuring CPU(s).
    pub const CPU_NODE: &str = "cpu_node";
    /// The node the memory was placed on.
    pub const MEM_NODE: &str = "mem_node";
    /// Threads that measured.
    pub const THREADS: &str = "threads";
    /// Working-set size in bytes.
    pub const SIZE_BYTES: &str = "size_bytes";
    /// The cache level the working set sits in (`L1d`, ..., `memory`).
    pub const CACHE_LEVEL: &str = "cache_level";
    /// Whether the working set was chosen to be cache-affected.
    pub const CACHE_AFFECTED: &str = "cache_affected";
    /// A matrix's mode (`serial`, `parallel`).
    pub const MODE: &str = "mode";
    /// A per-CPU matrix row (true) rather than a node row.
    pub const PER_CPU: &str = "per_cpu";
    /// One of `per-cpu`'s records, one for every CPU ([`super::EachCpuParams`]).
    pub const EACH_CPU: &str = "each_cpu";
    /// The bandwidth kernel (`read`, `copy`, ...).
    pub const KERNEL: &str = "kernel";
    /// Pointer chains of an `mlp` record.
    pub const CHAINS: &str = "chains";
    /// The firmware's (SLIT) distance between `cpu_node` and `mem_node`.
    pub const SLIT_DISTANCE: &str = "slit_distance";
    /// How `cpu_node` and `mem_node` relate (`local`, `remote`, ...).
    pub const RELATION: &str = "relation";
    /// Where memory sat relative to the CPU (`local`, `remote`).
    pub const LOCALITY: &str = "locality";
    /// A `summary` or `compare` record's sentence.
    pub const SENTENCE: &str = "sentence";
    /// The host a record was measured on (cluster, MPI monitor).
    pub const HOST: &str = "host";
}

/// A read-only, typed view of a record's `params`.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a>(pub &'a Map<String, Value>);

impl<'a> Params<'a> {
    /// An unsigned integer param.
    pub fn u64(self, key: &str) -> Option<u64> {
        self.0.get(key).and_then(Value::as_u64)
    }

    /// A number param.
    pub fn f64(self, key: &str) -> Option<f64> {
        self.0.get(key).and_then(Value::as_f64)
    }

    /// A text param.
    pub fn str(self, key: &str) -> Option<&'a str> {
        self.0.get(key).and_then(Value::as_str)
    }

    /// A boolean param.
    pub fn bool(self, key: &str) -> Option<bool> {
        self.0.get(key).and_then(Value::as_bool)
    }

    /// [`key::CPU`].
    pub fn cpu(self) -> Option<u64> {
        self.u64(key::CPU)
    }

    /// [`key::CPU_NODE`].
    pub fn cpu_node(self) -> Option<u64> {
        self.u64(key::CPU_NODE)
    }

    /// [`key::MEM_NODE`].
    pub fn mem_node(self) -> Option<u64> {
        self.u64(key::MEM_NODE)
    }

    /// [`key::THREADS`].
    pub fn threads(self) -> Option<u64> {
        self.u64(key::THREADS)
    }

    /// A scaling point's (CPU node, memory node, threads), when the record
    /// has all three.
    pub fn node_pair_threads(self) -> Option<(u64, u64, u64)> {
        Some((self.cpu_node()?, self.mem_node()?, self.threads()?))
    }

    /// [`key::SIZE_BYTES`].
    pub fn size_bytes(self) -> Option<u64> {
        self.u64(key::SIZE_BYTES)
    }

    /// [`key::CACHE_LEVEL`].
    pub fn cache_level(self) -> Option<&'a str> {
        self.str(key::CACHE_LEVEL)
    }

    /// [`key::MODE`].
    pub fn mode(self) -> Option<&'a str> {
        self.str(key::MODE)
    }

    /// [`key::PER_CPU`]; absent reads as false (a node row).
    pub fn per_cpu(self) -> bool {
        self.bool(key::PER_CPU).unwrap_or(false)
    }

    /// [`key::EACH_CPU`]; absent reads as false.
    pub fn each_cpu(self) -> bool {
        self.bool(key::EACH_CPU).unwrap_or(false)
    }

    /// [`key::CACHE_AFFECTED`].
    pub fn cache_affected(self) -> Option<bool> {
        self.bool(key::CACHE_AFFECTED)
    }

    /// [`key::KERNEL`].
    pub fn kernel(self) -> Option<&'a str> {
        self.str(key::KERNEL)
    }

    /// [`key::SLIT_DISTANCE`].
    pub fn slit_distance(self) -> Option<u64> {
        self.u64(key::SLIT_DISTANCE)
    }

    /// [`key::SENTENCE`].
    pub fn sentence(self) -> Option<&'a str> {
        self.str(key::SENTENCE)
    }
}

impl crate::Record {
    /// The typed view of `params`.
    pub fn typed_params(&self) -> Params<'_> {
        Params(&self.params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accessors_read_their_keys_and_types() {
        let map = json!({"cpu": 3, "cpu_node": 1, "mem_node": 0, "mode": "serial",
                         "per_cpu": true, "size_bytes": 4096, "cache_level": "L2"});
        let params = Params(map.as_object().unwrap());
        assert_eq!(params.cpu(), Some(3));
        assert_eq!((params.cpu_node(), params.mem_node()), (Some(1), Some(0)));
        assert_eq!(params.mode(), Some("serial"));
        assert!(params.per_cpu());
        assert_eq!(params.size_bytes(), Some(4096));
        assert_eq!(params.cache_level(), Some("L2"));
        assert_eq!(params.threads(), None);
        assert_eq!(params.node_pair_threads(), None, "no thread count");
        assert_eq!(params.u64(key::MODE), None, "a string is no number");
        let map = json!({"cpu_node": 1, "mem_node": 0, "threads": 4});
        assert_eq!(
            Params(map.as_object().unwrap()).node_pair_threads(),
            Some((1, 0, 4))
        );
    }
}
