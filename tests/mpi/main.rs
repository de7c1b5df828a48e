//! MPI behaviour with real OpenMPI processes: `cluster` on one host and on
//! several hosts (network namespaces joined by TCP), the runtime monitor and
//! the over-decomposition study. Built only with the `mpi` feature.

mod overdecompose;
