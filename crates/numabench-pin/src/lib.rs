//! `libnumabench_pin.so`: pins threads of programs numabench did not write.
//!
//! Two faces, one library:
//!
//! - **LD_PRELOAD shim** ([`shim`]): exports `pthread_create`. With
//!   `NUMABENCH_PIN_CPUS` set, every thread created through `pthread_create` starts in a
//!   trampoline that pins it to the next CPU of that list *before* the user's start
//!   routine runs (so before it touches memory). Without the variable it only forwards.
//!   With `NUMABENCH_PIN_COUNTER` (a file shared by the processes of a run, [`counter`])
//!   the count goes on across processes: each process's main thread, at load or at
//!   fork, and each new thread take the next CPU. With `NUMABENCH_PIN_RANKS`, a process
//!   an MPI launcher names a rank gets its own block of the list instead ([`ranks`]),
//!   and starts on that whole block: the shim also exports `execve` (`exec`), which
//!   widens the launcher's forked child from its one-CPU pin to the rank's block.
//! - **C API** ([`capi`], `include/numabench_pin.h`): `numabench_pin_thread`,
//!   `numabench_pin_self_to_node`, `numabench_pin_cpu_count`.
//!
//! Note that linking a program against this library (for the C API) also puts the
//! shim's `pthread_create` in front of libc's; it stays a pure forwarder unless
//! `NUMABENCH_PIN_CPUS` is set.

pub mod affinity;
pub mod capi;
pub mod counter;
pub mod cpulist;
mod deferred;
mod diag;
pub mod exec;
pub mod ranks;
pub mod shim;
