//! NPB CG: the inverse power method on a random sparse symmetric matrix,
//! each outer iteration solving A z = x with 25 conjugate-gradient
//! iterations. The matrix comes from NPB's own generator (bit-identical),
//! so zeta verifies against NPB's reference values. The matrix rows and all
//! vectors are partitioned over the team by `Team::block(na, worker)`.

mod class;
mod makea;
mod randlc;
mod solver;
mod spmv;

pub use class::{CgParams, CG_ITERATIONS, EPSILON, RCOND};

use super::kernel::{AppKernel, NpbClass, Verification};
use crate::kernels::{Choice, Variant};
use crate::runtime::{Team, TeamError};
use makea::MatrixGenerator;
use numabench_schema::params::{to_params, SpmvParams};
use serde_json::{Map, Value};
use solver::CgArrays;
use spmv::SpmvVariant;

/// The CG kernel of one class.
#[derive(Debug)]
pub struct CgKernel {
    class: NpbClass,
    params: CgParams,
    arrays: Option<CgArrays>,
    /// The last outer iteration's zeta = shift + 1 / (x.z).
    zeta: f64,
    /// The last solve's residual norm ||x - A z||.
    residual_norm: f64,
    /// The product variant the setup's calibration chose.
    spmv: Option<Choice<SpmvVariant>>,
}

impl CgKernel {
    pub fn new(class: NpbClass) -> Self {
        Self {
            class,
            params: CgParams::of(class),
            arrays: None,
            zeta: 0.0,
            residual_norm: 0.0,
            spmv: None,
        }
    }

    /// Bytes of the main arrays of `class` (matrix at NPB's nonzero bound,
    /// row pointers and the five vectors).
    pub fn memory_bytes_for(class: NpbClass) -> u64 {
        CgParams::of(class).memory_bytes()
    }

    pub fn class(&self) -> NpbClass {
        self.class
    }

    pub fn params(&self) -> &CgParams {
        &self.params
    }

    /// zeta after the last iteration (0 before the first).
    pub fn zeta(&self) -> f64 {
        self.zeta
    }

    /// ||x - A z|| of the last solve.
    pub fn residual_norm(&self) -> f64 {
        self.residual_norm
    }

    /// Nonzeros of the generated matrix (after setup).
    pub fn nonzeros(&self) -> Option<usize> {
        self.arrays.as_ref().map(CgArrays::nonzeros)
    }
}

impl AppKernel for CgKernel {
    fn name(&self) -> &'static str {
        "cg"
    }

    fn memory_bytes(&self) -> u64 {
        self.params.memory_bytes()
    }

    fn setup(&mut self, team: &Team) -> Result<(), TeamError> {
        let generator = MatrixGenerator::new(&self.params);
        let mut arrays = CgArrays::assemble(team, &generator)?;
        drop(generator);

        // NPB's untimed warm-up: one solve and normalisation, then x = 1 again; the
        // product variant is chosen first, with x = 1.
        arrays.reset_x(team);
        self.spmv = Some(arrays.calibrate_spmv(team));
        arrays.release_unused_columns(team);
        arrays.conj_grad(team);
        arrays.normalise(team);
        arrays.reset_x(team);
        self.arrays = Some(arrays);
        self.zeta = 0.0;
        self.residual_norm = 0.0;
        Ok(())
    }

    fn iterations(&self) -> usize {
        self.params.niter
    }

    fn iterate(&mut self, team: &Team, _iteration: usize) {
        let arrays = self.arrays.as_ref().expect("setup ran");
        self.residual_norm = arrays.conj_grad(team);
        let x_dot_z = arrays.normalise(team);
        self.zeta = self.params.shift + 1.0 / x_dot_z;
    }

    fn verify(&mut self, _team: &Team) -> Verification {
        let reference = self.params.zeta_reference;
        let error = (self.zeta - reference).abs() / reference;
        Verification {
            quantity: "zeta",
            computed: self.zeta,
            reference: Some(reference),
            epsilon: EPSILON,
            passed: error <= EPSILON,
        }
    }

    fn operations(&self) -> f64 {
        self.params.operations()
    }

    /// `spmv` (the product variant that ran), `spmv_calibration` (GB/s
    /// of matrix streamed by each variant in the setup's calibration) and,
    /// where the calibration left a variant out for products that were
    /// not the scalar loads', `spmv_differing`.
    fn extra_params(&self) -> Map<String, Value> {
        let Some(choice) = &self.spmv else {
            return Map::new();
        };
        let differing: Vec<String> = self
            .arrays
            .as_ref()
            .map(|arrays| {
                arrays
                    .spmv_differing()
                    .iter()
                    .map(|variant| variant.name().to_string())
                    .collect()
            })
            .unwrap_or_default();
        to_params(&SpmvParams {
            spmv: choice.level().name().to_string(),
            spmv_calibration: match choice.calibration_json() {
                Value::Object(rates) => Some(rates),
                _ => None,
            },
            spmv_differing: (!differing.is_empty()).then_some(differing),
        })
    }
}

#[cfg(test)]
mod tests;
