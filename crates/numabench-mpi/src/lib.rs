//! `libnumabench_mpi.so`: the MPI runtime monitor, a PMPI interposer loaded
//! with `LD_PRELOAD` into unmodified MPI programs (C and Fortran bindings).
//!
//! The interposer itself (the exported `MPI_*` and `mpi_*_` symbols, the
//! per-host shared-memory table and the gathering at `MPI_Finalize`) is
//! built only with the `mpi` feature, so that the default workspace build
//! does not need MPI. What needs no MPI (message size classes, TLP from the
//! table's time-at-level accounting, the records written) is always built
//! and unit-tested.

pub mod cores;
pub mod report;
pub mod utc;

#[cfg(feature = "mpi")]
mod c_api;
#[cfg(feature = "mpi")]
mod fortran;
#[cfg(feature = "mpi")]
mod host_table;
#[cfg(feature = "mpi")]
mod lifecycle;
#[cfg(feature = "mpi")]
mod state;
