//! `libnumabench_mpi.so`: the MPI runtime monitor, a PMPI interposer loaded
//! with `LD_PRELOAD` into unmodified MPI programs (C and Fortran bindings).
//!
//! The interposer itself (the exported `MPI_*` and `mpi_*_` symbols, the
//! gathering at `MPI_Finalize`) is built only with the `mpi` feature, so
//! that the default workspace build does not need MPI and exports no MPI
//! symbol. What needs no MPI (the clocks, the per-call accounting and
//! transition logs, the merge into time per level, message size classes,
//! TLP, the records written) is always built and unit-tested.
//!
//! # Cost and accuracy
//!
//! A blocking call touches only its own process's memory: two tick
//! readings (the TSC where the kernel trusts it, about 10 ns each, else
//! CLOCK_MONOTONIC), a few additions and one store into the process's
//! transition log (and one entry in 16 a `sched_getcpu`, about 8 ns
//! through the vDSO, for where the rank ran: [`cores`]), with no lock or atomic read-modify-write below
//! MPI_THREAD_MULTIPLE and nothing shared with other ranks, so no cache
//! line moves between the ranks' cores. TLP is exact (event accounting,
//! no sampling): at MPI_Finalize each host's first rank merges the host's
//! logs in time order ([`levels`]), receiving them chunk by chunk over
//! the host communicator. The log costs 8 bytes per transition (16 per
//! blocking call): 32 MiB in memory per rank, then an unlinked temporary
//! file ([`transition_log`]); the merge at MPI_Finalize takes about as
//! long as reading the logs once (20-60 ms per million calls on a 2-vCPU
//! VM). The alternative, a sampler thread reading every rank's state at
//! 10-20 kHz, was not taken: with more ranks than cores (the case TLP is
//! for) its wake-ups are delayed exactly when many ranks are runnable,
//! which biases the figure it measures, and it takes CPU from the ranks.

pub mod buffers;
pub mod calls;
pub mod clock;
pub mod cores;
pub mod levels;
pub mod output_file;
pub mod profile;
pub mod transition_log;

#[cfg(feature = "mpi")]
mod c_api;

/// A default build (without `mpi`) makes a library of the same name that
/// monitors nothing. `numabench run --mpi-monitor` refuses it; preloaded
/// by hand it says so once, on stderr, when the process starts, instead of
/// leaving no records and no error.
#[cfg(not(feature = "mpi"))]
mod not_monitoring {
    /// Runs when the library is loaded (an ELF constructor); speaks only
    /// when `LD_PRELOAD` names this library, not in this crate's tests.
    extern "C" fn warn_when_preloaded() {
        let preloaded = std::env::var_os("LD_PRELOAD")
            .is_some_and(|value| value.to_string_lossy().contains("libnumabench_mpi"));
        if preloaded {
            let message = b"numabench-mpi: this libnumabench_mpi.so was built without the mpi feature and monitors nothing: build it with `cargo build --release -p numabench-mpi --features mpi`\n";
            // SAFETY: write(2) of a static buffer of its own length to
            // stderr; nothing else is touched.
            unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
        }
    }

    #[used]
    #[link_section = ".init_array"]
    static WARN: extern "C" fn() = warn_when_preloaded;
}
pub mod flush;
#[cfg(feature = "mpi")]
mod fortran;
#[cfg(feature = "mpi")]
mod host_merge;
#[cfg(feature = "mpi")]
mod lifecycle;
// MPI-free (per-process figures, per-thread depth): always built, so
// that its unit tests run in the default build; used by the wrappers.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
mod state;

/// Serialises the unit tests that use the process-wide table and counters.
#[cfg(test)]
static TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
