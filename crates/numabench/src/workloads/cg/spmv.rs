//! CG's sparse matrix-vector product, row by row: `sum_k a[k] * v[col[k]]`
//! with independent partial sums, in the variant ([`SpmvVariant`]) a
//! calibration finds fastest on this CPU.
//!
//! A single running sum makes every multiply-add wait for the previous add
//! (a chain of `nonzeros` floating-point add latencies per row); NPB's own
//! cg.f90 offers unrolled variants with two and eight partial sums for that
//! reason ("any of these may be used without penalty"). Here [`LANES`] sums
//! take the nonzeros in turn (lane `l` the nonzeros `l, l + LANES, ...` of
//! the row), the leftover nonzeros go into lane 0 in order, and the lanes are
//! added pairwise, ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)). Every product
//! is rounded before it is added (no fused multiply-add), so the result is a
//! fixed function of the row: the same for every thread count and
//! partition, and bit for bit the same whether the lanes are one AVX-512
//! register fed by a gather, two AVX2 registers or eight scalars. It
//! differs from the single-sum order only by rounding (zeta still verifies
//! to NPB's 1e-10).
//!
//! Why gathers: the product's time goes into loading `v[col[k]]` at random
//! columns, not into arithmetic. One gather instruction issues eight such
//! loads at once; measured on this project's AMD EPYC VM, class B's
//! iterations took 20 % less time with the AVX-512 gather than with four
//! scalar lanes (8-9 % for class A and for class B on two threads). Where
//! gathers are slow (microcoded on AMD Zen 1) one load per nonzero wins, so
//! the choice is measured, not assumed.

use std::ops::Range;

/// Partial sums per row: one AVX-512 register of doubles.
pub(super) const LANES: usize = 8;

/// A matrix in compressed rows whose column indices are all below the
/// length of the vectors it is multiplied with (checked when it is built).
#[derive(Debug, Clone, Copy)]
pub(super) struct RowsMatrix<'a> {
    /// Nonzero values, rows one after the other.
    pub values: &'a [f64],
    /// Column of each nonzero (empty once released: the gaps variant
    /// alone then runs).
    pub columns: &'a [u32],
    /// Row j holds the nonzeros `row_starts[j]..row_starts[j + 1]`.
    pub row_starts: &'a [usize],
    /// The columns again as 16-bit gaps, when every gap fits.
    pub gaps: Option<ColumnGaps<'a>>,
}

/// A matrix's columns as the gap from the previous column of the row
/// (ascending columns, so no gap is negative), 2 bytes a nonzero instead of
/// 4: the product then streams 10 bytes a nonzero instead of 12. The first
/// nonzero of a row has gap 0 and its column in `first_columns`.
#[derive(Debug, Clone, Copy)]
pub(super) struct ColumnGaps<'a> {
    /// `columns[k] - columns[k - 1]` within a row, 0 at a row's start.
    pub gaps: &'a [u16],
    /// The first column of each row (0 for an empty row).
    pub first_columns: &'a [u32],
}

/// Writes the gaps and first columns of the rows whose nonzeros `columns`
/// holds (`row_starts` relative to `columns`, one more entry than rows).
/// Returns false, leaving the outputs partly written, when a gap does not
/// fit in 16 bits or the columns of a row are not ascending.
pub(super) fn encode_gaps(
    columns: &[u32],
    row_starts: &[usize],
    gaps: &mut [u16],
    first_columns: &mut [u32],
) -> bool {
    for (row, first) in first_columns.iter_mut().enumerate() {
        let span = row_starts[row]..row_starts[row + 1];
        let columns = &columns[span.clone()];
        *first = columns.first().copied().unwrap_or(0);
        let mut previous = *first;
        for (gap, &column) in gaps[span].iter_mut().zip(columns) {
            match column.checked_sub(previous).map(u16::try_from) {
                Some(Ok(fits)) => *gap = fits,
                _ => return false,
            }
            previous = column;
        }
    }
    true
}

impl RowsMatrix<'_> {
    /// The values and columns of `row`.
    #[inline(always)]
    fn row(&self, row: usize) -> (&[f64], &[u32]) {
        let nonzeros = self.row_starts[row]..self.row_starts[row + 1];
        (&self.values[nonzeros.clone()], &self.columns[nonzeros])
    }
}

