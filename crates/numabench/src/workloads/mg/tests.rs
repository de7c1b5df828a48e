//! MG: operators against independent checks, NPB's random field, and
//! verification of whole runs.

use super::class::{MgParameters, A_COEFFICIENTS};
use super::grid::Grid;
use super::operators::{interp, norm2u3, psinv, psinv_then_resid, resid, rprj3};
use super::zran3::{multiply, power, randlc, zran3, MULTIPLIER, SEED};
use super::MgKernel;
use crate::runtime::{PlacementScheme, Team};
use crate::workloads::{AppKernel, NpbClass};
use std::time::Instant;

fn team_with(threads: usize, scheme: PlacementScheme) -> Team {
    Team::compact_here(threads, scheme)
}

fn team(threads: usize) -> Team {
    team_with(threads, PlacementScheme::FirstTouch)
}

/// Sets up, runs every iteration and verifies, as the runner does; returns
/// rnm2 after checking it passed.
fn run_and_verify(class: NpbClass, team: &Team) -> f64 {
    let verification = crate::workloads::kernel::run_untimed(&mut MgKernel::new(class), team);
    assert_eq!(verification.quantity, "rnm2");
    assert!(
        verification.passed,
        "class {class} with {} threads under {}: {verification:?}",
        team.threads(),
        team.scheme()
    );
    verification.computed
}

/// Index of (i1, i2, i3) in a grid with m points per dimension.
fn at(m: usize, i1: usize, i2: usize, i3: usize) -> usize {
    (i3 * m + i2) * m + i1
}

/// Fills a grid from a function of the interior point (1..=n each) and
/// makes the ghosts periodic.
fn fill(team: &Team, grid: &Grid, value: impl Fn(usize, usize, usize) -> f64) {
    let m = grid.m();
    // SAFETY: single-threaded here; no other reference to the grid is live.
    let all = unsafe { grid.planes_mut(0..m) };
    for i3 in 1..m - 1 {
        for i2 in 1..m - 1 {
            for i1 in 1..m - 1 {
                all[at(m, i1, i2, i3)] = value(i1, i2, i3);
            }
        }
    }
    grid.comm3(team);
}

/// The interior index a ghost-inclusive index wraps to.
fn wrap(index: usize, m: usize) -> usize {
    match index {
        0 => m - 2,
        i if i == m - 1 => 1,
        i => i,
    }
}

#[test]
fn comm3_makes_every_ghost_a_periodic_copy() {
    for threads in [1, 2, 3] {
        let team = team(threads);
        let grid = Grid::alloc(&team, 6).unwrap();
        fill(&team, &grid, |i1, i2, i3| (i1 + 10 * i2 + 100 * i3) as f64);
        let (m, values) = (grid.m(), grid.values());
        for i3 in 0..m {
            for i2 in 0..m {
                for i1 in 0..m {
                    let (j1, j2, j3) = (wrap(i1, m), wrap(i2, m), wrap(i3, m));
                    assert_eq!(
                        values[at(m, i1, i2, i3)],
                        (j1 + 10 * j2 + 100 * j3) as f64,
                        "({i1}, {i2}, {i3}) with {threads} threads"
                    );
                }
            }
        }
    }
}

#[test]
fn resid_of_a_spike_is_the_stencil_wrapped_periodically() {
    // u = 1 at the corner point (1, 1, 1), v = 0: r = -A u holds A's
    // coefficients, negated, at the spike's neighbours, which wrap around.
    let team = team(2);
    let n = 8;
    let (u, v, r) = (
        Grid::alloc(&team, n).unwrap(),
        Grid::alloc(&team, n).unwrap(),
        Grid::alloc(&team, n).unwrap(),
    );
    fill(&team, &u, |i1, i2, i3| {
        f64::from(u8::from((i1, i2, i3) == (1, 1, 1)))
    });
    resid(&team, &u, Some(&v), &r, &A_COEFFICIENTS);
    let m = r.m();
    let distance = |i: usize| -> usize {
        // Periodic distance from 1 on 1..=n.
        let d = (i + n - 1) % n;
        d.min(n - d)
    };
    for i3 in 1..=n {
        for i2 in 1..=n {
            for i1 in 1..=n {
                let offsets = [distance(i1), distance(i2), distance(i3)];
                let expected = if offsets.iter().any(|&d| d > 1) {
                    0.0
                } else {
                    -A_COEFFICIENTS[offsets.iter().sum::<usize>()]
                };
                assert_eq!(
                    r.values()[at(m, i1, i2, i3)],
                    expected,
                    "({i1}, {i2}, {i3})"
                );
            }
        }
    }
    // The residual's ghosts are periodic too.
    assert_eq!(r.values()[at(m, 0, 1, 1)], r.values()[at(m, n, 1, 1)]);
    assert_eq!(r.values()[at(m, 1, 1, m - 1)], r.values()[at(m, 1, 1, 1)]);
}

