//! Samples of repeated measurements and their statistics.

mod rank_test;
mod sample;

pub use rank_test::{mann_whitney_u, RankTest};
pub use sample::{Sample, SampleError, Summary};