/// How the product loads `v[col[k]]`: gathers of the widest vector unit,
/// or one load per nonzero into the lanes (compiled for AVX2 where the CPU
/// has it, else baseline x86-64), with or without software prefetch of the
/// matrix [`PREFETCH_BYTES`] ahead. Every variant gives the same sums bit
/// for bit, so which one runs changes the time only; a calibration picks
/// the fastest ([`calibrate_spmv`](super::solver::CgArrays::calibrate_spmv)).
/// Neither gathers nor prefetch win everywhere: on an AMD EPYC (Zen 1,
/// where `vgatherdpd` is microcoded) class A on one thread took 1.39-1.58 s
/// with AVX2 gathers, 1.15-1.16 s with loads and 1.00-1.02 s with loads and
/// prefetch (interleaved runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpmvVariant {
    Avx512Gather,
    Avx2Gather,
    Avx2LoadsPrefetch,
    LoadsPrefetch,
    Loads,
    /// Loads with prefetch, the columns read as 16-bit gaps
    /// ([`ColumnGaps`]): for a matrix whose every gap fits.
    GapsPrefetch,
}

/// Whether this runs under QEMU's TCG emulator, whose AVX2 gathers (QEMU
/// 7.2) gave CG wrong products now and then: every CG solve that ran the
/// gather variant in a TCG guest ended with a NaN zeta, while one product
/// checked against the scalar loads agreed, and on hardware the variant
/// solves to NPB's zeta bit for bit like the others (the tests). TCG names
/// itself `TCGTCGTCGTCG` in the hypervisor's CPUID leaf 0x40000000; under
/// KVM the vCPUs run the host's own gathers.
#[cfg(target_arch = "x86_64")]
fn under_tcg() -> bool {
    use std::arch::x86_64::__cpuid;
    // `__cpuid` is a safe function in the current Rust and an `unsafe` one
    // in older releases the workspace still builds with (from 1.89).
    // SAFETY: CPUID exists on every x86-64 CPU. Leaf 1 always answers;
    // leaf 0x40000000 is the hypervisor's, read only when leaf 1 sets the
    // hypervisor bit (ECX bit 31).
    #[allow(unused_unsafe)]
    let leaf = unsafe {
        if __cpuid(1).ecx & (1 << 31) == 0 {
            return false;
        }
        __cpuid(0x4000_0000)
    };
    let mut vendor = [0u8; 12];
    for (bytes, register) in vendor.chunks_mut(4).zip([leaf.ebx, leaf.ecx, leaf.edx]) {
        bytes.copy_from_slice(&register.to_le_bytes());
    }
    &vendor == b"TCGTCGTCGTCG"
}

/// How far ahead of the nonzero being multiplied the prefetching variants
/// ask for the matrix's values (its columns half as far: 4 bytes each, not
/// 8), in bytes. One thread of a Zen 1 core streams CG's matrix at about
/// half the core's read bandwidth on the hardware prefetcher alone; 1 KiB
/// ahead (16 cache lines) took class A from 1.15 s to 1.00-1.02 s there
/// (256 B: 1.10, 512 B: 1.03-1.09, 2 KiB: 1.01-1.06).
const PREFETCH_BYTES: usize = 1024;

impl SpmvVariant {
    /// The variants this CPU can run, widest first.
    pub(super) fn supported() -> Vec<Self> {
        let mut variants = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            let gathers = !under_tcg();
            if gathers && std::arch::is_x86_feature_detected!("avx512f") {
                variants.push(SpmvVariant::Avx512Gather);
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                if gathers {
                    variants.push(SpmvVariant::Avx2Gather);
                }
                variants.push(SpmvVariant::Avx2LoadsPrefetch);
            }
            variants.push(SpmvVariant::LoadsPrefetch);
        }
        variants.push(SpmvVariant::Loads);
        variants.push(SpmvVariant::GapsPrefetch);
        variants
    }

    /// Whether this variant can multiply `matrix` (the gaps variant needs
    /// its gaps, the others a column per value).
    pub(super) fn can_run(self, matrix: &RowsMatrix<'_>) -> bool {
        match self {
            SpmvVariant::GapsPrefetch => matrix.gaps.is_some(),
            _ => matrix.columns.len() == matrix.values.len(),
        }
    }
}

