//! NPB's random right-hand side (zran3): the random field of randlc
//! (x_{k+1} = 5^13 x_k mod 2^46, seed 314159265) over the interior in
//! (i1, i2, i3) order, +1 at its 10 largest values, -1 at its 10 smallest,
//! zero elsewhere. NPB's randlc computes a x mod 2^46 exactly in double
//! precision; here it is integer arithmetic, which is exact by
//! construction, so any split of the stream (each plane starting from
//! seed * a^(n^2 (i3-1)), each row from a further a^(n (i2-1))) gives
//! NPB's numbers bit for bit.

use super::grid::Grid;
use crate::runtime::Team;
use std::sync::Mutex;

/// NPB's multiplier 5^13.
pub(super) const MULTIPLIER: u64 = 1_220_703_125;
/// NPB MG's seed.
pub(super) const SEED: u64 = 314_159_265;
const MODULUS_MASK: u64 = (1 << 46) - 1;
/// 2^-46, exact.
const SCALE: f64 = 1.0 / (1u64 << 46) as f64;
/// How many points get +1 and how many -1.
pub(super) const CHARGES: usize = 10;

/// a x mod 2^46 (2^46 divides 2^64, so the wrapped product's low 46 bits are exact).
pub(super) fn multiply(a: u64, x: u64) -> u64 {
    a.wrapping_mul(x) & MODULUS_MASK
}

/// a^n mod 2^46 (NPB's `power`).
pub(super) fn power(a: u64, mut n: u64) -> u64 {
    let (mut result, mut square) = (1u64, a & MODULUS_MASK);
    while n != 0 {
        if n % 2 == 1 {
            result = multiply(square, result);
        }
        square = multiply(square, square);
        n /= 2;
    }
    result
}

/// NPB's randlc: advances `x` to a x mod 2^46 and returns it scaled to (0, 1).
pub(super) fn randlc(x: &mut u64, a: u64) -> f64 {
    *x = multiply(a, *x);
    *x as f64 * SCALE
}

/// NPB's vranlc: fills `out` with the next `out.len()` numbers of the stream.
pub(super) fn vranlc(x: &mut u64, a: u64, out: &mut [f64]) {
    for value in out {
        *value = randlc(x, a);
    }
}

/// A grid point (i1, i2, i3), ghost-inclusive indices.
pub(super) type Point = (usize, usize, usize);

/// The `CHARGES` largest and smallest values seen, with their points.
#[derive(Debug, Default)]
struct Extremes {
    /// Descending; among equal values the earlier-seen first.
    largest: Vec<(f64, Point)>,
    /// Ascending; among equal values the earlier-seen first.
    smallest: Vec<(f64, Point)>,
}

impl Extremes {
    fn offer(&mut self, value: f64, point: Point) {
        if self.largest.len() < CHARGES || value > self.largest[CHARGES - 1].0 {
            let at = self.largest.partition_point(|&(kept, _)| kept >= value);
            self.largest.insert(at, (value, point));
            self.largest.truncate(CHARGES);
        }
        if self.smallest.len() < CHARGES || value < self.smallest[CHARGES - 1].0 {
            let at = self.smallest.partition_point(|&(kept, _)| kept <= value);
            self.smallest.insert(at, (value, point));
            self.smallest.truncate(CHARGES);
        }
    }

    /// Merges per-worker extremes given in worker (= point) order.
    fn merge(parts: Vec<Extremes>) -> Extremes {
        let mut all = Extremes::default();
        for part in parts {
            for (value, point) in part.largest.into_iter().chain(part.smallest) {
                all.offer(value, point);
            }
        }
        all
    }
}

/// The charges zran3 placed: (+1 points, -1 points).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Charges {
    pub positive: Vec<Point>,
    pub negative: Vec<Point>,
}

/// Fills `z` as NPB's zran3 does (then comm3), in parallel by planes.
pub(super) fn zran3(team: &Team, z: &Grid) -> Charges {
    let (n, m) = (z.n(), z.m());
    let row_step = power(MULTIPLIER, n as u64);
    let plane_step = power(MULTIPLIER, (n * n) as u64);
    let parts: Vec<Mutex<Extremes>> = (0..team.threads())
        .map(|_| Mutex::new(Extremes::default()))
        .collect();
    team.run(|worker| {
        let planes = z.interior_planes(team, worker);
        let mut extremes = Extremes::default();
        if !planes.is_empty() {
            let mut plane_seed = multiply(power(plane_step, planes.start as u64 - 1), SEED);
            let mut values = vec![0.0; n];
            for i3 in planes {
                let mut row_seed = plane_seed;
                for i2 in 1..=n {
                    let mut x = row_seed;
                    vranlc(&mut x, MULTIPLIER, &mut values);
                    for (i1, &value) in (1..=n).zip(&values) {
                        extremes.offer(value, (i1, i2, i3));
                    }
                    row_seed = multiply(row_step, row_seed);
                }
                plane_seed = multiply(plane_step, plane_seed);
            }
        }
        *parts[worker].lock().expect("zran3 part") = extremes;
    });
    let parts = parts
        .into_iter()
        .map(|part| part.into_inner().expect("zran3 part"))
        .collect();
    let extremes = Extremes::merge(parts);
    let charges = Charges {
        positive: extremes.largest.iter().map(|&(_, point)| point).collect(),
        negative: extremes.smallest.iter().map(|&(_, point)| point).collect(),
    };
    team.run(|worker| {
        let owned = z.owned_planes(team, worker);
        // SAFETY: each worker writes only the planes it owns (disjoint blocks).
        let block = unsafe { z.planes_mut(owned.clone()) };
        block.fill(0.0);
        // NPB sets the -1 points first, then the +1 points.
        let marks = charges
            .negative
            .iter()
            .map(|&point| (point, -1.0))
            .chain(charges.positive.iter().map(|&point| (point, 1.0)));
        for ((i1, i2, i3), mark) in marks {
            if owned.contains(&i3) {
                block[((i3 - owned.start) * m + i2) * m + i1] = mark;
            }
        }
    });
    z.comm3(team);
    charges
}