#[test]
fn constants_pass_through_the_operators_as_expected() {
    let team = team(3);
    let (coarse, fine) = (
        Grid::alloc(&team, 4).unwrap(),
        Grid::alloc(&team, 8).unwrap(),
    );
    // A annihilates constants: -8/3 + 12/6 + 8/12 = 0, so r = v - A 1.5 = v.
    let (u, v, r) = (
        Grid::alloc(&team, 8).unwrap(),
        Grid::alloc(&team, 8).unwrap(),
        Grid::alloc(&team, 8).unwrap(),
    );
    fill(&team, &u, |_, _, _| 1.5);
    fill(&team, &v, |i1, i2, i3| (i1 * i2 + i3) as f64);
    resid(&team, &u, Some(&v), &r, &A_COEFFICIENTS);
    for (r, v) in r.values().iter().zip(v.values()) {
        assert!((r - v).abs() < 1e-12, "{r} vs {v}");
    }
    // The restriction's weights sum to 0.5 + 6/4 + 12/8 + 8/16 = 4.
    fill(&team, &fine, |_, _, _| 2.0);
    rprj3(&team, &fine, &coarse);
    assert!(coarse.values().iter().all(|&value| value == 8.0));
    // Interpolating a constant onto zero gives the constant everywhere, ghosts included.
    interp(&team, &coarse, &fine, false);
    assert!(fine.values().iter().all(|&value| value == 8.0));
    interp(&team, &coarse, &fine, true);
    assert!(fine.values().iter().all(|&value| value == 16.0));
    // The smoother on a constant r adds r (c0 + 6 c1 + 12 c2) (c3 = 0).
    let c = MgParameters::of(NpbClass::S).c;
    fill(&team, &r, |_, _, _| 1.0);
    psinv(&team, &r, &u, &c, false);
    let gain = c[0] + 6.0 * c[1] + 12.0 * c[2];
    assert!(u.values().iter().all(|&value| (value - gain).abs() < 1e-15));
    // norm2u3 of a constant: both norms are the constant.
    let (rnm2, rnmu) = norm2u3(&team, &r);
    assert_eq!((rnm2, rnmu), (1.0, 1.0));
}

/// NPB's randlc in double precision (its 2^23 splitting), written out
/// here as an independent check of the integer version.
fn randlc_double(x: &mut f64, a: f64) -> f64 {
    let r23 = 0.5f64.powi(23);
    let (t23, r46, t46) = (2.0f64.powi(23), 0.5f64.powi(46), 2.0f64.powi(46));
    let a1 = (r23 * a).trunc();
    let a2 = a - t23 * a1;
    let x1 = (r23 * *x).trunc();
    let x2 = *x - t23 * x1;
    let t1 = a1 * x2 + a2 * x1;
    let t2 = (r23 * t1).trunc();
    let z = t1 - t23 * t2;
    let t3 = t23 * z + a2 * x2;
    let t4 = (r46 * t3).trunc();
    *x = t3 - t46 * t4;
    r46 * *x
}