impl crate::kernels::Variant for SpmvVariant {
    fn name(self) -> &'static str {
        match self {
            SpmvVariant::Avx512Gather => "avx512-gather",
            SpmvVariant::Avx2Gather => "avx2-gather",
            SpmvVariant::Avx2LoadsPrefetch => "avx2-loads-prefetch",
            SpmvVariant::LoadsPrefetch => "loads-prefetch",
            SpmvVariant::Loads => "loads",
            SpmvVariant::GapsPrefetch => "gaps-prefetch",
        }
    }
}

/// Calls `each(row, product)` for every row of `rows` in ascending order,
/// `product` being the row times `v` in the lane order described above,
/// computed by `variant`.
///
/// # Safety
/// Every column index of the rows must be `< v.len()`, the gaps (if any)
/// must encode those columns ([`encode_gaps`]), and `variant` must be one
/// of [`SpmvVariant::supported`]. Panics if `variant` cannot run `matrix`.
pub(super) unsafe fn for_each_row_product(
    variant: SpmvVariant,
    matrix: RowsMatrix<'_>,
    v: &[f64],
    rows: Range<usize>,
    each: impl FnMut(usize, f64),
) {
    debug_assert!(SpmvVariant::supported().contains(&variant));
    assert!(
        variant.can_run(&matrix),
        "{variant:?} cannot multiply this matrix"
    );
    // SAFETY: the variant is one this CPU supports (caller's contract, checked in debug
    // builds); the caller's guarantee on the columns is passed on.
    unsafe {
        match variant {
            #[cfg(target_arch = "x86_64")]
            SpmvVariant::Avx512Gather => x86::rows_avx512(matrix, v, rows, each),
            #[cfg(target_arch = "x86_64")]
            SpmvVariant::Avx2Gather => x86::rows_avx2(matrix, v, rows, each),
            #[cfg(target_arch = "x86_64")]
            SpmvVariant::Avx2LoadsPrefetch => x86::rows_avx2_loads_prefetch(matrix, v, rows, each),
            SpmvVariant::LoadsPrefetch => rows_with(matrix, v, rows, each, scalar_groups::<true>),
            SpmvVariant::GapsPrefetch => rows_by_gaps(matrix, v, rows, each),
            _ => rows_with(matrix, v, rows, each, scalar_groups::<false>),
        }
    }
}

/// The row loop every variant shares: `groups` sums the whole groups of
/// [`LANES`] nonzeros of a row into the lanes (given the row's values and
/// columns, both a multiple of [`LANES`] long), the rest is scalar.
///
/// # Safety
/// Every column index of the rows must be `< v.len()`, and `groups` may
/// rely on that.
#[inline(always)]
unsafe fn rows_with(
    matrix: RowsMatrix<'_>,
    v: &[f64],
    rows: Range<usize>,
    mut each: impl FnMut(usize, f64),
    groups: impl Fn(&[f64], &[u32], &[f64]) -> [f64; LANES],
) {
    for row in rows {
        let (values, columns) = matrix.row(row);
        let whole = values.len() / LANES * LANES;
        let lanes = groups(&values[..whole], &columns[..whole], v);
        // SAFETY: the caller guarantees every column is < v.len().
        each(row, unsafe {
            finish_row(lanes, &values[whole..], &columns[whole..], v)
        });
    }
}

