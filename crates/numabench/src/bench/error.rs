//! Benchmark failures, split by who must act: the user (bad input, exit 2)
//! or the system.

use crate::memory::MemoryError;
use crate::output::OutputError;
use crate::threads::PinError;
use thiserror::Error;

/// Why a benchmark could not run or finish.
///
/// Fault: the user's for `Invalid`; what memory, pinning and the outputs
/// say otherwise.
#[derive(Debug, Error)]
pub enum BenchError {
    /// The request cannot be satisfied on this machine (unknown node, size
    /// too large, CPU-less node as CPU node...). Detected before allocating.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Memory(#[from] MemoryError),
    #[error(transparent)]
    Pin(#[from] PinError),
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A `tiers advise` (or `scan --threads`) request that cannot run.
    #[error(transparent)]
    Tiers(#[from] crate::bench::tiers::TiersError),
    /// Interference victims and aggressors that cannot be measured.
    #[error(transparent)]
    Pairs(#[from] crate::bench::interference::PairsError),
    /// `--only`/`--skip` naming no benchmark.
    #[error(transparent)]
    Selection(#[from] crate::bench::SelectionError),
}

impl crate::error::Faulty for BenchError {
    fn fault(&self) -> crate::error::Fault {
        use crate::error::Fault;
        match self {
            BenchError::Invalid(_) => Fault::Usage,
            BenchError::Memory(error) => error.fault(),
            BenchError::Pin(error) => error.fault(),
            BenchError::Output(error) => error.fault(),
            BenchError::Tiers(error) => error.fault(),
            BenchError::Pairs(error) => error.fault(),
            BenchError::Selection(error) => error.fault(),
        }
    }
}
