//! Threads: pinning to one CPU, a spin barrier for synchronised starts, a
//! pool that runs one pinned worker per CPU of a plan, and the CPU orders
//! plans take their CPUs in.

mod barrier;
mod order;
mod pin;
mod pool;

pub use barrier::{AbortOnDrop, Aborted, SpinBarrier};
#[cfg(test)]
pub(crate) use order::tests::smt_server;
pub use order::CpuOrder;
pub use pin::{current_cpu, pin_current_thread, PinError};
pub use pool::{run_pinned, WorkerContext};
