//! What an application kernel (CG, MG, STREAM) provides to the runner.

use crate::runtime::{Team, TeamError};
use std::fmt;

/// NPB problem class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NpbClass {
    S,
    W,
    A,
    B,
    C,
}

/// A `--class` that is no NPB class.
///
/// Fault: the user's (the text given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown class '{text}' (valid: S, W, A, B, C)")]
pub struct UnknownClass {
    pub text: String,
}

crate::error::all_faulty!(Usage: UnknownClass);

impl NpbClass {
    /// Parses `S`, `W`, `A`, `B`, `C` (either case).
    pub fn parse(text: &str) -> Result<Self, UnknownClass> {
        match text.to_ascii_uppercase().as_str() {
            "S" => Ok(NpbClass::S),
            "W" => Ok(NpbClass::W),
            "A" => Ok(NpbClass::A),
            "B" => Ok(NpbClass::B),
            "C" => Ok(NpbClass::C),
            _ => Err(UnknownClass {
                text: text.to_string(),
            }),
        }
    }
}

impl fmt::Display for NpbClass {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{self:?}")
    }
}

/// The outcome of a kernel's own verification.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    /// What is compared, e.g. `zeta` (CG), `rnm2` (MG), `max relative error` (STREAM).
    pub quantity: &'static str,
    /// The computed value, full precision.
    pub computed: f64,
    /// The reference value, when the class has one.
    pub reference: Option<f64>,
    /// The tolerance on |computed - reference| / |reference| (or on the
    /// quantity itself when there is no reference).
    pub epsilon: f64,
    pub passed: bool,
}

/// An application kernel. The runner calls `setup` (untimed: allocate the
/// main arrays with [`Team::alloc`] and initialise them, in any order and
/// from any thread), then `Team::start_compute` (placement schemes that
/// migrate act here or on next touch), then `iterate(team, i)` for
/// `i in 0..iterations()` timing each call, then `verify`.
pub trait AppKernel {
    /// `cg`, `mg` or `stream`.
    fn name(&self) -> &'static str;
    /// Bytes of the main arrays (checked against free memory before setup).
    fn memory_bytes(&self) -> u64;
    /// Allocates and initialises the arrays (untimed).
    fn setup(&mut self, team: &Team) -> Result<(), TeamError>;
    /// Number of timed iterations.
    fn iterations(&self) -> usize;
    /// One timed iteration, parallel over the team.
    fn iterate(&mut self, team: &Team, iteration: usize);
    /// Checks the result after the last iteration.
    fn verify(&mut self, team: &Team) -> Verification;
    /// Total operations of the timed part, for Mop/s (NPB's counts).
    fn operations(&self) -> f64;
    /// Further figures the kernel measures itself (STREAM's per-kernel
    /// bandwidth): (metric, value, unit).
    fn extra_metrics(&self) -> Vec<(String, f64, crate::output::Unit)> {
        Vec::new()
    }
    /// Further parameters for the kernel's records (STREAM's SIMD level
    /// per loop), taken after the run.
    fn extra_params(&self) -> serde_json::Map<String, serde_json::Value> {
        serde_json::Map::new()
    }
    /// Work that the first iteration does once, before its own steady part
    /// (NPB MG's initial residual and norms, inside NPB's timed region):
    /// run again once after the timed iterations, timed on its own and
    /// leaving the results as they were, so that the migration-cost figure
    /// (first iteration minus a steady one) can leave it out. Returns false
    /// when the kernel has no such work (the default).
    fn repeat_prologue(&mut self, _team: &Team) -> bool {
        false
    }
}

/// Sets `kernel` up, runs every iteration and verifies, in the runner's
/// order (untimed): how the workloads' tests run a kernel.
#[cfg(test)]
pub(crate) fn run_untimed(kernel: &mut dyn AppKernel, team: &Team) -> Verification {
    kernel.setup(team).unwrap();
    team.start_compute().unwrap();
    for iteration in 0..kernel.iterations() {
        kernel.iterate(team, iteration);
    }
    team.finish_compute();
    kernel.verify(team)
}
