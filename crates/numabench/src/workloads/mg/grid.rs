//! One level's grid: an m x m x m cube (m = n + 2, one ghost layer on each
//! side) stored plane by plane (i3 slowest, i1 fastest), placed by k-planes.
//! Worker w owns the planes `team.block(m, w)` (the same blocks first touch
//! gave it) and computes the interior planes among them.

use crate::runtime::{SharedArray, Team, TeamError};
use std::ops::Range;

#[derive(Debug)]
pub(super) struct Grid {
    data: SharedArray<f64>,
    /// Points per dimension including the two ghost layers.
    m: usize,
}

impl Grid {
    /// An all-zero grid with `n` interior points per dimension.
    pub fn alloc(team: &Team, n: usize) -> Result<Self, TeamError> {
        let m = n + 2;
        let data = team.alloc::<f64>(m * m * m, m * m)?;
        Ok(Self { data, m })
    }

    /// Points per dimension including ghosts.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Interior points per dimension.
    pub fn n(&self) -> usize {
        self.m - 2
    }

    pub fn plane_len(&self) -> usize {
        self.m * self.m
    }

    /// The whole grid, read-only: only while nobody writes it.
    pub fn values(&self) -> &[f64] {
        self.data.as_slice()
    }

    /// The planes worker `worker` owns (ghost planes included).
    pub fn owned_planes(&self, team: &Team, worker: usize) -> Range<usize> {
        team.block(self.m, worker)
    }

    /// The interior planes (1..m-1) among those worker `worker` owns.
    pub fn interior_planes(&self, team: &Team, worker: usize) -> Range<usize> {
        let owned = self.owned_planes(team, worker);
        let start = owned.start.max(1);
        let end = owned.end.min(self.m - 1);
        start..end.max(start)
    }

    /// The planes `planes`, writable.
    ///
    /// # Safety
    /// No other reference to these planes may be live while the slice is used
    /// (in a team job: each worker passes planes it owns).
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn planes_mut(&self, planes: Range<usize>) -> &mut [f64] {
        let plane = self.plane_len();
        // SAFETY: exclusivity is the caller's contract.
        unsafe {
            self.data
                .slice_mut(planes.start * plane..planes.end * plane)
        }
    }

    /// The planes `planes`, read-only, while other workers write other planes.
    ///
    /// # Safety
    /// No live mutable reference may overlap these planes while the slice is used.
    pub unsafe fn planes(&self, planes: Range<usize>) -> &[f64] {
        let plane = self.plane_len();
        // SAFETY: no overlapping writer is the caller's contract.
        unsafe { self.data.slice(planes.start * plane..planes.end * plane) }
    }

    /// Sets every point to zero, in parallel by owned planes.
    pub fn zero(&self, team: &Team) {
        team.run(|worker| {
            let planes = self.owned_planes(team, worker);
            // SAFETY: each worker writes only the planes it owns; blocks are disjoint.
            unsafe { self.planes_mut(planes) }.fill(0.0);
        });
    }

    /// NPB's comm3: periodic ghost layers, in parallel.
    pub fn comm3(&self, team: &Team) {
        team.run(|worker| {
            let planes = self.interior_planes(team, worker);
            let plane = self.plane_len();
            // SAFETY: each worker writes only the interior planes it owns.
            let block = unsafe { self.planes_mut(planes) };
            for values in block.chunks_exact_mut(plane) {
                wrap_in_plane(values, self.m);
            }
        });
        self.wrap_ghost_planes(team);
    }

    /// The last step of comm3: ghost plane 0 takes a copy of plane m-2 and
    /// ghost plane m-1 a copy of plane 1, each written by the worker that
    /// owns it. All in-plane ghosts must be set already.
    pub fn wrap_ghost_planes(&self, team: &Team) {
        let m = self.m;
        team.run(|worker| {
            let owned = self.owned_planes(team, worker);
            // m >= 4, so planes {0, m-2} (worker owning 0) and {m-1, 1} (worker
            // owning m-1) are four distinct planes.
            if owned.contains(&0) {
                // SAFETY: plane 0 is owned by this worker; plane m-2 is read only by
                // the owner of plane 0 (this worker) in this job, and nobody writes it.
                let (target, source) =
                    unsafe { (self.planes_mut(0..1), self.planes_mut(m - 2..m - 1)) };
                target.copy_from_slice(source);
            }
            if owned.contains(&(m - 1)) {
                // SAFETY: plane m-1 is owned by this worker; plane 1 is read only by the
                // owner of plane m-1 (this worker) in this job, and nobody writes it.
                let (target, source) =
                    unsafe { (self.planes_mut(m - 1..m), self.planes_mut(1..2)) };
                target.copy_from_slice(source);
            }
        });
    }
}

/// The in-plane part of NPB's comm3 for one interior plane: first the i1
/// ghosts of the interior rows, then the whole ghost rows i2 = 0 and m-1.
pub(super) fn wrap_in_plane(values: &mut [f64], m: usize) {
    for row in values.chunks_exact_mut(m).take(m - 1).skip(1) {
        row[0] = row[m - 2];
        row[m - 1] = row[1];
    }
    values.copy_within((m - 2) * m..(m - 1) * m, 0);
    values.copy_within(m..2 * m, (m - 1) * m);
}
