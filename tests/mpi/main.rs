//! MPI behaviour with real OpenMPI processes: `cluster` on one host and on
//! several hosts (network namespaces joined by TCP), the runtime monitor and
//! the over-decomposition study. Built only with the `mpi` feature.

mod cluster;
mod cluster_hosts;
/// Several MPI hosts on one machine (network namespaces on a private bridge).
#[allow(dead_code)]
mod hosts;
mod hosts_tests;
mod monitor;
mod overdecompose;
mod run_ranks;
