//! The parallel conjugate-gradient solve and the power-method step, over
//! the team: every O(na) and O(nnz) loop runs on the workers' row blocks
//! (`Team::block(na, worker)`), and every dot product is a `Team::sum`
//! (partial sums in element order within a block, then in worker order).

use super::class::CG_ITERATIONS;
use super::makea::{MatrixGenerator, RowScratch};
use super::spmv::{self, ColumnGaps, RowsMatrix, SpmvVariant};
use crate::clock::Stopwatch;
use crate::kernels::Choice;
use crate::runtime::{SharedArray, Team, TeamError};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// The columns as 16-bit gaps and each row's first column.
type GapArrays = (SharedArray<u16>, SharedArray<u32>);

/// The matrix in compressed rows and the solver's vectors. The matrix is
/// written only while it is assembled (in [`CgArrays::assemble`], which
/// then checks its structure), so the products may index vectors by its
/// column indices without bounds checks.
#[derive(Debug)]
pub struct CgArrays {
    na: usize,
    /// Nonzero values, rows one after the other.
    a: SharedArray<f64>,
    /// Column of each nonzero (ascending within a row, all `< na`);
    /// released once the calibration chose the gaps variant, which does
    /// not read it ([`CgArrays::release_unused_columns`]).
    colidx: Option<SharedArray<u32>>,
    /// Row j holds the nonzeros `rowstr[j]..rowstr[j + 1]`.
    rowstr: SharedArray<usize>,
    x: SharedArray<f64>,
    z: SharedArray<f64>,
    p: SharedArray<f64>,
    q: SharedArray<f64>,
    r: SharedArray<f64>,
    /// The columns as 16-bit gaps and each row's first column
    /// ([`ColumnGaps`]), when every gap fits.
    gaps: Option<GapArrays>,
    /// How the products run (the widest this CPU has until
    /// [`CgArrays::calibrate_spmv`] chose).
    spmv: SpmvVariant,
    /// The variants the calibration left out because their products were
    /// not the scalar loads' bit for bit on this CPU.
    spmv_differing: Vec<SpmvVariant>,
}

impl CgArrays {
    /// Allocates the matrix and the vectors with the team (placed by its
    /// scheme), assembles the matrix in parallel (each worker its own row
    /// block) and checks its structure.
    pub fn assemble(team: &Team, generator: &MatrixGenerator) -> Result<Self, TeamError> {
        let na = generator.order();
        let nonzeros = generator.nonzeros();
        // Nonzeros per row are near-uniform, so element-wise blocks of a and colidx
        // approximate the row blocks the workers compute on.
        let mut rowstr = team.alloc::<usize>(na + 1, 1)?;
        rowstr.as_mut_slice().copy_from_slice(generator.rowstr());
        let arrays = Self {
            na,
            a: team.alloc::<f64>(nonzeros, 1)?,
            colidx: Some(team.alloc::<u32>(nonzeros, 1)?),
            rowstr,
            x: team.alloc::<f64>(na, 1)?,
            z: team.alloc::<f64>(na, 1)?,
            p: team.alloc::<f64>(na, 1)?,
            q: team.alloc::<f64>(na, 1)?,
            r: team.alloc::<f64>(na, 1)?,
            gaps: None,
            spmv: SpmvVariant::supported()[0],
            spmv_differing: Vec::new(),
        };
        // Rows are independent: each worker assembles its own (the pages were placed at alloc).
        team.run(|worker| {
            let rows = arrays.rows(team, worker);
            let span = generator.rowstr()[rows.start]..generator.rowstr()[rows.end];
            // SAFETY: the nonzeros of different workers' row blocks are disjoint.
            let (values, columns) = unsafe {
                (
                    arrays.a.slice_mut(span.clone()),
                    arrays.columns_array().slice_mut(span),
                )
            };
            let mut scratch = RowScratch::new(na);
            generator.fill_rows(rows, values, columns, &mut scratch);
        });
        arrays.check_structure();
        let gaps = arrays.encode_gaps(team)?;
        Ok(Self { gaps, ..arrays })
    }

