//! Measurement kernels: the latency chase (and its tail, timed in batches)
//! and the bandwidth kernels, with
//! SIMD variants chosen at run time for the CPU.

mod bandwidth;
mod chase;
mod choice;
mod core_clock;
mod loops;
mod rng;
mod simd;
mod spec;
pub mod tail;
mod tlb;
pub mod traffic;
mod variant;

pub use bandwidth::{run_kernel, run_loop, READ_ACCUMULATORS};
pub use chase::{build_chase, chase, chase_many, ChaseBlock, ChaseOrder};
pub use choice::{Choice, SimdChoice, Variant};
pub use core_clock::core_clock_ghz;
pub use loops::KernelLoop;
pub use rng::{mix, SplitMix64};
pub use simd::SimdLevel;
pub use spec::{kernel_by_name, KernelSpec, KERNELS};
pub use tlb::{tlb_block, DEFAULT_TLB_ENTRIES};
pub use variant::LoopVariant;
