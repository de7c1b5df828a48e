//! `numabench cluster`: every host of an MPI job measures the same
//! node-level subset (topology and doctor settings, STREAM triad per
//! node, idle latency, a short bandwidth matrix) and pairs of hosts
//! measure MPI ping-pong; rank 0 gathers every record, tagged with host
//! and rank, and names outlier hosts and hosts whose settings differ from
//! the majority.
//!
//! Everything but the MPI exchange (`mpi_run`, feature `mpi`) is
//! MPI-free and unit-tested: the outlier rule, the settings comparison,
//! the verdict, the parts and what each measures on one host.

mod check_part;
mod cost;
mod host_table;
mod measure;
#[cfg(feature = "mpi")]
mod mpi_run;
mod outlier;
mod parts;
mod pingpong_summary;
mod settings;
mod tags;
mod verdict;
#[cfg(feature = "mpi")]
mod wait;
#[cfg(test)]
mod wire_tests;

pub use check_part::{
    baseline_from_records, compare_with_baseline, measure_check, BaselineFinding,
    ClusterBaselineError, PLAN_METRIC,
};
pub use cost::{
    pingpong_cost, pingpong_rounds, recheck_pairs, ClusterPlan, Pairing, PingpongCost,
    ASSUMED_LINK_BYTES_PER_SECOND, ASSUMED_LINK_LATENCY_SECONDS, PINGPONG_BUDGET_SECONDS,
    ROUNDS_RULE,
};
pub use host_table::host_table;
pub use measure::{measure_part, Measured, Sizing, CLUSTER_ORDER};
#[cfg(feature = "mpi")]
pub use mpi_run::{AlreadyInitialized, ClusterConfig, ClusterOutcome, ClusterSession};
pub use outlier::{median, Deviation, OutlierRule, MAD_SCALE, MIN_UNITS};
pub use parts::{
    default_part, pingpong_pairs, pingpong_rule, select_parts, Part, PartsError, Per,
    ALL_PAIRS_UP_TO, PARTS,
};
pub use pingpong_summary::pingpong_summaries;
pub use settings::{differing, host_settings, Difference, MEMORY_TOLERANCE};
#[cfg(feature = "mpi")]
pub use tags::every_rank_host;
pub use tags::{host_name, Origin};
pub use verdict::{analyze, ClusterVerdict, Failure, OutlierFinding};
