//! The names records carry in `benchmark`: one constant each, so that the
//! modules that write a benchmark's records and the readers that pick
//! them out (report sections, compare, summary, cluster) cannot drift
//! apart. Plugins name their own benchmarks; those are not listed here.

/// `numabench latency`: pointer chase over working-set sizes.
pub const LATENCY: &str = "latency";
/// `numabench bandwidth`: streaming kernels over working-set sizes.
pub const BANDWIDTH: &str = "bandwidth";
/// The node-to-node latency matrix.
pub const MATRIX_LATENCY: &str = "matrix-latency";
/// The node-to-node bandwidth matrix.
pub const MATRIX_BANDWIDTH: &str = "matrix-bandwidth";
/// Every CPU on its own (`numabench per-cpu`).
pub const PER_CPU: &str = "per-cpu";
/// Latency under bandwidth load.
pub const LOADED_LATENCY: &str = "loaded-latency";
/// Bandwidth over thread counts.
pub const SCALING: &str = "scaling";
/// Memory-level parallelism (`numabench mlp`).
pub const MLP: &str = "mlp";
/// Core-to-core latency (`numabench c2c`).
pub const C2C: &str = "c2c";
/// Remote-access contention.
pub const CONTENTION: &str = "contention";
/// Cache levels (`numabench cache`).
pub const CACHE: &str = "cache";
/// The interleave-ratio advisor (`numabench tiers advise`).
pub const TIERS: &str = "tiers";
/// Interference between nodes (`numabench interference`).
pub const INTERFERENCE: &str = "interference";
/// Read bandwidth of each physical range of a node (`numabench scan`).
pub const SCAN: &str = "scan";
/// The STREAM kernel of `numabench apps`.
pub const STREAM: &str = "stream";
/// NPB CG of `numabench apps`.
pub const CG: &str = "cg";
/// NPB MG of `numabench apps`.
pub const MG: &str = "mg";
/// The application kernels, in the order the report shows them.
pub const APP_KERNELS: [&str; 3] = [STREAM, CG, MG];
/// `numabench run` (and its placement studies and `--param` scans).
pub const RUN: &str = "run";
/// A cluster's per-host findings (`numabench cluster`).
pub const CLUSTER: &str = "cluster";
/// A cluster's per-host topology line.
pub const CLUSTER_TOPO: &str = "cluster-topo";
/// MPI ping-pong between hosts.
pub const MPI_PINGPONG: &str = "mpi-pingpong";
/// The cluster report's benchmarks, in order.
pub const CLUSTER_BENCHMARKS: [&str; 3] = [CLUSTER, CLUSTER_TOPO, MPI_PINGPONG];
/// A node health check's metrics (`numabench check`).
pub const CHECK: &str = "check";
/// The over-decomposition study.
pub const OVERDECOMPOSE: &str = "overdecompose";
/// The records of the MPI runtime monitor (`libnumabench_mpi.so`).
pub const MPI_MONITOR: &str = "mpi-monitor";
/// characterize's sentences about the machine.
pub const SUMMARY: &str = "summary";
/// `numabench compare`'s matched pairs.
pub const COMPARE: &str = "compare";
