//! A strip of the 2-D grid with its two halo rows, and the red-black SOR
//! half-sweep on it. The serial solver is the same code on one strip
//! holding every row, so a parallel run computes exactly the serial
//! arithmetic: a colour's update reads only the other colour's values,
//! which the halo exchange between half-sweeps brings up to date.

use super::strips::Strip;

/// The fixed value on the grid's boundary at global (row, column) of a
/// grid with `nx` x `ny` interior points: (column² - row²) scaled by the
/// grid's size, which the 5-point average reproduces exactly (it is
/// harmonic on the index lattice). The study changes its sign every
/// [`super::schedule::FLIP_EVERY`] iterations so the grid never settles;
/// with a fixed boundary the iteration converges to it.
pub fn boundary_value(row: usize, column: usize, nx: usize, ny: usize) -> f64 {
    let (x, y) = (column as f64, row as f64);
    (x * x - y * y) / ((nx + 1) * (ny + 1)) as f64
}

/// One rank's strip: `rows + 2` rows of `nx + 2` values (the boundary
/// columns included); local row 0 and `rows + 1` are the halos (or the
/// global boundary at the grid's top and bottom).
#[derive(Debug, Clone, PartialEq)]
pub struct StripGrid {
    nx: usize,
    strip: Strip,
    values: Vec<f64>,
}

impl StripGrid {
    /// The whole grid as one strip (rows 1 to `ny`), at its starting
    /// values: what one process without neighbours iterates.
    pub fn whole(nx: usize, ny: usize) -> Self {
        Self::new(
            nx,
            ny,
            Strip {
                first_row: 1,
                rows: ny,
            },
        )
    }

    /// The strip at its starting values: boundary values on the grid's
    /// boundary, zero inside (halos of inner strips included, as their
    /// neighbours' rows start at zero).
    pub fn new(nx: usize, ny: usize, strip: Strip) -> Self {
        let width = nx + 2;
        let mut values = vec![0.0; (strip.rows + 2) * width];
        for local in 0..strip.rows + 2 {
            let row = strip.first_row + local - 1;
            for column in 0..width {
                if row == 0 || row == ny + 1 || column == 0 || column == nx + 1 {
                    values[local * width + column] = boundary_value(row, column, nx, ny);
                }
            }
        }
        Self { nx, strip, values }
    }

    /// The strip this grid holds.
    pub fn strip(&self) -> Strip {
        self.strip
    }

    fn width(&self) -> usize {
        self.nx + 2
    }

    /// Updates every interior point of `colour` (0 red, 1 black: the
    /// colour of global (row, column) is (row + column) mod 2) by SOR with
    /// relaxation `omega`.
    pub fn half_sweep(&mut self, colour: usize, omega: f64) {
        let width = self.width();
        for local in 1..=self.strip.rows {
            let row = self.strip.first_row + local - 1;
            let first_column = if (row + 1) % 2 == colour { 1 } else { 2 };
            let base = local * width;
            for column in (first_column..=self.nx).step_by(2) {
                let at = base + column;
                let neighbours = self.values[at - width]
                    + self.values[at + width]
                    + self.values[at - 1]
                    + self.values[at + 1];
                let old = self.values[at];
                self.values[at] = old + omega * (0.25 * neighbours - old);
            }
        }
    }

    /// Changes the sign of every boundary value this strip owns: the
    /// boundary columns of its interior rows, and the grid's top or bottom
    /// boundary row where the strip holds it (`ny`: interior rows of the
    /// whole grid). Exact in floating point, so a strip and the serial grid
    /// stay bit for bit alike.
    pub fn negate_boundary(&mut self, ny: usize) {
        let width = self.width();
        for local in 0..self.strip.rows + 2 {
            let row = self.strip.first_row + local - 1;
            let values = &mut self.values[local * width..(local + 1) * width];
            if row == 0 || row == ny + 1 {
                values.iter_mut().for_each(|value| *value = -*value);
            } else if (1..=self.strip.rows).contains(&local) {
                values[0] = -values[0];
                values[width - 1] = -values[width - 1];
            }
        }
    }

    /// The sum of the interior points (boundary columns left out) of
    /// `rows` rows from global row `first_row`, row after row: a strip sums
    /// its own rows, the serial grid each strip's rows, in the same order.
    pub fn rows_sum(&self, first_row: usize, rows: usize) -> f64 {
        let width = self.width();
        let start = first_row - self.strip.first_row + 1;
        let mut sum = 0.0;
        for local in start..start + rows {
            sum += self.values[local * width + 1..local * width + 1 + self.nx]
                .iter()
                .sum::<f64>();
        }
        sum
    }

    /// What a halo exchange reads and writes, borrowed at once: the first
    /// and last interior rows (sent), the top and bottom halos (received).
    pub fn halo_views(&mut self) -> HaloViews<'_> {
        let width = self.width();
        let rows = self.strip.rows;
        let (top, rest) = self.values.split_at_mut(width);
        let (interior, bottom) = rest.split_at_mut(rows * width);
        HaloViews {
            first: &interior[..width],
            last: &interior[(rows - 1) * width..],
            top,
            bottom,
        }
    }

    /// The interior rows (boundary columns included), row after row: what
    /// a rank contributes to the gathered grid.
    pub fn interior(&self) -> &[f64] {
        let width = self.width();
        &self.values[width..(self.strip.rows + 1) * width]
    }
}

/// The rows of a strip a halo exchange touches.
#[derive(Debug)]
pub struct HaloViews<'a> {
    /// First interior row: sent to the rank above.
    pub first: &'a [f64],
    /// Last interior row: sent to the rank below.
    pub last: &'a [f64],
    /// Halo above: received from the rank above.
    pub top: &'a mut [f64],
    /// Halo below: received from the rank below.
    pub bottom: &'a mut [f64],
}
