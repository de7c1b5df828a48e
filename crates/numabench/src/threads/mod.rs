//! Threads: pinning to one CPU, a spin barrier for synchronised starts, the
//! one pool of pinned workers ([`Pool`]: the application runtime's team keeps
//! one, [`run_pinned`] makes one per call for the micro-benchmarks), and the
//! CPU orders plans take their CPUs in.

mod barrier;
mod order;
mod pin;
mod pool;
mod run_pinned;

pub use barrier::{AbortOnDrop, Aborted, SpinBarrier};
#[cfg(test)]
pub(crate) use order::tests::smt_server;
pub use order::CpuOrder;
pub use pin::{current_cpu, pin_current_thread, PinError};
pub use pool::Pool;
pub use run_pinned::{run_pinned, WorkerContext};
