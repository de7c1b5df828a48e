//! What every iteration does besides the sweeps, the same in the MPI
//! worker and in the serial reference, so that the bit-for-bit check sees a
//! single wrong halo anywhere in a run:
//!
//! - the boundary changes sign every [`FLIP_EVERY`] iterations, so the grid
//!   never converges: a fixed boundary lets SOR converge within a few
//!   thousand iterations on the study's grids, after which a stale halo
//!   equals the fresh one and a missed exchange changes nothing;
//! - every [`TRAIL_EVERY`] iterations each strip's sum (after the black
//!   half-sweep) is folded into its trail, so an error that the SOR
//!   iteration later damps below the last bit (it does within about 20,000
//!   iterations) is still in the trail at the end.

/// Iterations between two sign changes of the boundary.
pub const FLIP_EVERY: usize = 64;

/// Iterations between two samples of a strip's sum into its trail.
pub const TRAIL_EVERY: usize = 16;

/// True when the boundary changes sign before iteration `iteration`.
pub fn flips_before(iteration: usize) -> bool {
    iteration > 0 && iteration.is_multiple_of(FLIP_EVERY)
}

/// True when the strip's sum is sampled after iteration `iteration`.
pub fn samples_after(iteration: usize) -> bool {
    iteration % TRAIL_EVERY == TRAIL_EVERY - 1
}

/// A strip's trail: the bits of its sampled sums, mixed in order (a change
/// of any bit of any sample changes it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Trail(pub u64);

impl Trail {
    /// Folds one sample in.
    pub fn add(&mut self, sum: f64) {
        self.0 = (self.0.rotate_left(7) ^ sum.to_bits()).wrapping_mul(0x0000_0100_0000_01b3);
    }
}
