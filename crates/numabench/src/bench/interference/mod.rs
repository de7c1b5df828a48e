//! `interference`: how much one node's traffic slows another's. For each
//! victim node and each aggressor node, the victim's idle latency and
//! read bandwidth alone, then while the aggressor's threads load the
//! aggressor node (reads, then writes), in interleaved rounds; the
//! degradation matrix with its significance, the finding naming the worst
//! pair, and a heatmap in the report.
//!
//! A study of its own, like `tiers advise`: not in the registry (it has no
//! `characterize` steps), run as one step by its command.

mod config;
mod degradation;
mod measure;
mod plan;
mod records;
pub mod report;
mod run;

pub use config::{
    aggressor_bytes, cpus_near, default_pairs, pairs_of, Aggressor, InterferenceConfig, Pair,
    PairsError, Victim, EVERY_PAIR_UP_TO, MIN_AGGRESSOR_BYTES,
};
pub use run::run_interference;
