//! MPI behaviour with real OpenMPI processes: `cluster` on one host and on
//! several hosts (network namespaces joined by TCP), the runtime monitor and
//! the over-decomposition study, and `cluster` and the monitor under a
//! private single-node Slurm (`srun`), and `check` as Slurm's health check
//! program there. Built only with the `mpi` feature.

mod cluster;
mod cluster_hosts;
mod cluster_waits;
/// Several MPI hosts on one machine (network namespaces on a private bridge).
#[allow(dead_code)]
mod hosts;
mod hosts_tests;
mod monitor;
mod monitor_logs;
mod overdecompose;
mod overdecompose_hosts;
#[path = "../shared/records.rs"]
mod records;
mod run_ranks;
#[path = "../shared/mod.rs"]
mod shared;
/// A private single-node Slurm (munged, slurmctld, slurmd) for `srun` tests.
mod slurm;
mod slurm_health;
mod slurm_tests;

use std::sync::{Mutex, MutexGuard};

/// Held by every test of this binary, each taking it first (before any
/// hosts): they all time things on this machine's CPUs — the monitor's
/// blocking shares, the cluster's outlier rule, the slow host's slowdown,
/// the over-decomposition sweep — and a test running beside another would
/// see its load.
static ALONE: Mutex<()> = Mutex::new(());

/// Takes [`ALONE`] (a failed test's poison is no reason to stop).
pub fn alone() -> MutexGuard<'static, ()> {
    ALONE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