#[test]
fn integer_randlc_matches_the_double_precision_algorithm() {
    let (mut exact, mut double) = (SEED, SEED as f64);
    for _ in 0..100_000 {
        assert_eq!(
            randlc(&mut exact, MULTIPLIER),
            randlc_double(&mut double, MULTIPLIER as f64)
        );
        assert_eq!(exact as f64, double);
    }
    // power skips ahead exactly: 1000 steps at once equal 1000 single steps.
    let mut stepped = SEED;
    for _ in 0..1000 {
        stepped = multiply(MULTIPLIER, stepped);
    }
    assert_eq!(multiply(power(MULTIPLIER, 1000), SEED), stepped);
    assert_eq!(power(MULTIPLIER, 0), 1);
}

#[test]
fn zran3_marks_the_extremes_of_one_sequential_stream() {
    // Reference: the whole 32^3 stream generated sequentially, sorted.
    let n = 32;
    let mut x = SEED;
    let mut stream: Vec<(f64, (usize, usize, usize))> = Vec::new();
    for i3 in 1..=n {
        for i2 in 1..=n {
            for i1 in 1..=n {
                stream.push((randlc(&mut x, MULTIPLIER), (i1, i2, i3)));
            }
        }
    }
    stream.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut negative: Vec<_> = stream[..10].iter().map(|&(_, point)| point).collect();
    let mut positive: Vec<_> = stream[stream.len() - 10..]
        .iter()
        .map(|&(_, point)| point)
        .collect();
    negative.sort();
    positive.sort();
    for threads in [1, 2, 3] {
        let team = team(threads);
        let z = Grid::alloc(&team, n).unwrap();
        let mut charges = zran3(&team, &z);
        charges.positive.sort();
        charges.negative.sort();
        assert_eq!(charges.positive, positive);
        assert_eq!(charges.negative, negative);
        let m = z.m();
        for i3 in 0..m {
            for i2 in 0..m {
                for i1 in 0..m {
                    let point = (wrap(i1, m), wrap(i2, m), wrap(i3, m));
                    let expected = if positive.contains(&point) {
                        1.0
                    } else if negative.contains(&point) {
                        -1.0
                    } else {
                        0.0
                    };
                    assert_eq!(z.values()[at(m, i1, i2, i3)], expected);
                }
            }
        }
    }
}

#[test]
fn class_sizes_and_memory() {
    let s = MgParameters::of(NpbClass::S);
    assert_eq!((s.nx, s.nit, s.levels()), (32, 4, 5));
    assert_eq!(s.points_at(1), 2);
    let b = MgKernel::new(NpbClass::B);
    assert_eq!(b.iterations(), 20);
    assert_eq!(b.operations(), 58.0 * 20.0 * 256f64.powi(3));
    // u and r at 258^3, 130^3, ..., 4^3, and v at 258^3: about 0.45 GB.
    let expected: u64 = 8
        * (3 * 258u64.pow(3)
            + 2 * [130u64, 66, 34, 18, 10, 6, 4]
                .iter()
                .map(|m| m.pow(3))
                .sum::<u64>());
    assert_eq!(MgKernel::memory_bytes_for(NpbClass::B), expected);
    assert_eq!(b.memory_bytes(), expected);
    assert_eq!(MgParameters::of(NpbClass::C).c[0], -3.0 / 17.0);
}

#[test]
fn class_s_verifies_at_1_2_3_threads_with_identical_results() {
    let results: Vec<f64> = [1, 2, 3]
        .into_iter()
        .map(|threads| run_and_verify(NpbClass::S, &team(threads)))
        .collect();
    assert!(
        results
            .iter()
            .all(|&rnm2| rnm2.to_bits() == results[0].to_bits()),
        "{results:?}"
    );
}

#[test]
fn class_s_verifies_under_every_placement_scheme() {
    for scheme in PlacementScheme::every_scheme(0) {
        run_and_verify(NpbClass::S, &team_with(2, scheme));
    }
}

