//! The application kernels by name.

use super::cg::CgKernel;
use super::kernel::{AppKernel, NpbClass};
use super::mg::MgKernel;
use super::stream::StreamKernel;
use crate::kernels::SimdLevel;

/// An application kernel and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppChoice {
    /// STREAM; `simd` forces a SIMD level (`None`: calibrated per loop).
    Stream {
        elements: usize,
        iterations: usize,
        simd: Option<SimdLevel>,
    },
    Mg {
        class: NpbClass,
    },
    Cg {
        class: NpbClass,
    },
}

impl AppChoice {
    /// A fresh kernel.
    pub fn make(&self) -> Box<dyn AppKernel> {
        match *self {
            AppChoice::Stream {
                elements,
                iterations,
                simd,
            } => Box::new(StreamKernel::new(elements, iterations, simd)),
            AppChoice::Mg { class } => Box::new(MgKernel::new(class)),
            AppChoice::Cg { class } => Box::new(CgKernel::new(class)),
        }
    }

    /// `cg`, `mg` or `stream`.
    pub fn name(&self) -> &'static str {
        match self {
            AppChoice::Stream { .. } => "stream",
            AppChoice::Mg { .. } => "mg",
            AppChoice::Cg { .. } => "cg",
        }
    }

    /// The NPB class, for CG and MG.
    pub fn class(&self) -> Option<NpbClass> {
        match self {
            AppChoice::Stream { .. } => None,
            AppChoice::Mg { class } | AppChoice::Cg { class } => Some(*class),
        }
    }

    /// Bytes of the main arrays (computed without allocating).
    pub fn memory_bytes(&self) -> u64 {
        match *self {
            AppChoice::Stream { elements, .. } => 24 * elements as u64,
            AppChoice::Mg { class } => MgKernel::memory_bytes_for(class),
            AppChoice::Cg { class } => CgKernel::memory_bytes_for(class),
        }
    }

    /// STREAM's elements per array (`None` for CG and MG, whose size is
    /// their class): what a time budget may cut.
    pub fn stream_elements(&self) -> Option<usize> {
        match *self {
            AppChoice::Stream { elements, .. } => Some(elements),
            AppChoice::Mg { .. } | AppChoice::Cg { .. } => None,
        }
    }

    /// The same choice with STREAM's arrays at `elements` (a budget's cut);
    /// CG and MG, or `None`, unchanged.
    pub fn with_stream_elements(self, elements: Option<usize>) -> Self {
        match (self, elements) {
            (
                AppChoice::Stream {
                    iterations, simd, ..
                },
                Some(elements),
            ) => AppChoice::Stream {
                elements,
                iterations,
                simd,
            },
            (choice, _) => choice,
        }
    }

    /// The largest of A, W, S whose arrays fit in `budget_bytes` (the
    /// default class: fits the machine and takes seconds).
    pub fn default_class(memory_for: fn(NpbClass) -> u64, budget_bytes: u64) -> NpbClass {
        [NpbClass::A, NpbClass::W]
            .into_iter()
            .find(|class| memory_for(*class) <= budget_bytes)
            .unwrap_or(NpbClass::S)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_class_is_the_largest_of_a_w_s_that_fits() {
        for memory_for in [MgKernel::memory_bytes_for, CgKernel::memory_bytes_for] {
            let (a, w) = (memory_for(NpbClass::A), memory_for(NpbClass::W));
            assert!(w < a);
            assert_eq!(AppChoice::default_class(memory_for, u64::MAX), NpbClass::A);
            assert_eq!(AppChoice::default_class(memory_for, a), NpbClass::A);
            assert_eq!(AppChoice::default_class(memory_for, a - 1), NpbClass::W);
            assert_eq!(AppChoice::default_class(memory_for, w - 1), NpbClass::S);
        }
    }
}
