//! rprj3 and interp against NPB's loops written out as NPB writes them
//! (x1/y1 at the odd fine points, x2/y2 inside the output loop; interp's
//! stride-two updates): the restructured, vectorised operators must give
//! the same values bit for bit.

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

/// NPB's rprj3 loop nest for coarse plane `j3`.
fn rprj3_npb(r: &[f64], out_plane: &mut [f64], mk: usize, mj: usize, j3: usize) {
    let at = |i3: usize, i2: usize, i1: usize| r[(i3 * mk + i2) * mk + i1];
    let (mut x1, mut y1) = (vec![0.0; mj], vec![0.0; mj]);
    let i3 = 2 * j3 - 1;
    for j2 in 1..mj - 1 {
        let i2 = 2 * j2 - 1;
        for j1 in 1..mj {
            let i1 = 2 * j1 - 1;
            x1[j1] = at(i3 + 1, i2, i1)
                + at(i3 + 1, i2 + 2, i1)
                + at(i3, i2 + 1, i1)
                + at(i3 + 2, i2 + 1, i1);
            y1[j1] =
                at(i3, i2, i1) + at(i3 + 2, i2, i1) + at(i3, i2 + 2, i1) + at(i3 + 2, i2 + 2, i1);
        }
        for j1 in 1..mj - 1 {
            let i1 = 2 * j1 - 1;
            let y2 = at(i3, i2, i1 + 1)
                + at(i3 + 2, i2, i1 + 1)
                + at(i3, i2 + 2, i1 + 1)
                + at(i3 + 2, i2 + 2, i1 + 1);
            let x2 = at(i3 + 1, i2, i1 + 1)
                + at(i3 + 1, i2 + 2, i1 + 1)
                + at(i3, i2 + 1, i1 + 1)
                + at(i3 + 2, i2 + 1, i1 + 1);
            out_plane[j2 * mj + j1] = 0.5 * at(i3 + 1, i2 + 1, i1 + 1)
                + 0.25 * (at(i3 + 1, i2 + 1, i1) + at(i3 + 1, i2 + 1, i1 + 2) + x2)
                + 0.125 * (x1[j1] + x1[j1 + 1] + y2)
                + 0.0625 * (y1[j1] + y1[j1 + 1]);
        }
    }
}

/// NPB's interp loop nest for fine plane `plane` (u = u + Q z, or u = Q z).
fn interp_npb(
    z: &[f64],
    out_plane: &mut [f64],
    mm: usize,
    n: usize,
    plane: usize,
    accumulate: bool,
) {
    let at = |i3: usize, i2: usize, i1: usize| z[(i3 * mm + i2) * mm + i1];
    let mut add = |i2: usize, i1: usize, value: f64| {
        let target = &mut out_plane[i2 * n + i1];
        *target = if accumulate { *target } else { 0.0 } + value;
    };
    let (i3, odd) = (plane / 2, plane % 2 == 1);
    for i2 in 0..mm - 1 {
        let z1: Vec<f64> = (0..mm)
            .map(|i1| at(i3, i2 + 1, i1) + at(i3, i2, i1))
            .collect();
        let z2: Vec<f64> = (0..mm)
            .map(|i1| at(i3 + usize::from(odd), i2, i1) + at(i3, i2, i1))
            .collect();
        let z3: Vec<f64> = (0..mm)
            .map(|i1| {
                at(i3 + usize::from(odd), i2 + 1, i1) + at(i3 + usize::from(odd), i2, i1) + z1[i1]
            })
            .collect();
        for i1 in 0..mm - 1 {
            if !odd {
                add(2 * i2, 2 * i1, at(i3, i2, i1));
                add(
                    2 * i2,
                    2 * i1 + 1,
                    0.5 * (at(i3, i2, i1 + 1) + at(i3, i2, i1)),
                );
                add(2 * i2 + 1, 2 * i1, 0.5 * z1[i1]);
                add(2 * i2 + 1, 2 * i1 + 1, 0.25 * (z1[i1] + z1[i1 + 1]));
            } else {
                add(2 * i2, 2 * i1, 0.5 * z2[i1]);
                add(2 * i2, 2 * i1 + 1, 0.25 * (z2[i1] + z2[i1 + 1]));
                add(2 * i2 + 1, 2 * i1, 0.25 * z3[i1]);
                add(2 * i2 + 1, 2 * i1 + 1, 0.125 * (z3[i1] + z3[i1 + 1]));
            }
        }
    }
}

#[test]
fn rprj3_matches_npbs_loops_bit_for_bit() {
    for mj in [4, 6, 11, 18] {
        let mk = 2 * mj - 2;
        let r = values(mk * mk * mk, mj as u64);
        for j3 in 1..mj - 1 {
            let mut computed = values(mj * mj, 7);
            let mut expected = computed.clone();
            let mut scratch = vec![0.0; 2 * mk];
            rprj3_plane(&r, &mut computed, mk, mj, j3, &mut scratch);
            rprj3_npb(&r, &mut expected, mk, mj, j3);
            assert_eq!(bits(&computed), bits(&expected), "mj {mj} plane {j3}");
        }
    }
}

#[test]
fn interp_matches_npbs_loops_bit_for_bit() {
    for mm in [3, 4, 7, 10] {
        let n = 2 * mm - 2;
        let z = values(mm * mm * mm, mm as u64 + 100);
        for plane in 0..n {
            for accumulate in [false, true] {
                let mut computed = values(n * n, plane as u64);
                let mut expected = computed.clone();
                let mut scratch = vec![0.0; 3 * mm];
                interp_plane(&z, &mut computed, mm, n, plane, accumulate, &mut scratch);
                interp_npb(&z, &mut expected, mm, n, plane, accumulate);
                assert_eq!(
                    bits(&computed),
                    bits(&expected),
                    "mm {mm} plane {plane} accumulate {accumulate}"
                );
            }
        }
    }
}