#[test]
fn class_w_verifies_at_1_2_and_3_threads_with_identical_results() {
    let started = Instant::now();
    let results: Vec<u64> = [1, 2, 3]
        .into_iter()
        .map(|threads| run_and_verify(NpbClass::W, &team(threads)).to_bits())
        .collect();
    assert!(
        results.iter().all(|&bits| bits == results[0]),
        "{results:?}"
    );
    eprintln!(
        "class W three times: {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn class_w_verifies_under_every_placement_scheme() {
    for scheme in PlacementScheme::every_scheme(0) {
        run_and_verify(NpbClass::W, &team_with(3, scheme));
    }
}

/// CPU time of the calling thread (worker 0): on a loaded machine, how
/// long it actually ran.
fn thread_cpu_seconds() -> f64 {
    crate::counters::thread_cpu_time().as_secs_f64()
}

/// `cargo test --release -p numabench mg -- --ignored --nocapture`
#[test]
#[ignore = "timing; run in release"]
fn mg_timing_by_class_and_threads() {
    for class in [NpbClass::S, NpbClass::W, NpbClass::A, NpbClass::B] {
        for threads in [1, 2] {
            let team = team(threads);
            let mut kernel = MgKernel::new(class);
            let setup = Instant::now();
            kernel.setup(&team).unwrap();
            let setup = setup.elapsed().as_secs_f64();
            team.start_compute().unwrap();
            let started = Instant::now();
            let cpu_started = thread_cpu_seconds();
            for iteration in 0..kernel.iterations() {
                kernel.iterate(&team, iteration);
            }
            let seconds = started.elapsed().as_secs_f64();
            let cpu = thread_cpu_seconds() - cpu_started;
            team.finish_compute();
            let verification = kernel.verify(&team);
            println!(
                "MG class {class} threads {threads}: setup {setup:.3} s, iterations {seconds:.3} s \
                 (worker 0 on CPU {cpu:.3} s), \
                 {:.1} Mop/s, rnm2 {:e} (reference {:e}), passed {}",
                kernel.operations() / seconds / 1e6,
                verification.computed,
                verification.reference.unwrap(),
                verification.passed
            );
            assert!(verification.passed);
        }
    }
}

/// The first iteration's one-off work (the initial residual and norms),
/// repeated after the run for the migration-cost figure, leaves the
/// finest residual and the verified result exactly as they were.
#[test]
fn repeating_the_prologue_changes_no_result() {
    let team = team(2);
    let mut kernel = MgKernel::new(NpbClass::S);
    kernel.setup(&team).unwrap();
    for iteration in 0..kernel.iterations() {
        kernel.iterate(&team, iteration);
    }
    let before = kernel.residual_norms(&team).unwrap();
    let verified = kernel.verify(&team);
    assert!(kernel.repeat_prologue(&team));
    let after = kernel.residual_norms(&team).unwrap();
    assert_eq!(
        (before.0.to_bits(), before.1.to_bits()),
        (after.0.to_bits(), after.1.to_bits())
    );
    assert_eq!(kernel.verify(&team), verified);
}

/// The fused smoothing and residual of the finest level leaves u and r
/// (ghosts included) bit for bit as psinv then resid do, for team sizes
/// whose blocks have one, two and several planes.
#[test]
fn psinv_then_resid_matches_the_two_sweeps_bit_for_bit() {
    let n = 10;
    let c = MgParameters::of(NpbClass::A).c;
    let value = |seed: f64| {
        move |i1: usize, i2: usize, i3: usize| {
            ((i1 * 7 + i2 * 13 + i3 * 29) as f64 * 0.173 + seed).sin()
        }
    };
    for threads in [1, 2, 3, 5, 10] {
        let team = team(threads);
        let grids: Vec<Grid> = (0..5).map(|_| Grid::alloc(&team, n).unwrap()).collect();
        let [u_two, r_two, u_fused, r_fused, v] = &grids[..] else {
            unreachable!()
        };
        for (grid, seed) in [
            (u_two, 0.1),
            (u_fused, 0.1),
            (r_two, 0.7),
            (r_fused, 0.7),
            (v, 1.3),
        ] {
            fill(&team, grid, value(seed));
        }
        psinv(&team, r_two, u_two, &c, true);
        resid(&team, u_two, Some(v), r_two, &A_COEFFICIENTS);
        psinv_then_resid(&team, u_fused, r_fused, v, &c, &A_COEFFICIENTS);
        let bits = |grid: &Grid| {
            grid.values()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(u_fused), bits(u_two), "u with {threads} threads");
        assert_eq!(bits(r_fused), bits(r_two), "r with {threads} threads");
    }
}