    /// The columns as 16-bit gaps, each worker encoding its own rows (so
    /// the pages are placed like the matrix's); `None` when a gap does not
    /// fit (a row with two neighbouring columns 65,536 or more apart).
    fn encode_gaps(&self, team: &Team) -> Result<Option<GapArrays>, TeamError> {
        let gaps = team.alloc::<u16>(self.a.len(), 1)?;
        let first_columns = team.alloc::<u32>(self.na, 1)?;
        let fits = AtomicBool::new(true);
        let rowstr = self.rowstr.as_slice();
        team.run(|worker| {
            let rows = self.rows(team, worker);
            let span = rowstr[rows.start]..rowstr[rows.end];
            let starts: Vec<usize> = rowstr[rows.start..=rows.end]
                .iter()
                .map(|start| start - span.start)
                .collect();
            // SAFETY: the nonzeros and rows of different workers' blocks are disjoint.
            let (gaps, first) = unsafe {
                (
                    gaps.slice_mut(span.clone()),
                    first_columns.slice_mut(rows.clone()),
                )
            };
            if !spmv::encode_gaps(&self.columns_array().as_slice()[span], &starts, gaps, first) {
                fits.store(false, Ordering::Relaxed);
            }
        });
        Ok(fits.into_inner().then_some((gaps, first_columns)))
    }

    /// The invariants the matrix-vector products rely on: row pointers
    /// ascending from 0 to nnz, every column index below na, vectors of
    /// length na. Panics when one is broken.
    fn check_structure(&self) {
        let rowstr = self.rowstr.as_slice();
        assert_eq!(rowstr.len(), self.na + 1, "row pointers");
        assert_eq!(rowstr[0], 0, "first row pointer");
        assert!(
            rowstr.windows(2).all(|pair| pair[0] <= pair[1]),
            "row pointers ascend"
        );
        assert_eq!(rowstr[self.na], self.a.len(), "last row pointer");
        let columns = self.columns_array();
        assert_eq!(columns.len(), self.a.len(), "one column per value");
        assert!(
            columns
                .as_slice()
                .iter()
                .all(|&column| (column as usize) < self.na),
            "column indices inside the matrix"
        );
        for vector in [&self.x, &self.z, &self.p, &self.q, &self.r] {
            assert_eq!(vector.len(), self.na, "vector length");
        }
    }

    /// The matrix values (rows one after the other).
    #[cfg(test)]
    pub fn values(&self) -> &[f64] {
        self.a.as_slice()
    }

    /// The column index of each value.
    #[cfg(test)]
    pub fn columns(&self) -> &[u32] {
        self.columns_array().as_slice()
    }

    /// Runs the products with `variant` from now on (the calibration's
    /// choice, forced).
    #[cfg(test)]
    pub fn use_spmv(&mut self, variant: SpmvVariant) {
        self.spmv = variant;
    }

    /// The column indices, before [`CgArrays::release_unused_columns`].
    fn columns_array(&self) -> &SharedArray<u32> {
        self.colidx
            .as_ref()
            .expect("the columns are kept until the variant is chosen")
    }

    /// Gives back the column encoding the chosen product variant does not
    /// read: the 4-byte columns when it is the gaps variant, else the gaps.
    /// The run then holds what it computes on (10 or 12 bytes a nonzero,
    /// not 14), and its pages are verified on those arrays only: under
    /// next-touch an array no product touches would stay where the serial
    /// initialisation put it and read as misplaced.
    pub fn release_unused_columns(&mut self, team: &Team) {
        if self.spmv == SpmvVariant::GapsPrefetch {
            if let Some(columns) = self.colidx.take() {
                team.release(columns);
            }
        } else if let Some((gaps, first_columns)) = self.gaps.take() {
            team.release(gaps);
            team.release(first_columns);
        }
    }

