//! `tiers advise`: which DRAM:tier interleave ratio reads and writes
//! fastest from each socket, measured, against DRAM only, plain interleave
//! and the kernel's own weights, and the weights to apply.
//!
//! A study of its own, like `placement-study`: not in the registry (it
//! has no `characterize` steps), run as one step by its command.

mod advise;
mod config;
mod measure;
mod plan;
mod run;

pub use advise::apply_lines;
pub use config::{
    mix_kernels, sockets_of, ThreadCount, TierSocket, TiersConfig, TiersError, Weights,
    DEFAULT_MIXES, DEFAULT_RATIOS,
};
pub use measure::run_tiers;
