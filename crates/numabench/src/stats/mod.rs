//! Samples of repeated measurements, their statistics, and the rule that
//! says when to stop repeating.

mod rank_test;
mod sample;
mod stopping;

pub use numabench_schema::Summary;
pub use rank_test::{mann_whitney_u, RankTest};
pub use sample::{Sample, SampleError};
pub use stopping::{
    median_ci95_rel, ConvergenceParams, Repetitions, StoppedBy, StoppingRule, CI95_TARGET_REL,
    MIN_REPETITIONS,
};
