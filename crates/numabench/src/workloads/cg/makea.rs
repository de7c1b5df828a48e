//! NPB's matrix generator (makea, sprnvc, vecset, sparse), reorganised by
//! rows. The matrix is
//!
//!   A = sum_i ratio^i * v_i v_i^T + (RCOND - shift) * I,
//!
//! where v_i is a sparse random vector with `nonzer` random entries (random
//! positions and values from `randlc`) plus the entry 0.5 at position i,
//! and ratio = RCOND^(1/na). NPB assembles A by inserting each outer
//! product's entries into sorted rows, summing duplicates in generation
//! order; here each row is assembled on its own from the outer vectors that
//! touch it, visiting them in the same (ascending outer index) order, so
//! every sum of duplicates is evaluated in exactly NPB's order and the
//! matrix is bit-identical to NPB's. Rows are independent, so the team can
//! assemble them in parallel.

use super::class::{CgParams, RCOND};
use super::randlc::{Randlc, AMULT, SEED};
use std::ops::Range;

/// The outer vectors and the row structure of the matrix, before the
/// values are assembled.
#[derive(Debug)]
pub struct MatrixGenerator {
    na: usize,
    shift: f64,
    /// Outer vector i owns the entries `outer_offsets[i]..outer_offsets[i + 1]`.
    outer_offsets: Vec<usize>,
    /// 0-based position of each outer-vector entry.
    entry_column: Vec<u32>,
    /// Value of each outer-vector entry.
    entry_value: Vec<f64>,
    /// The outer vector each entry belongs to.
    entry_owner: Vec<u32>,
    /// `ratio^i`, accumulated by repeated multiplication as NPB does.
    outer_scale: Vec<f64>,
    /// Row j receives contributions from the entries
    /// `row_entries[row_offsets[j]..row_offsets[j + 1]]` (the entries at
    /// position j), in ascending outer-vector order.
    row_offsets: Vec<usize>,
    row_entries: Vec<u32>,
    /// Row pointers of the assembled matrix (distinct columns per row).
    rowstr: Vec<usize>,
}

/// Per-thread workspace for assembling rows.
#[derive(Debug)]
pub struct RowScratch {
    sum: Vec<f64>,
    /// The row whose assembly last used each column.
    last_row: Vec<usize>,
    columns: Vec<u32>,
}

impl RowScratch {
    pub fn new(na: usize) -> Self {
        Self {
            sum: vec![0.0; na],
            last_row: vec![usize::MAX; na],
            columns: Vec::new(),
        }
    }
}

/// The smallest power of two that is at least `n` (and at least 2), as
/// NPB's makea computes `nn1`.
fn power_of_two_at_least(n: usize) -> usize {
    let mut power = 1;
    loop {
        power *= 2;
        if power >= n {
            return power;
        }
    }
}

