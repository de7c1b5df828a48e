//! The application kernels by name.

use super::kernel::{AppKernel, NpbClass};
use super::stream::StreamKernel;

/// An application kernel and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppChoice {
    Stream { elements: usize, iterations: usize },
}

impl AppChoice {
    /// A fresh kernel.
    pub fn make(&self) -> Box<dyn AppKernel> {
        match *self {
            AppChoice::Stream {
                elements,
                iterations,
            } => Box::new(StreamKernel::new(elements, iterations)),
        }
    }

    /// `cg`, `mg` or `stream`.
    pub fn name(&self) -> &'static str {
        match self {
            AppChoice::Stream { .. } => "stream",
        }
    }

    /// The NPB class, for CG and MG.
    pub fn class(&self) -> Option<NpbClass> {
        match self {
            AppChoice::Stream { .. } => None,
        }
    }

    /// Bytes of the main arrays.
    pub fn memory_bytes(&self) -> u64 {
        self.make().memory_bytes()
    }
}
