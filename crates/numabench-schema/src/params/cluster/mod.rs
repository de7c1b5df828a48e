//! `numabench cluster`'s parameters: the labels a cluster run adds to
//! every record a rank makes ([`ClusterLabels`]), and the records of its
//! own benchmarks: the verdict's (`cluster`), each host's settings
//! (`cluster-topo`) and the MPI ping-pong's (`mpi-pingpong`).

mod labels;
mod pingpong;
mod topo;
mod verdict;

pub use labels::{ClusterLabels, ClusterStreamLabels};
pub use pingpong::{
    MessageParams, PingpongBestPartnerParams, PingpongPairParams, BEST_PARTNER_SUFFIX,
};
pub use topo::{ClusterTopoParams, HostSettings};
pub use verdict::{
    BaselineProblemParams, ClusterFailureParams, ClusterOutlierParams, ClusterVerdictParams,
    DifferingSettingParams, HostRankParams, RuleParams,
};
