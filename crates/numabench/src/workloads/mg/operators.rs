//! The multigrid operators (NPB's resid, psinv, rprj3, interp, norm2u3),
//! each a parallel sweep over the team by k-planes followed by the ghost
//! exchange. Every point is computed with NPB's operand order, so the
//! values do not depend on how the planes are split among workers.

use super::grid::{wrap_in_plane, Grid};
use crate::runtime::Team;
use std::sync::Mutex;

/// Defines `$baseline`, an `#[inline(always)]` function with `$body`, and
/// `$name`, which runs that body compiled for the widest vector unit of this
/// CPU: AVX-512, AVX2, or the baseline. Every point is still computed with
/// the same operations in the same order (Rust never fuses or reorders
/// floating-point operations), so the results are bit-identical whichever
/// variant runs; only the loads, adds and stores get wider.
macro_rules! widest_simd {
    ($(#[$attribute:meta])* fn $name:ident / $baseline:ident($($argument:ident: $type:ty),* $(,)?) $body:block) => {
        // Index loops over equal-length slices: bounds checks vanish and the loops vectorise.
        #[allow(clippy::needless_range_loop, clippy::too_many_arguments)]
        #[inline(always)]
        fn $baseline($($argument: $type),*) $body

        $(#[$attribute])*
        #[allow(clippy::too_many_arguments)]
        fn $name($($argument: $type),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f")]
                #[allow(clippy::too_many_arguments)]
                fn avx512($($argument: $type),*) {
                    $baseline($($argument),*)
                }
                #[target_feature(enable = "avx2")]
                #[allow(clippy::too_many_arguments)]
                fn avx2($($argument: $type),*) {
                    $baseline($($argument),*)
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: this CPU has AVX-512F, the only feature `avx512` enables.
                    return unsafe { avx512($($argument),*) };
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: this CPU has AVX2, the only feature `avx2` enables.
                    return unsafe { avx2($($argument),*) };
                }
            }
            $baseline($($argument),*)
        }
    };
}

/// Row `i2` of plane `i3` of a grid with `m` points per dimension.
#[inline]
fn row(values: &[f64], m: usize, i3: usize, i2: usize) -> &[f64] {
    &values[(i3 * m + i2) * m..][..m]
}

/// NPB's two partial sums around row (i3, i2) of `values`, for every i1:
/// `faces` = the four neighbours in the i2 and i3 directions,
/// `edges` = the four diagonal neighbours in the (i2, i3) plane.
#[inline(always)]
fn neighbour_sums(
    values: &[f64],
    m: usize,
    i3: usize,
    i2: usize,
    faces: &mut [f64],
    edges: &mut [f64],
) {
    let south = row(values, m, i3, i2 - 1);
    let north = row(values, m, i3, i2 + 1);
    let below = row(values, m, i3 - 1, i2);
    let above = row(values, m, i3 + 1, i2);
    let below_south = row(values, m, i3 - 1, i2 - 1);
    let below_north = row(values, m, i3 - 1, i2 + 1);
    let above_south = row(values, m, i3 + 1, i2 - 1);
    let above_north = row(values, m, i3 + 1, i2 + 1);
    let faces = &mut faces[..m];
    let edges = &mut edges[..m];
    for i1 in 0..m {
        faces[i1] = south[i1] + north[i1] + below[i1] + above[i1];
        edges[i1] = below_south[i1] + below_north[i1] + above_south[i1] + above_north[i1];
    }
}

/// r = v - A u on the interior, then comm3(r). With `v = None` the
/// residual is computed in place (`v` is `r` itself, as NPB's coarse levels do).
pub(super) fn resid(team: &Team, u: &Grid, v: Option<&Grid>, r: &Grid, a: &[f64; 4]) {
    let m = r.m();
    assert_eq!(u.m(), m, "u and r on one level");
    team.run(|worker| {
        let planes = r.interior_planes(team, worker);
        if planes.is_empty() {
            return;
        }
        // SAFETY: each worker writes only interior planes of r it owns (disjoint
        // blocks); r is not read through any other reference in this job (u and v
        // are other grids; in place, v is read through this slice).
        let out = unsafe { r.planes_mut(planes.clone()) };
        let u = u.values();
        let v = v.map(Grid::values);
        let mut sums = vec![0.0; 2 * m];
        for (i3, out_plane) in planes.zip(out.chunks_exact_mut(m * m)) {
            resid_plane(u, v, out_plane, m, i3, a, &mut sums);
            wrap_in_plane(out_plane, m);
        }
    });
    r.wrap_ghost_planes(team);
}

widest_simd! {
    /// [`resid`] on interior plane `i3` (`out_plane`); `sums` is scratch of 2 m.
    fn resid_plane / resid_plane_baseline(
        u: &[f64],
        v: Option<&[f64]>,
        out_plane: &mut [f64],
        m: usize,
        i3: usize,
        a: &[f64; 4],
        sums: &mut [f64],
    ) {
        let (u1, u2) = sums.split_at_mut(m);
        for i2 in 1..m - 1 {
            neighbour_sums(u, m, i3, i2, u1, u2);
            let centre = row(u, m, i3, i2);
            // Point i1 = i + 1; all slices of one length so the loops vectorise.
            let n = m - 2;
            let out = &mut out_plane[i2 * m + 1..][..n];
            let centre = &centre[1..=n];
            let (u1_left, u1_right) = (&u1[..n], &u1[2..n + 2]);
            let (u2_left, u2_mid, u2_right) = (&u2[..n], &u2[1..=n], &u2[2..n + 2]);
            // a[1] = 0: NPB leaves out the face term.
            let a_u = |i: usize| {
                (
                    a[0] * centre[i],
                    a[2] * (u2_mid[i] + u1_left[i] + u1_right[i]),
                    a[3] * (u2_left[i] + u2_right[i]),
                )
            };
            match v {
                Some(v) => {
                    let v = &row(v, m, i3, i2)[1..=n];
                    for i in 0..n {
                        let (centre, edges, corners) = a_u(i);
                        out[i] = v[i] - centre - edges - corners;
                    }
                }
                None => {
                    for i in 0..n {
                        let (centre, edges, corners) = a_u(i);
                        out[i] = out[i] - centre - edges - corners;
                    }
                }
            }
        }
    }
}

/// The smoother u = u + C r on the interior (u = 0 + C r when
/// `accumulate` is false, NPB's zero3 then psinv), then comm3(u).
pub(super) fn psinv(team: &Team, r: &Grid, u: &Grid, c: &[f64; 4], accumulate: bool) {
    let m = u.m();
    assert_eq!(r.m(), m, "r and u on one level");
    team.run(|worker| {
        let planes = u.interior_planes(team, worker);
        if planes.is_empty() {
            return;
        }
        // SAFETY: each worker writes only interior planes of u it owns; u is not
        // read through any other reference in this job.
        let out = unsafe { u.planes_mut(planes.clone()) };
        let r = r.values();
        let mut sums = vec![0.0; 2 * m];
        for (i3, out_plane) in planes.zip(out.chunks_exact_mut(m * m)) {
            psinv_plane(r, out_plane, m, i3, c, accumulate, &mut sums);
            wrap_in_plane(out_plane, m);
        }
    });
    u.wrap_ghost_planes(team);
}

widest_simd! {
    /// [`psinv`] on interior plane `i3` (`out_plane`); `sums` is scratch of 2 m.
    fn psinv_plane / psinv_plane_baseline(
        r: &[f64],
        out_plane: &mut [f64],
        m: usize,
        i3: usize,
        c: &[f64; 4],
        accumulate: bool,
        sums: &mut [f64],
    ) {
        let (r1, r2) = sums.split_at_mut(m);
        for i2 in 1..m - 1 {
            neighbour_sums(r, m, i3, i2, r1, r2);
            let centre = row(r, m, i3, i2);
            let out_row = &mut out_plane[i2 * m..][..m];
            if !accumulate {
                out_row.fill(0.0);
            }
            // Point i1 = i + 1; all slices of one length so the loop vectorises.
            let n = m - 2;
            let out = &mut out_row[1..=n];
            let (left, mid, right) = (&centre[..n], &centre[1..=n], &centre[2..n + 2]);
            let (r1_left, r1_mid, r1_right) = (&r1[..n], &r1[1..=n], &r1[2..n + 2]);
            let r2_mid = &r2[1..=n];
            for i in 0..n {
                // c[3] = 0: NPB leaves out the corner term.
                out[i] = out[i]
                    + c[0] * mid[i]
                    + c[1] * (left[i] + right[i] + r1_mid[i])
                    + c[2] * (r2_mid[i] + r1_left[i] + r1_right[i]);
            }
        }
    }
}

/// The finest level's smoothing and the residual after it, in one sweep:
/// u = u + C r, comm3(u), then r = v - A u, comm3(r), with every point
/// computed as [`psinv`] and [`resid`] compute it (the same bits). Each
/// worker smooths its planes in order and forms the residual of a plane as
/// soon as the smoothed planes around it exist, while they are still in
/// the caches, and overwrites r behind the smoother, which has read those
/// planes already: one pass over the grids instead of two. The residual of
/// a worker's first and last plane waits for a barrier (their neighbours
/// belong to other workers, or are periodic ghost planes, and the other
/// workers still read their old r).
pub(super) fn psinv_then_resid(
    team: &Team,
    u: &Grid,
    r: &Grid,
    v: &Grid,
    c: &[f64; 4],
    a: &[f64; 4],
) {
    let m = u.m();
    assert!(r.m() == m && v.m() == m, "u, r and v on one level");
    team.run(|worker| {
        let planes = u.interior_planes(team, worker);
        let mut sums = vec![0.0; 2 * m];
        for p in planes.clone() {
            // SAFETY: r's planes p-1..=p+1 are read-only now: this worker overwrites
            // its own planes only behind p (below), and the neighbours' first and
            // last planes (p-1 or p+1 outside the block) wait for the next job.
            // u's plane p is this worker's own and nobody else reads it in this job.
            let (r_window, out) = unsafe { (r.planes(p - 1..p + 2), u.planes_mut(p..p + 1)) };
            psinv_plane(r_window, out, m, 1, c, true, &mut sums);
            wrap_in_plane(out, m);
            let q = p - 1;
            if q > planes.start {
                // SAFETY: u's planes q-1..=q+1 are this worker's, smoothed above and no
                // longer written; r's plane q was last read by the smoothing of plane
                // p = q+1 just done, and by no other worker.
                unsafe { residual_plane(u, v, r, q, a, &mut sums) };
            }
        }
    });
    u.wrap_ghost_planes(team);
    team.run(|worker| {
        let planes = u.interior_planes(team, worker);
        let mut sums = vec![0.0; 2 * m];
        // The first and last plane of the block (one plane: once; none: none).
        let last = planes.end.saturating_sub(1);
        let edges = [Some(planes.start), (last > planes.start).then_some(last)];
        for q in edges.into_iter().flatten().filter(|q| planes.contains(q)) {
            // SAFETY: u is complete and only read in this job; r's plane q is this
            // worker's and read by nobody in this job.
            unsafe { residual_plane(u, v, r, q, a, &mut sums) };
        }
    });
    r.wrap_ghost_planes(team);
}

/// r = v - A u on plane q of the finest grid, in-plane ghosts wrapped;
/// `sums` is scratch of 2 m.
///
/// # Safety
/// Nobody may write u's planes q-1..=q+1 or r's plane q meanwhile, nor
/// read r's plane q.
unsafe fn residual_plane(u: &Grid, v: &Grid, r: &Grid, q: usize, a: &[f64; 4], sums: &mut [f64]) {
    // SAFETY: the caller's contract; v is only ever read.
    let (u_window, v_window, out) = unsafe {
        (
            u.planes(q - 1..q + 2),
            v.planes(q - 1..q + 2),
            r.planes_mut(q..q + 1),
        )
    };
    resid_plane(u_window, Some(v_window), out, r.m(), 1, a, sums);
    wrap_in_plane(out, r.m());
}

/// Restriction of the fine residual `r` onto the next coarser grid `s`
/// (trilinear finite-element projection), then comm3(s).
pub(super) fn rprj3(team: &Team, r: &Grid, s: &Grid) {
    let (mk, mj) = (r.m(), s.m());
    assert_eq!(mk, 2 * mj - 2, "s is the next coarser level of r");
    team.run(|worker| {
        let planes = s.interior_planes(team, worker);
        if planes.is_empty() {
            return;
        }
        // SAFETY: each worker writes only interior planes of s it owns; s is not
        // read in this job (r is another grid).
        let out = unsafe { s.planes_mut(planes.clone()) };
        let r = r.values();
        let mut sums = vec![0.0; 2 * mk];
        for (j3, out_plane) in planes.zip(out.chunks_exact_mut(mj * mj)) {
            rprj3_plane(r, out_plane, mk, mj, j3, &mut sums);
            wrap_in_plane(out_plane, mj);
        }
    });
    s.wrap_ghost_planes(team);
}

widest_simd! {
    /// [`rprj3`] onto coarse interior plane `j3` (`out_plane`); `sums` is scratch of 2 mk.
    ///
    /// NPB forms its partial sums x1, y1 at the odd fine points and x2, y2
    /// (the same sums, same operand order) at the even ones inside the
    /// output loop; here one contiguous, vectorised pass forms them at every
    /// fine point of the row (`x`, `y`), and the output loop picks them up:
    /// the same values, bit for bit, without strided loads of eight rows.
    fn rprj3_plane / rprj3_plane_baseline(
        r: &[f64],
        out_plane: &mut [f64],
        mk: usize,
        mj: usize,
        j3: usize,
        sums: &mut [f64],
    ) {
        let (x, y) = sums.split_at_mut(mk);
        let (x, y) = (&mut x[..mk], &mut y[..mk]);
        let i3 = 2 * j3 - 1;
        for j2 in 1..mj - 1 {
            let i2 = 2 * j2 - 1;
            let near_south = row(r, mk, i3, i2);
            let near_mid = row(r, mk, i3, i2 + 1);
            let near_north = row(r, mk, i3, i2 + 2);
            let mid_south = row(r, mk, i3 + 1, i2);
            let mid_mid = row(r, mk, i3 + 1, i2 + 1);
            let mid_north = row(r, mk, i3 + 1, i2 + 2);
            let far_south = row(r, mk, i3 + 2, i2);
            let far_mid = row(r, mk, i3 + 2, i2 + 1);
            let far_north = row(r, mk, i3 + 2, i2 + 2);
            for i in 0..mk {
                x[i] = mid_south[i] + mid_north[i] + near_mid[i] + far_mid[i];
                y[i] = near_south[i] + far_south[i] + near_north[i] + far_north[i];
            }
            // Coarse point j1 = j + 1 sits over fine point i1 + 1 = 2 j + 2.
            let out = &mut out_plane[j2 * mj + 1..][..mj - 2];
            for (j, out) in out.iter_mut().enumerate() {
                let i1 = 2 * j + 1;
                *out = 0.5 * mid_mid[i1 + 1]
                    + 0.25 * (mid_mid[i1] + mid_mid[i1 + 2] + x[i1 + 1])
                    + 0.125 * (x[i1] + x[i1 + 2] + y[i1 + 1])
                    + 0.0625 * (y[i1] + y[i1 + 2]);
            }
        }
    }
}

/// Prolongation: u = u + Q z, the trilinear interpolation of the coarse
/// correction `z` (u = 0 + Q z when `accumulate` is false, NPB's zero3 then
/// interp). Writes every point of u, ghosts included, consistently
/// periodic, so no exchange follows (as in NPB).
pub(super) fn interp(team: &Team, z: &Grid, u: &Grid, accumulate: bool) {
    let (mm, n) = (z.m(), u.m());
    assert_eq!(n, 2 * mm - 2, "u is the next finer level of z");
    team.run(|worker| {
        let planes = u.owned_planes(team, worker);
        if planes.is_empty() {
            return;
        }
        // SAFETY: each worker writes only the planes of u it owns; u is not read
        // through any other reference in this job (z is another grid).
        let out = unsafe { u.planes_mut(planes.clone()) };
        let z = z.values();
        let mut sums = vec![0.0; 3 * mm];
        for (plane, out_plane) in planes.zip(out.chunks_exact_mut(n * n)) {
            interp_plane(z, out_plane, mm, n, plane, accumulate, &mut sums);
        }
    });
}

widest_simd! {
    /// [`interp`] into fine plane `plane` (`out_plane`); `sums` is scratch of 3 mm.
    fn interp_plane / interp_plane_baseline(
        z: &[f64],
        out_plane: &mut [f64],
        mm: usize,
        n: usize,
        plane: usize,
        accumulate: bool,
        sums: &mut [f64],
    ) {
        // One loop nest per mode, so no branch is left inside the loops.
        if accumulate {
            interp_rows::<true>(z, out_plane, mm, n, plane, sums);
        } else {
            interp_rows::<false>(z, out_plane, mm, n, plane, sums);
        }
    }
}

#[inline(always)]
fn interp_rows<const ACCUMULATE: bool>(
    z: &[f64],
    out_plane: &mut [f64],
    mm: usize,
    n: usize,
    plane: usize,
    sums: &mut [f64],
) {
    let (z1, rest) = sums.split_at_mut(mm);
    let (z2, z3) = rest.split_at_mut(mm);
    let i3 = plane / 2;
    let odd = plane % 2 == 1;
    for i2 in 0..mm - 1 {
        let here = row(z, mm, i3, i2);
        let here_north = row(z, mm, i3, i2 + 1);
        for i1 in 0..mm {
            z1[i1] = here_north[i1] + here[i1];
        }
        let (even_row, odd_row) = out_plane[2 * i2 * n..][..2 * n].split_at_mut(n);
        if !odd {
            // 1.0 * x is x exactly: NPB adds here[i1] itself.
            interp_pairs::<ACCUMULATE>(even_row, here, 1.0, 0.5);
            interp_pairs::<ACCUMULATE>(odd_row, z1, 0.5, 0.25);
        } else {
            let next = row(z, mm, i3 + 1, i2);
            let next_north = row(z, mm, i3 + 1, i2 + 1);
            for i1 in 0..mm {
                z2[i1] = next[i1] + here[i1];
                z3[i1] = next_north[i1] + next[i1] + z1[i1];
            }
            interp_pairs::<ACCUMULATE>(even_row, z2, 0.5, 0.25);
            interp_pairs::<ACCUMULATE>(odd_row, z3, 0.25, 0.125);
        }
    }
}

/// One fine row of interp from one row of coarse sums `z` (mm values):
/// `out[2 i] (+)= even * z[i]`, `out[2 i + 1] (+)= odd * (z[i] + z[i + 1])`
/// (NPB's terms; a sum of two operands is the same in either order). The
/// pairs are written as exact chunks so the loop vectorises.
#[inline(always)]
fn interp_pairs<const ACCUMULATE: bool>(out: &mut [f64], z: &[f64], even: f64, odd: f64) {
    let base = |value: f64| if ACCUMULATE { value } else { 0.0 };
    for ((pair, &left), &right) in out.chunks_exact_mut(2).zip(z).zip(&z[1..]) {
        pair[0] = base(pair[0]) + even * left;
        pair[1] = base(pair[1]) + odd * (left + right);
    }
}

/// NPB's norm2u3 over the interior: (sqrt(sum r^2 / n^3), max |r|). Each
/// plane's sum is formed in NPB's order and the plane sums are added in
/// plane order, so the result is the same for every number of workers.
pub(super) fn norm2u3(team: &Team, r: &Grid) -> (f64, f64) {
    let m = r.m();
    let partials: Vec<Mutex<(Vec<f64>, f64)>> = (0..team.threads())
        .map(|_| Mutex::new((Vec::new(), 0.0)))
        .collect();
    team.run(|worker| {
        let values = r.values();
        let mut sums = Vec::new();
        let mut largest = 0.0f64;
        for i3 in r.interior_planes(team, worker) {
            let mut sum = 0.0;
            for i2 in 1..m - 1 {
                for &value in &row(values, m, i3, i2)[1..m - 1] {
                    sum += value * value;
                    largest = largest.max(value.abs());
                }
            }
            sums.push(sum);
        }
        *partials[worker].lock().expect("norm partial") = (sums, largest);
    });
    let mut sum = 0.0;
    let mut largest = 0.0f64;
    // Workers own ascending plane blocks: worker order is plane order.
    for partial in partials {
        let (sums, worker_largest) = partial.into_inner().expect("norm partial");
        sum = sums.into_iter().fold(sum, |total, plane| total + plane);
        largest = largest.max(worker_largest);
    }
    let points = (r.n() as f64).powi(3);
    ((sum / points).sqrt(), largest)
}

#[cfg(test)]
#[path = "npb_order_tests.rs"]
mod npb_order_tests;

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in [-1, 1).
    fn values(count: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
            })
            .collect()
    }

    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|value| value.to_bits()).collect()
    }

    /// The widest-SIMD variants compute exactly what the baseline bodies do.
    #[test]
    fn vector_variants_are_bit_identical_to_the_baseline() {
        let (m, i3) = (18, 5);
        let u = values(m * m * m, 1);
        let v = values(m * m * m, 2);
        let a = [-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0];
        let c = [-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0];
        let mut scratch = vec![0.0; 3 * m];
        let run = |plane: &mut Vec<f64>, f: &dyn Fn(&mut [f64], &mut [f64])| {
            let mut scratch = vec![0.0; 3 * m];
            f(plane, &mut scratch);
        };
        for accumulate in [false, true] {
            let (mut wide, mut base) = (values(m * m, 3), values(m * m, 3));
            run(&mut wide, &|out, s| {
                psinv_plane(&u, out, m, i3, &c, accumulate, s)
            });
            psinv_plane_baseline(&u, &mut base, m, i3, &c, accumulate, &mut scratch);
            assert_eq!(bits(&wide), bits(&base), "psinv accumulate={accumulate}");
        }
        for v in [Some(&v[..]), None] {
            let (mut wide, mut base) = (values(m * m, 4), values(m * m, 4));
            run(&mut wide, &|out, s| resid_plane(&u, v, out, m, i3, &a, s));
            resid_plane_baseline(&u, v, &mut base, m, i3, &a, &mut scratch);
            assert_eq!(bits(&wide), bits(&base), "resid");
        }
        let mj = m / 2 + 1;
        let (mut wide, mut base) = (vec![0.0; mj * mj], vec![0.0; mj * mj]);
        run(&mut wide, &|out, s| rprj3_plane(&u, out, m, mj, 3, s));
        rprj3_plane_baseline(&u, &mut base, m, mj, 3, &mut scratch);
        assert_eq!(bits(&wide), bits(&base), "rprj3");
        let fine = 2 * mj - 2;
        let z = values(mj * mj * mj, 5);
        for (plane, accumulate) in [(4, false), (5, true)] {
            let (mut wide, mut base) = (values(fine * fine, 6), values(fine * fine, 6));
            run(&mut wide, &|out, s| {
                interp_plane(&z, out, mj, fine, plane, accumulate, s)
            });
            interp_plane_baseline(&z, &mut base, mj, fine, plane, accumulate, &mut scratch);
            assert_eq!(bits(&wide), bits(&base), "interp plane {plane}");
        }
    }
}
