//! The serial reference: the same red-black SOR on one strip holding the
//! whole grid, and the comparison of a gathered parallel grid with it.

use super::grid::StripGrid;
use super::schedule::{flips_before, samples_after, Trail};
use super::strips::Strip;

/// Runs `iterations` red-black iterations (red half-sweep, then black) on
/// the whole `nx` x `ny` grid in one strip, following the study's schedule
/// (the boundary's sign changes), and returns it.
pub fn serial_solve(nx: usize, ny: usize, iterations: usize, omega: f64) -> StripGrid {
    serial_solve_traced(nx, ny, iterations, omega, &[]).0
}

/// [`serial_solve`], also giving the trail each of `strips` would have
/// (what each rank of a run split so must report).
pub fn serial_solve_traced(
    nx: usize,
    ny: usize,
    iterations: usize,
    omega: f64,
    strips: &[Strip],
) -> (StripGrid, Vec<Trail>) {
    let mut grid = StripGrid::whole(nx, ny);
    let mut trails = vec![Trail::default(); strips.len()];
    for iteration in 0..iterations {
        if flips_before(iteration) {
            grid.negate_boundary(ny);
        }
        grid.half_sweep(0, omega);
        grid.half_sweep(1, omega);
        if samples_after(iteration) {
            for (trail, strip) in trails.iter_mut().zip(strips) {
                trail.add(grid.rows_sum(strip.first_row, strip.rows));
            }
        }
    }
    (grid, trails)
}

/// How a gathered grid compares with the serial one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// Every value has the same bits as the serial run's.
    pub identical: bool,
    /// The largest absolute difference (0 when identical; infinite when
    /// the shapes differ or a value is not finite).
    pub max_abs_diff: f64,
}

/// Compares the interior rows gathered from the ranks (in rank order)
/// with the serial grid's.
pub fn compare(gathered: &[f64], serial: &StripGrid) -> Comparison {
    let reference = serial.interior();
    if gathered.len() != reference.len() {
        return Comparison {
            identical: false,
            max_abs_diff: f64::INFINITY,
        };
    }
    let mut identical = true;
    let mut max_abs_diff: f64 = 0.0;
    for (got, want) in gathered.iter().zip(reference) {
        if got.to_bits() != want.to_bits() {
            identical = false;
            let diff = (got - want).abs();
            max_abs_diff = if diff.is_nan() {
                f64::INFINITY
            } else {
                max_abs_diff.max(diff)
            };
        }
    }
    Comparison {
        identical,
        max_abs_diff,
    }
}

/// A checksum of grid values: FNV-1a over every value's bits, as 16 hex
/// digits (equal grids, bit for bit, have equal checksums).
pub fn checksum(values: &[f64]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for value in values {
        for byte in value.to_bits().to_le_bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}
