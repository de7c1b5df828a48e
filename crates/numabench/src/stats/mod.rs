//! Samples of repeated measurements and their statistics.

mod sample;

pub use sample::{Sample, SampleError, Summary};