    /// The assembled matrix, for the products.
    pub(super) fn matrix(&self) -> RowsMatrix<'_> {
        RowsMatrix {
            values: self.a.as_slice(),
            columns: self.colidx.as_ref().map_or(&[], SharedArray::as_slice),
            row_starts: self.rowstr.as_slice(),
            gaps: self.gaps.as_ref().map(|(gaps, first_columns)| ColumnGaps {
                gaps: gaps.as_slice(),
                first_columns: first_columns.as_slice(),
            }),
        }
    }

    /// The product variants the calibration left out: their products were
    /// not the scalar loads' bit for bit on this CPU.
    pub fn spmv_differing(&self) -> &[SpmvVariant] {
        &self.spmv_differing
    }

    /// Number of nonzeros.
    pub fn nonzeros(&self) -> usize {
        self.a.len()
    }

    fn rows(&self, team: &Team, worker: usize) -> Range<usize> {
        team.block(self.na, worker)
    }

    /// Times q = A x with every product variant this CPU has (and this
    /// matrix: the gaps variant needs gaps that fit), each
    /// [`CALIBRATION_ROUNDS`] times in turn, keeps the fastest round of
    /// each, and runs the fastest variant from then on. The rates are GB/s
    /// of matrix streamed (8-byte value and 4-byte column per nonzero). Every
    /// variant computes the same products bit for bit, so the choice changes
    /// no result; q is overwritten (conj_grad starts from q = 0). The rates
    /// count 12 bytes a nonzero for every variant (the gaps variant streams
    /// 10), so the fastest is the one with the highest rate.
    ///
    /// That every variant computes the scalar loads' products is checked
    /// here, on this CPU, before any is timed (on x = (1, 2, ..., na), then
    /// x is 1 again): a variant whose products differ is left out and named
    /// ([`CgArrays::spmv_differing`]), never run. The tests check it on the build host's instructions; a CPU or an
    /// emulator that computes an instruction otherwise (QEMU 7.2's TCG
    /// AVX2 gathers gave CG a NaN zeta) would otherwise fail the run's
    /// verification whenever the calibration chose that variant.
    pub fn calibrate_spmv(&mut self, team: &Team) -> Choice<SpmvVariant> {
        const CALIBRATION_ROUNDS: usize = 2;
        let matrix = self.matrix();
        let mut variants = SpmvVariant::supported();
        variants.retain(|variant| variant.can_run(&matrix));
        // Checked on x = (1, 2, ..., na), whose entries tell the columns
        // apart (with x = 1 a product that reads the wrong columns still
        // sums the right values); timed on x = 1, as NPB's warm-up starts.
        self.number_x(team);
        self.product_into_q(team, SpmvVariant::Loads);
        let reference = self.q.as_slice().to_vec();
        let differing = keep_agreeing(&mut variants, &reference, |variant| {
            self.product_into_q(team, variant);
            self.q.as_slice().to_vec()
        });
        self.spmv_differing = differing;
        self.reset_x(team);
        let bytes = 12.0 * self.nonzeros() as f64;
        let choice = Choice::timed(variants, CALIBRATION_ROUNDS, bytes, |variant| {
            let stopwatch = Stopwatch::start();
            self.product_into_q(team, variant);
            stopwatch.seconds()
        });
        self.spmv = choice.level();
        choice
    }

    /// q = A x with `variant`, over the team.
    fn product_into_q(&self, team: &Team, variant: SpmvVariant) {
        let matrix = self.matrix();
        team.run(|worker| {
            let rows = self.rows(team, worker);
            let x = self.x.as_slice();
            // SAFETY: each worker writes only its own rows of q; q is not read in this phase.
            let q = unsafe { self.q.slice_mut(rows.clone()) };
            let first = rows.start;
            // SAFETY: every column index is < na = x.len() (checked at assembly); the
            // variant is a supported one.
            unsafe {
                spmv::for_each_row_product(variant, matrix, x, rows, |row, product| {
                    q[row - first] = product;
                })
            };
        });
    }

    /// NPB's conj_grad: 25 CG iterations on A z = x from z = 0, leaving the
    /// solution in z; returns the explicit residual norm ||x - A z||.
    pub fn conj_grad(&self, team: &Team) -> f64 {
        let matrix = self.matrix();
        // q = z = 0, r = p = x; rho = r.r
        let mut rho = team.sum(|worker| {
            let rows = self.rows(team, worker);
            let x = &self.x.as_slice()[rows.clone()];
            // SAFETY: each worker writes only its own block of q, z, r and p; nobody writes x.
            let (q, z, r, p) = unsafe {
                (
                    self.q.slice_mut(rows.clone()),
                    self.z.slice_mut(rows.clone()),
                    self.r.slice_mut(rows.clone()),
                    self.p.slice_mut(rows),
                )
            };
            q.fill(0.0);
            z.fill(0.0);
            r.copy_from_slice(x);
            p.copy_from_slice(x);
            r.iter().fold(0.0, |sum, &value| sum + value * value)
        });

        for _ in 0..CG_ITERATIONS {
            // q = A p, and p.q
            let pq = team.sum(|worker| {
                let rows = self.rows(team, worker);
                let p = self.p.as_slice();
                // SAFETY: each worker writes only its own rows of q; q is not read in this phase.
                let q = unsafe { self.q.slice_mut(rows.clone()) };
                let first = rows.start;
                let mut dot = 0.0;
                // SAFETY: every column index is < na = p.len() (checked at assembly); the
                // variant is a supported one.
                unsafe {
                    spmv::for_each_row_product(self.spmv, matrix, p, rows, |row, product| {
                        q[row - first] = product;
                        dot += p[row] * product;
                    })
                };
                dot
            });
            let alpha = rho / pq;
            let rho_previous = rho;
            // z = z + alpha p, r = r - alpha q; rho = r.r
            rho = team.sum(|worker| {
                let rows = self.rows(team, worker);
                let p = &self.p.as_slice()[rows.clone()];
                let q = &self.q.as_slice()[rows.clone()];
                // SAFETY: each worker writes only its own block of z and r; p and q are only read.
                let (z, r) = unsafe { (self.z.slice_mut(rows.clone()), self.r.slice_mut(rows)) };
                for (z, &p) in z.iter_mut().zip(p) {
                    *z += alpha * p;
                }
                let mut dot = 0.0;
                for (r, &q) in r.iter_mut().zip(q) {
                    *r -= alpha * q;
                    dot += *r * *r;
                }
                dot
            });
            let beta = rho / rho_previous;
            // p = r + beta p
            team.run(|worker| {
                let rows = self.rows(team, worker);
                let r = &self.r.as_slice()[rows.clone()];
                // SAFETY: each worker writes only its own block of p; r is only read.
                let p = unsafe { self.p.slice_mut(rows) };
                for (p, &r) in p.iter_mut().zip(r) {
                    *p = r + beta * *p;
                }
            });
        }

        // r = A z, then ||x - r||
        let sum = team.sum(|worker| {
            let rows = self.rows(team, worker);
            let z = self.z.as_slice();
            let x = self.x.as_slice();
            // SAFETY: each worker writes only its own rows of r; r is not read by others here.
            let r = unsafe { self.r.slice_mut(rows.clone()) };
            let first = rows.start;
            let mut squares = 0.0;
            // SAFETY: every column index is < na = z.len() (checked at assembly); the
            // variant is a supported one.
            unsafe {
                spmv::for_each_row_product(self.spmv, matrix, z, rows, |row, product| {
                    r[row - first] = product;
                    let difference = x[row] - product;
                    squares += difference * difference;
                })
            };
            squares
        });
        sum.sqrt()
    }

    /// The power-method step after a solve: returns x.z and sets
    /// x = z / ||z||.
    pub fn normalise(&self, team: &Team) -> f64 {
        let dot = |first: &SharedArray<f64>, second: &SharedArray<f64>| {
            team.sum(|worker| {
                let rows = self.rows(team, worker);
                first.as_slice()[rows.clone()]
                    .iter()
                    .zip(&second.as_slice()[rows])
                    .fold(0.0, |sum, (&u, &v)| sum + u * v)
            })
        };
        let x_dot_z = dot(&self.x, &self.z);
        let inverse_norm = 1.0 / dot(&self.z, &self.z).sqrt();
        team.run(|worker| {
            let rows = self.rows(team, worker);
            let z = &self.z.as_slice()[rows.clone()];
            // SAFETY: each worker writes only its own block of x; z is only read.
            let x = unsafe { self.x.slice_mut(rows) };
            for (x, &z) in x.iter_mut().zip(z) {
                *x = inverse_norm * z;
            }
        });
        x_dot_z
    }

    /// x = (1, 2, ..., na).
    fn number_x(&self, team: &Team) {
        team.run(|worker| {
            let rows = self.rows(team, worker);
            let first = rows.start;
            // SAFETY: each worker writes only its own block of x.
            let x = unsafe { self.x.slice_mut(rows) };
            for (offset, x) in x.iter_mut().enumerate() {
                *x = (first + offset + 1) as f64;
            }
        });
    }

    /// x = (1, ..., 1).
    pub fn reset_x(&self, team: &Team) {
        team.run(|worker| {
            let rows = self.rows(team, worker);
            // SAFETY: each worker writes only its own block of x.
            unsafe { self.x.slice_mut(rows) }.fill(1.0);
        });
    }
}

/// Keeps the variants whose products (`products` computes a variant's)
/// are `reference`'s bit for bit, in their order, and returns those left
/// out: a NaN, or a zero of the other sign, differs.
pub(super) fn keep_agreeing<V: Copy>(
    variants: &mut Vec<V>,
    reference: &[f64],
    mut products: impl FnMut(V) -> Vec<f64>,
) -> Vec<V> {
    let mut differing = Vec::new();
    variants.retain(|&variant| {
        let same = products(variant)
            .iter()
            .map(|product| product.to_bits())
            .eq(reference.iter().map(|product| product.to_bits()));
        if !same {
            differing.push(variant);
        }
        same
    });
    differing
}
