//! `libnumabench_mpi.so`: the MPI runtime monitor, a PMPI interposer loaded
//! with `LD_PRELOAD` into unmodified MPI programs (C and Fortran bindings).
//!
//! The interposer itself (the exported `MPI_*` and `mpi_*_` symbols, the
//! gathering at `MPI_Finalize`) is built only with the `mpi` feature, so
//! that the default workspace build does not need MPI and exports no MPI
//! symbol. What needs no MPI (the per-host shared-memory table, the
//! per-call accounting, message size classes, TLP, the records written)
//! is always built and unit-tested.

pub mod cores;
pub mod report;
pub mod utc;

#[cfg(feature = "mpi")]
mod c_api;
#[cfg(feature = "mpi")]
mod fortran;
// MPI-free (shared memory, clocks, per-thread depth): always built, so
// that their unit tests run in the default build; used by the wrappers.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
mod host_table;
#[cfg(feature = "mpi")]
mod lifecycle;
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
mod state;

/// Serialises the unit tests that use the process-wide table and counters.
#[cfg(test)]
static TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
