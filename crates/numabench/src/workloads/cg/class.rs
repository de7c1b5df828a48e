//! CG class parameters and verification values (NPB 3.x; see
//! `/work/shared/npb/verification.md`).

use crate::workloads::NpbClass;

/// The generator's condition-number bound: every eigenvalue of the
/// generated matrix (before the shift) is at least `RCOND`.
pub const RCOND: f64 = 0.1;

/// NPB's verification tolerance on the relative error of zeta.
pub const EPSILON: f64 = 1.0e-10;

/// Inner conjugate-gradient iterations per outer (power-method) iteration.
pub const CG_ITERATIONS: usize = 25;

/// The parameters of one CG class.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CgParams {
    /// Order of the matrix.
    pub na: usize,
    /// Nonzeros per generating outer vector.
    pub nonzer: usize,
    /// Timed outer iterations.
    pub niter: usize,
    /// Eigenvalue shift.
    pub shift: f64,
    /// NPB's verification value of zeta after `niter` iterations.
    pub zeta_reference: f64,
}

impl CgParams {
    /// The official parameters of `class`.
    pub fn of(class: NpbClass) -> Self {
        let (na, nonzer, niter, shift, zeta_reference) = match class {
            NpbClass::S => (1400, 7, 15, 10.0, 8.597_177_507_864_8),
            NpbClass::W => (7000, 8, 15, 12.0, 10.362_595_087_124),
            NpbClass::A => (14000, 11, 15, 20.0, 17.130_235_054_029),
            NpbClass::B => (75000, 13, 75, 60.0, 22.712_745_482_631),
            NpbClass::C => (150_000, 15, 75, 110.0, 28.973_605_592_845),
        };
        Self {
            na,
            nonzer,
            niter,
            shift,
            zeta_reference,
        }
    }

    /// NPB's bound on the matrix nonzeros, `na * (nonzer + 1)^2` (what the
    /// reference codes allocate for `a` and `colidx`).
    pub fn nonzero_bound(&self) -> usize {
        self.na * (self.nonzer + 1) * (self.nonzer + 1)
    }

    /// NPB's operation count of the timed part (for Mop/s).
    pub fn operations(&self) -> f64 {
        let per_nonzer = (self.nonzer * (self.nonzer + 1)) as f64;
        2.0 * self.niter as f64
            * self.na as f64
            * (3.0 + per_nonzer + CG_ITERATIONS as f64 * (5.0 + per_nonzer) + 3.0)
    }

    /// Bytes of the main arrays: `a` (f64), `colidx` (u32) and its 16-bit
    /// gaps at the nonzero bound, `rowstr` (usize), each row's first column
    /// (u32) and the five vectors x, z, p, q, r.
    pub fn memory_bytes(&self) -> u64 {
        let nonzeros = self.nonzero_bound() as u64;
        let na = self.na as u64;
        // Values, columns and the columns' 16-bit gaps; row pointers, each row's first
        // column and the five vectors.
        nonzeros * (8 + 4 + 2) + (na + 1) * 8 + na * 4 + 5 * na * 8
    }
}