impl MatrixGenerator {
    /// Draws the outer vectors exactly as NPB does and derives the row
    /// structure.
    pub fn new(params: &CgParams) -> Self {
        let na = params.na;
        assert!(
            na >= 2 && na < u32::MAX as usize,
            "matrix order out of range"
        );
        let mut random = Randlc::new(SEED, AMULT);
        // NPB's main program draws once (`zeta = randlc(&tran, amult)`) before makea.
        random.next_value();
        let range = power_of_two_at_least(na);
        let capacity = na * (params.nonzer + 1);
        let mut outer_offsets = Vec::with_capacity(na + 1);
        let mut entry_column: Vec<u32> = Vec::with_capacity(capacity);
        let mut entry_value: Vec<f64> = Vec::with_capacity(capacity);
        let mut entry_owner: Vec<u32> = Vec::with_capacity(capacity);
        outer_offsets.push(0);
        for outer in 0..na {
            let start = entry_column.len();
            // sprnvc: `nonzer` distinct random positions in 1..=na, each with a random value.
            let mut accepted = 0;
            while accepted < params.nonzer {
                let value = random.next_value();
                let location = random.next_value();
                // icnvrt: scale by the power of two and chop; 1-based position.
                let position = (range as f64 * location) as usize + 1;
                if position > na {
                    continue;
                }
                let column = (position - 1) as u32;
                if entry_column[start..].contains(&column) {
                    continue;
                }
                entry_column.push(column);
                entry_value.push(value);
                entry_owner.push(outer as u32);
                accepted += 1;
            }
            // vecset: the entry at position outer (1-based outer + 1) becomes 0.5.
            match entry_column[start..]
                .iter()
                .position(|&column| column as usize == outer)
            {
                Some(offset) => entry_value[start + offset] = 0.5,
                None => {
                    entry_column.push(outer as u32);
                    entry_value.push(0.5);
                    entry_owner.push(outer as u32);
                }
            }
            outer_offsets.push(entry_column.len());
        }

        let ratio = RCOND.powf(1.0 / na as f64);
        let mut outer_scale = Vec::with_capacity(na);
        let mut scale = 1.0f64;
        for _ in 0..na {
            outer_scale.push(scale);
            scale *= ratio;
        }

        // Counting sort of the entries by position; ascending entry index
        // means ascending outer vector.
        let mut row_offsets = vec![0usize; na + 1];
        for &column in &entry_column {
            row_offsets[column as usize + 1] += 1;
        }
        for row in 0..na {
            row_offsets[row + 1] += row_offsets[row];
        }
        let mut next = row_offsets[..na].to_vec();
        let mut row_entries = vec![0u32; entry_column.len()];
        for (entry, &column) in entry_column.iter().enumerate() {
            row_entries[next[column as usize]] = entry as u32;
            next[column as usize] += 1;
        }

        let mut generator = Self {
            na,
            shift: params.shift,
            outer_offsets,
            entry_column,
            entry_value,
            entry_owner,
            outer_scale,
            row_offsets,
            row_entries,
            rowstr: Vec::new(),
        };
        // Distinct columns per row -> row pointers.
        let mut last_row = vec![usize::MAX; na];
        let mut rowstr = Vec::with_capacity(na + 1);
        rowstr.push(0usize);
        for row in 0..na {
            let mut distinct = 0;
            generator.for_each_contribution(row, |column, _| {
                if last_row[column as usize] != row {
                    last_row[column as usize] = row;
                    distinct += 1;
                }
            });
            rowstr.push(rowstr[row] + distinct);
        }
        generator.rowstr = rowstr;
        generator
    }

    /// Order of the matrix.
    pub fn order(&self) -> usize {
        self.na
    }

    /// Number of (distinct) nonzeros of the matrix.
    pub fn nonzeros(&self) -> usize {
        self.rowstr[self.na]
    }

    /// Row pointers: row j holds `rowstr[j]..rowstr[j + 1]`.
    pub fn rowstr(&self) -> &[usize] {
        &self.rowstr
    }

    /// Calls `visit(column, value)` for every contribution to `row`, in
    /// NPB's generation order (ascending outer vector, then the outer
    /// vector's entry order).
    fn for_each_contribution(&self, row: usize, mut visit: impl FnMut(u32, f64)) {
        for &entry in &self.row_entries[self.row_offsets[row]..self.row_offsets[row + 1]] {
            let entry = entry as usize;
            let outer = self.entry_owner[entry] as usize;
            let scale = self.outer_scale[outer] * self.entry_value[entry];
            let members = self.outer_offsets[outer]..self.outer_offsets[outer + 1];
            for (&column, &value) in self.entry_column[members.clone()]
                .iter()
                .zip(&self.entry_value[members])
            {
                let mut contribution = value * scale;
                if column as usize == row && row == outer {
                    // Bounds the smallest eigenvalue below by RCOND, then shifts.
                    contribution = contribution + RCOND - self.shift;
                }
                visit(column, contribution);
            }
        }
    }

    /// Assembles `rows` into `values` and `columns`, which hold the
    /// nonzeros `rowstr[rows.start]..rowstr[rows.end]`: columns ascending
    /// within each row, duplicates summed in generation order.
    pub fn fill_rows(
        &self,
        rows: Range<usize>,
        values: &mut [f64],
        columns: &mut [u32],
        scratch: &mut RowScratch,
    ) {
        let base = self.rowstr[rows.start];
        assert_eq!(values.len(), self.rowstr[rows.end] - base, "values span");
        assert_eq!(columns.len(), values.len(), "columns span");
        for row in rows {
            scratch.columns.clear();
            let RowScratch {
                sum,
                last_row,
                columns: distinct,
            } = scratch;
            self.for_each_contribution(row, |column, contribution| {
                let slot = column as usize;
                if last_row[slot] != row {
                    last_row[slot] = row;
                    sum[slot] = 0.0;
                    distinct.push(column);
                }
                sum[slot] += contribution;
            });
            distinct.sort_unstable();
            let start = self.rowstr[row] - base;
            let end = self.rowstr[row + 1] - base;
            for ((value, index), &column) in values[start..end]
                .iter_mut()
                .zip(&mut columns[start..end])
                .zip(distinct.iter())
            {
                *value = sum[column as usize];
                *index = column;
            }
        }
    }
}
