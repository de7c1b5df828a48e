//! NPB MG problem classes: grid size, iteration count, the smoother's
//! coefficients and the verification value of the final residual norm.

use crate::workloads::NpbClass;

/// The residual operator A's coefficients (NPB: a(0..3)); a(1) is zero and
/// NPB's stencil leaves its term out.
pub(super) const A_COEFFICIENTS: [f64; 4] = [-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0];

/// The S(a) smoother's coefficients (classes S, W, A); c(3) is zero and left out.
const SMOOTHER_A: [f64; 4] = [-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0];
/// The S(b) smoother's coefficients (classes B, C).
const SMOOTHER_B: [f64; 4] = [-3.0 / 17.0, 1.0 / 33.0, -1.0 / 61.0, 0.0];

/// NPB's tolerance on |rnm2 - reference| / reference.
pub(super) const EPSILON: f64 = 1e-8;

/// What a class fixes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct MgParameters {
    /// Interior points per dimension of the finest grid (a power of two).
    pub nx: usize,
    /// Timed iterations.
    pub nit: usize,
    /// NPB's verification value of rnm2.
    pub reference: f64,
    /// The smoother's coefficients.
    pub c: [f64; 4],
}

impl MgParameters {
    pub fn of(class: NpbClass) -> Self {
        let (nx, nit, reference, c) = match class {
            NpbClass::S => (32, 4, 0.530_770_700_573_4e-4, SMOOTHER_A),
            NpbClass::W => (128, 4, 0.646_732_937_533_9e-5, SMOOTHER_A),
            NpbClass::A => (256, 4, 0.243_336_530_906_9e-5, SMOOTHER_A),
            NpbClass::B => (256, 20, 0.180_056_440_135_5e-5, SMOOTHER_B),
            NpbClass::C => (512, 20, 0.570_673_228_574_0e-6, SMOOTHER_B),
        };
        Self {
            nx,
            nit,
            reference,
            c,
        }
    }

    /// Number of levels: level `lt` is the finest grid, level 1 has 2^3
    /// interior points.
    pub fn levels(&self) -> usize {
        self.nx.trailing_zeros() as usize
    }

    /// Interior points per dimension at level `k` (1-based).
    pub fn points_at(&self, k: usize) -> usize {
        self.nx >> (self.levels() - k)
    }

    /// Bytes of u and r at every level plus v on the finest grid, each with
    /// its ghost layers.
    pub fn memory_bytes(&self) -> u64 {
        let cube = |n: usize| ((n + 2) as u64).pow(3);
        let levels: u64 = (1..=self.levels()).map(|k| cube(self.points_at(k))).sum();
        8 * (2 * levels + cube(self.nx))
    }
}
