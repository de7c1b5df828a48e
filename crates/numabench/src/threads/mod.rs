//! Threads: pinning to one CPU, a spin barrier for synchronised starts, and
//! a pool that runs one pinned worker per CPU of a plan.

mod barrier;
mod pin;
mod pool;

pub use barrier::{AbortOnDrop, Aborted, SpinBarrier};
pub use pin::{current_cpu, pin_current_thread, PinError};
pub use pool::{run_pinned, WorkerContext};
