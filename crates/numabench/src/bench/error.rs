//! Benchmark failures, split by who must act: the user (bad input, exit 2)
//! or the system.

use crate::memory::MemoryError;
use crate::output::OutputError;
use crate::threads::PinError;
use thiserror::Error;

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
}

impl BenchError {
    /// True when the user asked for something invalid (exit status 2).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            BenchError::Invalid(_) | BenchError::Output(OutputError::Unwritable { .. })
        )
    }
}
