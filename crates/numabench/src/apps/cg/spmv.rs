//! One row of CG's sparse matrix-vector product, `sum_k a[k] * v[col[k]]`,
//! with independent partial sums.
//!
//! A single running sum makes every multiply-add wait for the previous add
//! (a chain of `nonzeros` floating-point add latencies per row); NPB's own
//! cg.f90 offers unrolled variants with two and eight partial sums for that
//! reason ("any of these may be used without penalty"). Here [`LANES`] sums
//! take the nonzeros in turn (lane `l` the nonzeros `l, l + LANES, ...` of
//! the row), the leftover nonzeros go into lane 0 in order, and the lanes are
//! added pairwise, (0 + 1) + (2 + 3). The result is therefore a fixed function
//! of the row: the same for every thread count and partition, and for every
//! instruction set the caller runs it on; it differs from the single-sum
//! order only by rounding (zeta still verifies to NPB's 1e-10).

/// Partial sums per row: four independent add chains keep the adds off the
/// critical path when the row's data is in cache (measured 20-25 % faster
/// than one sum there, equal when the product waits on memory); eight were
/// no faster, and the compiler then packs the lanes into vectors whose
/// inputs must be gathered element by element.
pub(super) const LANES: usize = 4;

/// `sum_k values[k] * v[columns[k]]` in the lane order described above.
///
/// # Safety
/// Every entry of `columns` must be `< v.len()`; `values` and `columns`
/// must have the same length.
#[inline(always)]
pub(super) unsafe fn row_dot(values: &[f64], columns: &[u32], v: &[f64]) -> f64 {
    debug_assert_eq!(values.len(), columns.len());
    let (value_chunks, value_rest) = values.as_chunks::<LANES>();
    let (column_chunks, column_rest) = columns.as_chunks::<LANES>();
    let mut lanes = [0.0f64; LANES];
    for (values, columns) in value_chunks.iter().zip(column_chunks) {
        for lane in 0..LANES {
            // SAFETY: the caller guarantees every column is < v.len().
            let element = unsafe { *v.get_unchecked(columns[lane] as usize) };
            lanes[lane] += values[lane] * element;
        }
    }
    for (&value, &column) in value_rest.iter().zip(column_rest) {
        // SAFETY: as above.
        lanes[0] += value * unsafe { *v.get_unchecked(column as usize) };
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of every length around the lane count, against the same sum
    /// written out lane by lane, and within rounding of the plain sum.
    #[test]
    fn row_dot_sums_lane_by_lane_for_every_row_length() {
        let v: Vec<f64> = (0..50).map(|i| 1.0 / (i as f64 + 1.5)).collect();
        for length in 0..=3 * LANES + 1 {
            let values: Vec<f64> = (0..length).map(|k| (k as f64 * 0.37).sin()).collect();
            let columns: Vec<u32> = (0..length)
                .map(|k| ((k * 17 + 3) % v.len()) as u32)
                .collect();
            let mut lanes = [0.0; LANES];
            let full = length / LANES * LANES;
            for k in 0..full {
                lanes[k % LANES] += values[k] * v[columns[k] as usize];
            }
            for k in full..length {
                lanes[0] += values[k] * v[columns[k] as usize];
            }
            let expected = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
            // SAFETY: every column is < v.len() by construction.
            let computed = unsafe { row_dot(&values, &columns, &v) };
            assert_eq!(computed.to_bits(), expected.to_bits(), "length {length}");
            let plain: f64 = (0..length)
                .map(|k| values[k] * v[columns[k] as usize])
                .sum();
            assert!(
                (computed - plain).abs() <= 1e-14 * (1.0 + plain.abs()),
                "length {length}"
            );
        }
    }
}
