//! `libnumabench_mpi.so`: the MPI runtime monitor, a PMPI interposer loaded
//! with `LD_PRELOAD` into unmodified MPI programs (C and Fortran bindings).
//!
//! Built only with the `mpi` feature; without it this library is empty so
//! that the default workspace build does not need MPI.
