//! The loops the bandwidth kernels and STREAM are made of, as one set of
//! functions: `bandwidth`'s copy and triad and `stream`'s copy, scale, add
//! and triad run the same code, so both commands move the same bytes.

use super::spec::KernelSpec;

/// One loop over the arrays `a` (written, or read by `Read`), `b` and `c`
/// (read), with the scalar `s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KernelLoop {
    /// `sum += a[i]` (returns the sum).
    Read,
    /// `a[i] = s`.
    Write,
    /// `a[i] = b[i]`.
    Copy,
    /// `a[i] = s * b[i]` (STREAM's scale).
    Scale,
    /// `a[i] = b[i] + c[i]` (STREAM's add).
    Add,
    /// `a[i] = b[i] + s * c[i]`.
    Triad,
}

impl KernelLoop {
    /// Arrays read besides `a` (0, 1 or 2): how many of `b`, `c` it uses.
    pub fn sources(self) -> usize {
        match self {
            KernelLoop::Read | KernelLoop::Write => 0,
            KernelLoop::Copy | KernelLoop::Scale => 1,
            KernelLoop::Add | KernelLoop::Triad => 2,
        }
    }
}

impl KernelSpec {
    /// The loop this bandwidth kernel runs (its `-nt` flag picks the stores).
    pub fn kernel_loop(&self) -> KernelLoop {
        match (self.reads, self.writes) {
            (1, 0) => KernelLoop::Read,
            (0, 1) => KernelLoop::Write,
            (1, 1) => KernelLoop::Copy,
            _ => KernelLoop::Triad,
        }
    }
}
