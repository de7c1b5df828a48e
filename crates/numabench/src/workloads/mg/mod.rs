//! NAS Parallel Benchmarks MG: V-cycle multigrid for the 3-D Poisson
//! problem with periodic boundaries (NPB 3.x classes S, W, A, B, C).
//!
//! Grids u and r exist at every level k = 1..=lt (level lt the finest,
//! nx^3 interior points; level 1 has 2^3), v on the finest level only,
//! each with one ghost layer per side ((n+2)^3 values) and placed by
//! k-planes. Every sweep is split over the team by the planes each worker
//! owns ([`Team::block`] over the grid's planes, the blocks first touch
//! gave it); the ghost exchange (comm3) is the in-plane part done by each
//! plane's worker followed by the two ghost planes copied by their owners.
//! All arithmetic follows NPB's operand order point by point and the norm
//! sums plane sums in plane order, so the result is bit-identical for any
//! number of workers.

mod class;
mod grid;
mod operators;
mod zran3;

#[cfg(test)]
mod tests;

use super::kernel::{AppKernel, NpbClass, Verification};
use crate::runtime::{Team, TeamError};
use class::{MgParameters, A_COEFFICIENTS, EPSILON};
use grid::Grid;
use operators::{interp, norm2u3, psinv, psinv_then_resid, resid, rprj3};
use zran3::zran3;

/// The grids of all levels (index k-1 holds level k).
#[derive(Debug)]
struct Grids {
    u: Vec<Grid>,
    r: Vec<Grid>,
    v: Grid,
}

impl Grids {
    fn finest(&self) -> usize {
        self.u.len() - 1
    }
}

/// NPB MG for one class.
#[derive(Debug)]
pub struct MgKernel {
    class: NpbClass,
    parameters: MgParameters,
    grids: Option<Grids>,
    /// NPB's final (rnm2, rnmu), computed inside the timed region as NPB does.
    final_norms: Option<(f64, f64)>,
}

impl MgKernel {
    pub fn new(class: NpbClass) -> Self {
        Self {
            class,
            parameters: MgParameters::of(class),
            grids: None,
            final_norms: None,
        }
    }

    /// Bytes of MG's main arrays for `class`: u and r at every level and v,
    /// with ghost layers.
    pub fn memory_bytes_for(class: NpbClass) -> u64 {
        MgParameters::of(class).memory_bytes()
    }

    pub fn class(&self) -> NpbClass {
        self.class
    }

    /// NPB's norms of the finest residual, (rnm2, rnmu), once set up.
    pub fn residual_norms(&self, team: &Team) -> Option<(f64, f64)> {
        let grids = self.grids.as_ref()?;
        Some(norm2u3(team, &grids.r[grids.finest()]))
    }

    /// r = v - A u on the finest grid.
    fn finest_residual(&self, team: &Team, grids: &Grids) {
        let top = grids.finest();
        resid(
            team,
            &grids.u[top],
            Some(&grids.v),
            &grids.r[top],
            &A_COEFFICIENTS,
        );
    }

    /// The start of NPB's timed region: the residual of the initial u and
    /// its norms (computed, and not used).
    fn prologue(&self, team: &Team, grids: &Grids) {
        self.finest_residual(team, grids);
        std::hint::black_box(norm2u3(team, &grids.r[grids.finest()]));
    }

    /// NPB's mg3P, one V-cycle, followed by the residual r = v - A u on
    /// the finest grid (NPB's next step wherever mg3P is called).
    fn v_cycle(&self, team: &Team, grids: &Grids) {
        let c = &self.parameters.c;
        let top = grids.finest();
        // Down: restrict the residual level by level to the coarsest grid.
        for fine in (1..=top).rev() {
            rprj3(team, &grids.r[fine], &grids.r[fine - 1]);
        }
        // Coarsest: u = 0, then smooth.
        psinv(team, &grids.r[0], &grids.u[0], c, false);
        // Up: prolongate (onto u = 0), residual in place, smooth.
        for level in 1..top {
            interp(team, &grids.u[level - 1], &grids.u[level], false);
            resid(
                team,
                &grids.u[level],
                None,
                &grids.r[level],
                &A_COEFFICIENTS,
            );
            psinv(team, &grids.r[level], &grids.u[level], c, true);
        }
        // Finest: add the correction to u, residual against v, smooth, and
        // (the caller's next step in NPB) the residual again, fused with the
        // smoothing in one sweep.
        interp(team, &grids.u[top - 1], &grids.u[top], true);
        self.finest_residual(team, grids);
        psinv_then_resid(
            team,
            &grids.u[top],
            &grids.r[top],
            &grids.v,
            c,
            &A_COEFFICIENTS,
        );
    }
}

impl AppKernel for MgKernel {
    fn name(&self) -> &'static str {
        "mg"
    }

    fn memory_bytes(&self) -> u64 {
        self.parameters.memory_bytes()
    }

    fn setup(&mut self, team: &Team) -> Result<(), TeamError> {
        self.grids = None;
        self.final_norms = None;
        let levels = self.parameters.levels();
        let mut u = Vec::with_capacity(levels);
        let mut r = Vec::with_capacity(levels);
        for k in 1..=levels {
            let n = self.parameters.points_at(k);
            u.push(Grid::alloc(team, n)?);
            r.push(Grid::alloc(team, n)?);
        }
        let v = Grid::alloc(team, self.parameters.nx)?;
        let grids = Grids { u, r, v };
        // NPB's untimed start-up: u = 0, v = zran3, one residual and V-cycle...
        zran3(team, &grids.v);
        self.finest_residual(team, &grids);
        self.v_cycle(team, &grids);
        // ...then u and v back to their initial state before the timer starts.
        grids.u[grids.finest()].zero(team);
        zran3(team, &grids.v);
        self.grids = Some(grids);
        Ok(())
    }

    fn iterations(&self) -> usize {
        self.parameters.nit
    }

    /// One V-cycle and the new residual. As in NPB's timed region,
    /// iteration 0 first forms the initial residual and its norms, and the
    /// last iteration ends with the final norms (which `verify` reports).
    fn iterate(&mut self, team: &Team, iteration: usize) {
        let grids = self.grids.as_ref().expect("setup ran");
        if iteration == 0 {
            self.final_norms = None;
            self.prologue(team, grids);
        }
        self.v_cycle(team, grids);
        if iteration + 1 == self.parameters.nit {
            self.final_norms = self.residual_norms(team);
        }
    }

    /// After the last iteration r is already v - A u (each iteration ends
    /// with that residual), so forming it again changes no value; the final
    /// norms were kept before.
    fn repeat_prologue(&mut self, team: &Team) -> bool {
        let grids = self.grids.as_ref().expect("setup ran");
        self.prologue(team, grids);
        true
    }

    fn verify(&mut self, team: &Team) -> Verification {
        let reference = self.parameters.reference;
        let (rnm2, _) = match self.final_norms {
            Some(norms) => norms,
            None => self.residual_norms(team).expect("setup ran"),
        };
        let error = (rnm2 - reference).abs() / reference;
        Verification {
            quantity: "rnm2",
            computed: rnm2,
            reference: Some(reference),
            epsilon: EPSILON,
            passed: error <= EPSILON,
        }
    }

    fn operations(&self) -> f64 {
        let n = self.parameters.nx as f64;
        58.0 * self.parameters.nit as f64 * n * n * n
    }
}