/// [`rows_with`] for the gaps variant: the columns decoded from
/// [`ColumnGaps`] (a running sum per row), the same lanes and the same
/// order, so the same bits as every other variant.
///
/// # Safety
/// `matrix.gaps` must be `Some` and encode columns that are all
/// `< v.len()`.
#[inline(always)]
unsafe fn rows_by_gaps(
    matrix: RowsMatrix<'_>,
    v: &[f64],
    rows: Range<usize>,
    mut each: impl FnMut(usize, f64),
) {
    let encoded = matrix.gaps.expect("the gaps variant runs on gaps");
    for row in rows {
        let nonzeros = matrix.row_starts[row]..matrix.row_starts[row + 1];
        let values = &matrix.values[nonzeros.clone()];
        let gaps = &encoded.gaps[nonzeros];
        let mut column = encoded.first_columns[row] as usize;
        let mut lanes = [0.0f64; LANES];
        let (groups, rest) = values.as_chunks::<LANES>();
        let (gap_groups, gap_rest) = gaps.as_chunks::<LANES>();
        for (values, gaps) in groups.iter().zip(gap_groups) {
            prefetch_ahead(
                values.as_ptr().cast(),
                gaps.as_ptr().cast(),
                PREFETCH_BYTES / 4,
            );
            for lane in 0..LANES {
                column += usize::from(gaps[lane]);
                // SAFETY: the decoded columns are the matrix's, all < v.len() (caller's contract).
                lanes[lane] += values[lane] * unsafe { *v.get_unchecked(column) };
            }
        }
        for (&value, &gap) in rest.iter().zip(gap_rest) {
            column += usize::from(gap);
            // SAFETY: as above.
            lanes[0] += value * unsafe { *v.get_unchecked(column) };
        }
        each(row, pairwise(lanes));
    }
}

/// Hints the cache to fetch the matrix [`PREFETCH_BYTES`] past `values`
/// and `index_ahead` bytes past `indices` (columns or gaps: fewer bytes a
/// nonzero, so less far for the same nonzeros). A prefetch never faults,
/// so addresses past the end are harmless (computed with `wrapping_add`,
/// never dereferenced).
#[inline(always)]
fn prefetch_ahead(values: *const i8, indices: *const i8, index_ahead: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: prefetch instructions only hint; they never fault (SSE, baseline x86-64).
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(values.wrapping_add(PREFETCH_BYTES));
            _mm_prefetch::<_MM_HINT_T0>(indices.wrapping_add(index_ahead));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (values, indices, index_ahead);
}

/// The lanes added pairwise, ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)).
#[inline(always)]
fn pairwise(lanes: [f64; LANES]) -> f64 {
    ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
        + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
}

/// Adds the nonzeros left after the last whole group of [`LANES`] into
/// lane 0 in order, then adds the lanes pairwise,
/// ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)).
///
/// # Safety
/// Every entry of `columns` must be `< v.len()`.
#[inline(always)]
unsafe fn finish_row(mut lanes: [f64; LANES], values: &[f64], columns: &[u32], v: &[f64]) -> f64 {
    for (&value, &column) in values.iter().zip(columns) {
        // SAFETY: the caller guarantees every column is < v.len().
        lanes[0] += value * unsafe { *v.get_unchecked(column as usize) };
    }
    pairwise(lanes)
}

/// Whole groups of nonzeros into scalar lanes (any CPU), asking for the
/// matrix [`PREFETCH_BYTES`] ahead when `PREFETCH`. Every column must be
/// `< v.len()` ([`rows_with`]'s contract).
#[inline(always)]
fn scalar_groups<const PREFETCH: bool>(values: &[f64], columns: &[u32], v: &[f64]) -> [f64; LANES] {
    let mut lanes = [0.0f64; LANES];
    for (values, columns) in values
        .as_chunks::<LANES>()
        .0
        .iter()
        .zip(columns.as_chunks::<LANES>().0)
    {
        if PREFETCH {
            prefetch_ahead(
                values.as_ptr().cast(),
                columns.as_ptr().cast(),
                PREFETCH_BYTES / 2,
            );
        }
        for lane in 0..LANES {
            // SAFETY: every column is < v.len() (rows_with's contract).
            let element = unsafe { *v.get_unchecked(columns[lane] as usize) };
            lanes[lane] += values[lane] * element;
        }
    }
    lanes
}

