//! The MPI monitor's parameters (`numabench-mpi` writes them; `mpi-monitor`
//! and `overdecompose` read them): one type per kind of record, claimed
//! by metric ([`Metrics`]): each rank's figures (its times, messages and
//! switches), its buffers' pages, each host's TLP, and each MPI call type
//! over the job. Each field reads as `None` where a record lacks it (a
//! file written by hand or by an older monitor); the schema requires what
//! the monitor always writes.

use super::{BenchmarkParams, Metrics};
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a rank ran: the params of its records (`wall_time`, `mpi_time`,
/// `mpi_share`, `p2p_time`, ..., `involuntary_switches`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MonitorRankParams {
    /// The host the rank ran on.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub host: Option<String>,
    /// Its MPI_COMM_WORLD rank.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rank: Option<i64>,
    /// MPI_COMM_WORLD's size.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub ranks: Option<i64>,
    /// Its rank among the ranks of its host.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub local_rank: Option<i64>,
    /// The CPUs it was allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpus_allowed: Option<Vec<u32>>,
    /// The CPUs it was seen running on (sampled on entering blocking MPI).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpus_ran: Option<Vec<u32>>,
    /// The program's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub program: Option<String>,
}

impl BenchmarkParams for MonitorRankParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::MPI_MONITOR];
}

/// A rank's `buffer_local_share`: where the pages of its large send and
/// receive buffers were, sampled.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MonitorBufferParams {
    #[serde(flatten)]
    pub rank: MonitorRankParams,
    /// Pages on the node of the CPU the rank ran on at the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pages_local: Option<u64>,
    /// Pages on another node.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pages_remote: Option<u64>,
    /// Pages not resident or not answerable.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pages_absent: Option<u64>,
    /// Buffers of at least `min_buffer_bytes` seen, sampled or not.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub large_buffers: Option<u64>,
    /// Of them, sampled.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub sampled_buffers: Option<u64>,
    /// The least size of a buffer looked at, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub min_buffer_bytes: Option<u64>,
}

/// The metric of [`MonitorBufferParams`].
pub const BUFFER_LOCAL_SHARE: &str = "buffer_local_share";

impl BenchmarkParams for MonitorBufferParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::MPI_MONITOR];
    const METRICS: Metrics = Metrics::Named(&[BUFFER_LOCAL_SHARE]);
}

/// A host's `tlp_<n>`: the share of the time at least n times its cores
/// of its ranks ran outside blocking MPI.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MonitorHostParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub host: Option<String>,
    /// The job's ranks on the host.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub ranks_on_host: Option<u64>,
    /// The cores TLP counts with (`cores_method`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cores: Option<u64>,
    /// How `cores` is obtained (`sampled_cpu`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cores_method: Option<String>,
    /// Distinct cores the host's ranks were seen on.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cores_sampled: Option<u64>,
    /// Distinct cores the host's ranks were allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cores_allowed: Option<u64>,
}

/// The metric prefix of [`MonitorHostParams`] (`tlp_1` ... `tlp_4`).
pub const TLP_PREFIX: &str = "tlp_";

impl BenchmarkParams for MonitorHostParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::MPI_MONITOR];
    const METRICS: Metrics = Metrics::StartingWith(TLP_PREFIX);
}

/// One MPI call type over the job (`call_time`, `call_count`,
/// `call_bytes`: the total over every rank), as mpiP's aggregate tables.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MonitorCallParams {
    /// The C name (`MPI_Send`), whichever binding the program called.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub call: Option<String>,
    /// The job's ranks.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub ranks: Option<u64>,
    /// Of them, those that called it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub ranks_calling: Option<u64>,
    /// The least, mean and largest figure of one rank (0 for a rank that
    /// never called it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rank_min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rank_mean: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub rank_max: Option<f64>,
    /// `call_time` only: the share of every call type's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpi_share: Option<f64>,
    /// `call_time` only: the share of the ranks' wall time added up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_share: Option<f64>,
}

/// The metrics of [`MonitorCallParams`].
pub const CALL_METRICS: [&str; 3] = ["call_time", "call_count", "call_bytes"];

impl BenchmarkParams for MonitorCallParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::MPI_MONITOR];
    const METRICS: Metrics = Metrics::Named(&CALL_METRICS);
}

/// The tags `numabench run --mpi-monitor` puts after the params of every
/// monitor record it keeps, and before a POP efficiency's: the policy's
/// label, the repetition of that policy and command, and the command.
/// Every kind of monitor record above may carry them; they are not a
/// kind of their own (`run` writes them, the monitor does not).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MonitorRunTags {
    /// The policy's label (`pin-compact+membind:0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// Its repetition of this command, from 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repetition: Option<u64>,
    /// The command run, its words joined by spaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// The POP efficiencies numabench derives from a monitored run's rank
/// records, in this order.
pub const POP_METRICS: [&str; 3] = [
    "load_balance",
    "communication_efficiency",
    "parallel_efficiency",
];

/// A POP efficiency's params, after the run's tags (policy, repetition,
/// command).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MonitorPopParams {
    /// `job`, or `host` for one host's ranks.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub scope: Option<String>,
    /// The host, where `scope` is `host`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The ranks it is over.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub ranks: Option<u64>,
}

impl BenchmarkParams for MonitorPopParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::MPI_MONITOR];
    const METRICS: Metrics = Metrics::Named(&POP_METRICS);
}