/// One row's product with scalar lanes (any CPU).
///
/// # Safety
/// Every entry of `columns` must be `< v.len()`; `values` and `columns`
/// must have the same length.
#[cfg(test)]
unsafe fn row_dot(values: &[f64], columns: &[u32], v: &[f64]) -> f64 {
    let whole = values.len() / LANES * LANES;
    let lanes = scalar_groups::<false>(&values[..whole], &columns[..whole], v);
    // SAFETY: the caller guarantees every column is < v.len().
    unsafe { finish_row(lanes, &values[whole..], &columns[whole..], v) }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{rows_with, scalar_groups, RowsMatrix, LANES};
    use std::arch::x86_64::*;
    use std::ops::Range;

    /// Every row's product with one 8-wide gather per group of nonzeros.
    ///
    /// # Safety
    /// The CPU must have AVX-512F; every column index must be `< v.len()`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn rows_avx512(
        matrix: RowsMatrix<'_>,
        v: &[f64],
        rows: Range<usize>,
        each: impl FnMut(usize, f64),
    ) {
        let groups = |values: &[f64], columns: &[u32], v: &[f64]| {
            let mut sums = _mm512_setzero_pd();
            for start in (0..values.len()).step_by(LANES) {
                // SAFETY: start + 8 <= len for both slices (unaligned loads); the gathered
                // indices are columns, < v.len() by the caller's guarantee.
                unsafe {
                    let indices = _mm256_loadu_si256(columns.as_ptr().add(start).cast::<__m256i>());
                    let elements = _mm512_i32gather_pd::<8>(indices, v.as_ptr());
                    let products =
                        _mm512_mul_pd(_mm512_loadu_pd(values.as_ptr().add(start)), elements);
                    sums = _mm512_add_pd(sums, products);
                }
            }
            let mut lanes = [0.0f64; LANES];
            // SAFETY: `lanes` holds exactly 8 doubles.
            unsafe { _mm512_storeu_pd(lanes.as_mut_ptr(), sums) };
            lanes
        };
        // SAFETY: the caller's guarantee is passed on.
        unsafe { rows_with(matrix, v, rows, each, groups) }
    }

    /// Every row's product with one load per nonzero into the lanes and
    /// the matrix prefetched, compiled for AVX2 (wider adds and multiplies,
    /// no gathers).
    ///
    /// # Safety
    /// The CPU must have AVX2; every column index must be `< v.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn rows_avx2_loads_prefetch(
        matrix: RowsMatrix<'_>,
        v: &[f64],
        rows: Range<usize>,
        each: impl FnMut(usize, f64),
    ) {
        // SAFETY: the caller's guarantee is passed on.
        unsafe { rows_with(matrix, v, rows, each, scalar_groups::<true>) }
    }

    /// Every row's product with two 4-wide gathers per group of nonzeros
    /// (lanes 0-3 and 4-7).
    ///
    /// # Safety
    /// The CPU must have AVX2; every column index must be `< v.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn rows_avx2(
        matrix: RowsMatrix<'_>,
        v: &[f64],
        rows: Range<usize>,
        each: impl FnMut(usize, f64),
    ) {
        let groups = |values: &[f64], columns: &[u32], v: &[f64]| {
            let (mut low, mut high) = (_mm256_setzero_pd(), _mm256_setzero_pd());
            for start in (0..values.len()).step_by(LANES) {
                // SAFETY: start + 8 <= len for both slices (unaligned loads); the gathered
                // indices are columns, < v.len() by the caller's guarantee.
                unsafe {
                    let column = columns.as_ptr().add(start);
                    let value = values.as_ptr().add(start);
                    let low_indices = _mm_loadu_si128(column.cast::<__m128i>());
                    let high_indices = _mm_loadu_si128(column.add(4).cast::<__m128i>());
                    let low_elements = _mm256_i32gather_pd::<8>(v.as_ptr(), low_indices);
                    let high_elements = _mm256_i32gather_pd::<8>(v.as_ptr(), high_indices);
                    low = _mm256_add_pd(low, _mm256_mul_pd(_mm256_loadu_pd(value), low_elements));
                    high = _mm256_add_pd(
                        high,
                        _mm256_mul_pd(_mm256_loadu_pd(value.add(4)), high_elements),
                    );
                }
            }
            let mut lanes = [0.0f64; LANES];
            // SAFETY: `lanes` holds exactly 8 doubles, 4 from each register.
            unsafe {
                _mm256_storeu_pd(lanes.as_mut_ptr(), low);
                _mm256_storeu_pd(lanes.as_mut_ptr().add(4), high);
            }
            lanes
        };
        // SAFETY: the caller's guarantee is passed on.
        unsafe { rows_with(matrix, v, rows, each, groups) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gaps encode ascending columns; a gap over 16 bits or a descending
    /// column refuses.
    #[test]
    fn gaps_encode_ascending_columns_and_refuse_the_rest() {
        let row_starts = [0, 3, 3, 5];
        let (mut gaps, mut first) = ([9; 5], [9; 3]);
        assert!(!encode_gaps(
            &[4, 10, 70_000, 1, 1],
            &row_starts,
            &mut gaps,
            &mut first
        ));
        assert!(encode_gaps(
            &[4, 10, 65_545, 1, 1],
            &row_starts,
            &mut gaps,
            &mut first
        ));
        assert_eq!((gaps, first), ([0, 6, 65_535, 0, 0], [4, 0, 1]));
        assert!(!encode_gaps(
            &[4, 3, 5, 1, 1],
            &row_starts,
            &mut gaps,
            &mut first
        ));
    }

    /// A vector and a matrix of rows of every length around the lane count.
    fn rows() -> (Vec<f64>, Vec<f64>, Vec<u32>, Vec<usize>) {
        let v: Vec<f64> = (0..50).map(|i| 1.0 / (i as f64 + 1.5)).collect();
        let (mut values, mut columns, mut row_starts) = (Vec::new(), Vec::new(), vec![0]);
        for length in 0..=3 * LANES + 1 {
            let mut row: Vec<u32> = (0..length)
                .map(|k| ((k * 17 + length * 5 + 3) % v.len()) as u32)
                .collect();
            // Ascending within the row, as the generator's (gaps need it).
            row.sort_unstable();
            for (k, column) in row.into_iter().enumerate() {
                values.push(((k + length) as f64 * 0.37).sin());
                columns.push(column);
            }
            row_starts.push(values.len());
        }
        (v, values, columns, row_starts)
    }

    /// Each row against the same sum written out lane by lane, and within
    /// rounding of the plain sum.
    #[test]
    fn row_dot_sums_lane_by_lane_for_every_row_length() {
        let (v, values, columns, row_starts) = rows();
        for row in 0..row_starts.len() - 1 {
            let span = row_starts[row]..row_starts[row + 1];
            let (values, columns) = (&values[span.clone()], &columns[span]);
            let length = values.len();
            let mut lanes = [0.0; LANES];
            let full = length / LANES * LANES;
            for k in 0..full {
                lanes[k % LANES] += values[k] * v[columns[k] as usize];
            }
            for k in full..length {
                lanes[0] += values[k] * v[columns[k] as usize];
            }
            let expected = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
                + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
            // SAFETY: every column is < v.len() by construction.
            let computed = unsafe { row_dot(values, columns, &v) };
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

    /// Every variant this CPU has, the gaps' included, gives the scalar
    /// lanes' result bit for bit, row by row, in row order.
    #[test]
    fn every_variant_matches_the_scalar_lanes_bit_for_bit() {
        let (v, values, columns, row_starts) = rows();
        let rows_count = row_starts.len() - 1;
        let (mut gaps, mut first_columns) = (vec![0; columns.len()], vec![0; rows_count]);
        assert!(encode_gaps(
            &columns,
            &row_starts,
            &mut gaps,
            &mut first_columns
        ));
        let matrix = RowsMatrix {
            values: &values,
            columns: &columns,
            row_starts: &row_starts,
            gaps: Some(ColumnGaps {
                gaps: &gaps,
                first_columns: &first_columns,
            }),
        };
        let all = 0..rows_count;
        let expected: Vec<(usize, u64)> = all
            .clone()
            .map(|row| {
                let (values, columns) = matrix.row(row);
                // SAFETY: every column is < v.len() by construction.
                (row, unsafe { row_dot(values, columns, &v) }.to_bits())
            })
            .collect();
        for variant in SpmvVariant::supported() {
            let mut products = Vec::new();
            // SAFETY: a supported variant; every column is < v.len() by construction.
            unsafe {
                for_each_row_product(variant, matrix, &v, all.clone(), |row, product| {
                    products.push((row, product.to_bits()))
                })
            };
            assert_eq!(products, expected, "{variant:?}");
        }
    }
}
