//! CG: the generator against exact integer arithmetic, the matrix's
//! structure, and NPB's verification at several thread counts and under
//! every placement scheme.

use super::class::CgParams;
use super::makea::{MatrixGenerator, RowScratch};
use super::randlc::{randlc, Randlc, AMULT, SEED};
use super::*;
use crate::runtime::PlacementScheme;
use crate::topology::discover_this_system;

const MODULUS: u128 = 1 << 46;

fn team(threads: usize, scheme: PlacementScheme) -> Team {
    Team::compact_here(threads, scheme)
}

/// Setup, start_compute, every iteration, finish_compute, verify: as the runner does.
fn run(class: NpbClass, threads: usize, scheme: PlacementScheme) -> (CgKernel, Verification) {
    let started = std::time::Instant::now();
    let team = team(threads, scheme);
    let mut kernel = CgKernel::new(class);
    let verification = crate::workloads::kernel::run_untimed(&mut kernel, &team);
    println!(
        "CG class {class} x{threads} {}: zeta {:.16e}, ||r|| {:.6e} ({:.2} s)",
        team.scheme(),
        verification.computed,
        kernel.residual_norm(),
        started.elapsed().as_secs_f64()
    );
    (kernel, verification)
}

#[test]
fn randlc_is_exact_multiplication_mod_2_pow_46() {
    let multiplier = AMULT as u128;
    assert_eq!(multiplier, 5u128.pow(13));
    let mut exact = SEED as u128;
    let mut random = Randlc::new(SEED, AMULT);
    for _ in 0..100_000 {
        exact = exact * multiplier % MODULUS;
        let draw = random.next_value();
        assert_eq!(random.state(), exact as f64);
        assert_eq!(draw, exact as f64 / MODULUS as f64);
        assert!(draw > 0.0 && draw < 1.0);
    }
}

#[test]
fn randlc_handles_any_multiplier_and_extreme_states() {
    // a^n x0 mod 2^46 by square-and-multiply in u128, against n single steps.
    let power_mod = |base: u128, mut exponent: u64| {
        let (mut result, mut base) = (1u128, base % MODULUS);
        while exponent > 0 {
            if exponent & 1 == 1 {
                result = result * base % MODULUS;
            }
            base = base * base % MODULUS;
            exponent >>= 1;
        }
        result
    };
    for (seed, multiplier) in [
        (SEED, AMULT),
        ((MODULUS - 1) as f64, AMULT),
        (1.0, (MODULUS - 3) as f64),
        (271_828_183.0, 1_220_703_125.0),
    ] {
        let mut state = seed;
        for _ in 0..1000 {
            randlc(&mut state, multiplier);
        }
        let expected = seed as u128 * power_mod(multiplier as u128, 1000) % MODULUS;
        assert_eq!(
            state, expected as f64,
            "seed {seed}, multiplier {multiplier}"
        );
    }
}

fn generated_matrix(class: NpbClass) -> (MatrixGenerator, Vec<f64>, Vec<u32>) {
    let generator = MatrixGenerator::new(&CgParams::of(class));
    let mut values = vec![0.0; generator.nonzeros()];
    let mut columns = vec![0u32; generator.nonzeros()];
    let mut scratch = RowScratch::new(generator.order());
    generator.fill_rows(
        0..generator.order(),
        &mut values,
        &mut columns,
        &mut scratch,
    );
    (generator, values, columns)
}

#[test]
fn the_matrix_is_symmetric_with_sorted_rows_and_a_shifted_diagonal() {
    let params = CgParams::of(NpbClass::S);
    let (generator, values, columns) = generated_matrix(NpbClass::S);
    let rowstr = generator.rowstr();
    assert!(generator.nonzeros() <= params.nonzero_bound());
    let entry = |row: usize, column: u32| {
        let span = rowstr[row]..rowstr[row + 1];
        columns[span.clone()]
            .binary_search(&column)
            .ok()
            .map(|offset| values[span.start + offset])
    };
    for row in 0..params.na {
        let span = rowstr[row]..rowstr[row + 1];
        assert!(
            columns[span.clone()]
                .windows(2)
                .all(|pair| pair[0] < pair[1]),
            "row {row} sorted, distinct"
        );
        for k in span {
            let column = columns[k];
            assert!((column as usize) < params.na);
            // Symmetric up to the order of summing duplicates.
            let mirror = entry(column as usize, row as u32).expect("mirror entry");
            assert!(
                (mirror - values[k]).abs() <= 1e-12 * values[k].abs().max(1.0),
                "a[{row}][{column}] = {} but a[{column}][{row}] = {mirror}",
                values[k]
            );
        }
        // The diagonal holds RCOND - shift + 0.25 * ratio^row (ratio^row >= RCOND) + the
        // squares other outer vectors contribute.
        let diagonal = entry(row, row as u32).expect("diagonal entry");
        assert!(diagonal - (RCOND - params.shift) >= 0.25 * RCOND * (1.0 - 1e-12));
    }
}

#[test]
fn the_parallel_assembly_matches_the_serial_one_bit_for_bit() {
    let (generator, values, columns) = generated_matrix(NpbClass::S);
    for threads in [2, 3] {
        let team = team(threads, PlacementScheme::FirstTouch);
        let arrays = CgArrays::assemble(&team, &generator).unwrap();
        assert_eq!(arrays.columns(), &columns[..]);
        let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(arrays.values()), bits(&values));
    }
}

/// The encoding the product does not read is given back, the team's page
/// report no longer counts it, and the product gives the same solve.
#[test]
fn only_the_column_encoding_the_product_reads_is_kept() {
    use super::spmv::SpmvVariant;
    let (generator, _, _) = generated_matrix(NpbClass::S);
    let pages = |team: &Team| -> u64 {
        let report = team.page_report().unwrap();
        report.pages_per_node.values().sum::<u64>() + report.not_present
    };
    let nonzeros = generator.nonzeros();
    let na = generator.order();
    for (variant, released_bytes) in [
        (SpmvVariant::Loads, nonzeros * 2 + na * 4),
        (SpmvVariant::GapsPrefetch, nonzeros * 4),
    ] {
        let solve = |release: bool| {
            let team = team(2, PlacementScheme::FirstTouch);
            let mut arrays = CgArrays::assemble(&team, &generator).unwrap();
            arrays.use_spmv(variant);
            let before = pages(&team);
            if release {
                arrays.release_unused_columns(&team);
            }
            let released_pages = before - pages(&team);
            arrays.reset_x(&team);
            (arrays.conj_grad(&team).to_bits(), released_pages)
        };
        let (kept, none) = solve(false);
        let (released, pages_released) = solve(true);
        assert_eq!(none, 0);
        assert_eq!(kept, released, "{variant:?}: the same solve");
        let expected = released_bytes.div_ceil(crate::memory::PAGE_SIZE) as u64;
        assert!(
            pages_released.abs_diff(expected) <= 2,
            "{variant:?}: {pages_released} pages released, about {expected} expected"
        );
    }
}

/// The calibration keeps only the product variants whose products are
/// the scalar loads' bit for bit: a NaN or a zero of the other sign
/// leaves a variant out (QEMU 7.2's TCG AVX2 gathers gave NaN).
#[test]
fn a_variant_whose_products_differ_is_left_out() {
    let reference = [1.5, 0.0, -2.25];
    let mut variants = vec!['a', 'b', 'c', 'd'];
    let differing =
        super::solver::keep_agreeing(&mut variants, &reference, |variant| match variant {
            'b' => vec![1.5, f64::NAN, -2.25],
            'c' => vec![1.5, -0.0, -2.25],
            _ => reference.to_vec(),
        });
    assert_eq!(variants, ['a', 'd']);
    assert_eq!(differing, ['b', 'c']);
}

/// On this CPU every product variant it has computes the scalar loads'
/// products: the calibration leaves none out (the same check the tests
/// of `spmv` make row by row).
#[test]
fn on_this_cpu_every_variant_agrees_with_the_loads() {
    let team = team(2, PlacementScheme::FirstTouch);
    let generator = MatrixGenerator::new(&CgParams::of(NpbClass::S));
    let mut arrays = CgArrays::assemble(&team, &generator).unwrap();
    arrays.reset_x(&team);
    arrays.calibrate_spmv(&team);
    assert_eq!(arrays.spmv_differing(), &[] as &[super::spmv::SpmvVariant]);
}

/// Every product variant this CPU has, forced for the whole solve (its
/// unread column encoding released, as a run does), gives NPB's class S
/// zeta, and the same zeta bit for bit.
#[test]
fn every_variant_solves_class_s_to_the_same_zeta() {
    use super::spmv::SpmvVariant;
    let params = CgParams::of(NpbClass::S);
    let generator = MatrixGenerator::new(&params);
    let mut zetas = Vec::new();
    for variant in SpmvVariant::supported() {
        let team = team(2, PlacementScheme::FirstTouch);
        let mut arrays = CgArrays::assemble(&team, &generator).unwrap();
        if !variant.can_run(&arrays.matrix()) {
            continue;
        }
        arrays.use_spmv(variant);
        arrays.release_unused_columns(&team);
        arrays.reset_x(&team);
        arrays.conj_grad(&team);
        arrays.normalise(&team);
        arrays.reset_x(&team);
        let mut zeta = 0.0;
        for _ in 0..params.niter {
            arrays.conj_grad(&team);
            zeta = params.shift + 1.0 / arrays.normalise(&team);
        }
        let error = (zeta - params.zeta_reference).abs() / params.zeta_reference;
        assert!(error <= EPSILON, "{variant:?}: zeta {zeta}");
        zetas.push((variant, zeta.to_bits()));
    }
    assert!(
        zetas.windows(2).all(|pair| pair[0].1 == pair[1].1),
        "{zetas:?}"
    );
}

#[test]
fn class_s_verifies_at_1_2_and_3_threads() {
    for threads in [1, 2, 3] {
        let (kernel, verification) = run(NpbClass::S, threads, PlacementScheme::FirstTouch);
        assert!(verification.passed, "S x{threads}: {verification:?}");
        assert_eq!(verification.quantity, "zeta");
        assert_eq!(verification.reference, Some(8.5971775078648));
        assert!(kernel.residual_norm() < 1e-10, "{}", kernel.residual_norm());
    }
}

#[test]
fn class_w_verifies_at_1_2_and_3_threads() {
    for threads in [1, 2, 3] {
        let (_, verification) = run(NpbClass::W, threads, PlacementScheme::FirstTouch);
        assert!(verification.passed, "W x{threads}: {verification:?}");
    }
}

#[test]
fn class_s_verifies_under_every_placement_scheme() {
    for scheme in PlacementScheme::every_scheme(0) {
        let (_, verification) = run(NpbClass::S, 2, scheme.clone());
        assert!(verification.passed, "S under {scheme}: {verification:?}");
    }
}

#[test]
fn class_w_verifies_under_every_placement_scheme() {
    for scheme in PlacementScheme::every_scheme(0) {
        let (_, verification) = run(NpbClass::W, 3, scheme.clone());
        assert!(verification.passed, "W under {scheme}: {verification:?}");
    }
}

#[test]
fn a_wrong_zeta_fails_and_counts_are_npbs() {
    let team = team(1, PlacementScheme::FirstTouch);
    let mut kernel = CgKernel::new(NpbClass::S);
    assert_eq!(kernel.name(), "cg");
    assert_eq!(kernel.iterations(), 15);
    // 2 * 15 * 1400 * (3 + 56 + 25 * (5 + 56) + 3)
    assert_eq!(kernel.operations(), 66_654_000.0);
    assert!(kernel.memory_bytes() >= 1400 * 64 * 12);
    kernel.setup(&team).unwrap();
    kernel.iterate(&team, 0);
    assert!(
        !kernel.verify(&team).passed,
        "one iteration is not converged"
    );
    assert_eq!(
        [
            NpbClass::S,
            NpbClass::W,
            NpbClass::A,
            NpbClass::B,
            NpbClass::C
        ]
        .map(|class| CgKernel::new(class).iterations()),
        [15, 15, 15, 75, 75]
    );
}

/// Release-mode timings: `cargo test --release -p numabench cg_timings -- --ignored --nocapture`
/// (classes A and B at 1 and 2 threads, pinned compact from the first
/// allowed CPU; `CG_TIMING_CLASSES=A,W`, `CG_TIMING_THREADS=1,2,4` and
/// `CG_TIMING_CPU_OFFSET=1` choose others).
#[test]
#[ignore = "timing run, classes A and B"]
fn cg_timings() {
    let list = |name: &str, default: &str| {
        std::env::var(name)
            .unwrap_or_else(|_| default.to_string())
            .split(',')
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let offset: usize = list("CG_TIMING_CPU_OFFSET", "0")[0].parse().unwrap();
    for class in list("CG_TIMING_CLASSES", "A,B") {
        let class = NpbClass::parse(&class).unwrap();
        for threads in list("CG_TIMING_THREADS", "1,2") {
            let threads: usize = threads.parse().unwrap();
            // Compact pinning, optionally starting at another CPU (away from a busy one).
            let topology = discover_this_system().unwrap();
            let allowed = &topology.allowed.cpus;
            let cpus = (0..threads)
                .map(|worker| Some(allowed[(worker + offset) % allowed.len()]))
                .collect();
            let team = Team::new(&topology, cpus, PlacementScheme::FirstTouch).unwrap();
            let mut kernel = CgKernel::new(class);
            let setup = std::time::Instant::now();
            kernel.setup(&team).unwrap();
            let setup = setup.elapsed().as_secs_f64();
            team.start_compute().unwrap();
            let start = std::time::Instant::now();
            for iteration in 0..kernel.iterations() {
                kernel.iterate(&team, iteration);
            }
            let seconds = start.elapsed().as_secs_f64();
            team.finish_compute();
            let verification = kernel.verify(&team);
            println!(
                "CG class {class} x{threads}: nnz {} setup {setup:.3} s, timed {seconds:.3} s, {:.1} Mop/s, zeta {:.16e} (ref {:.13e}) {}",
                kernel.nonzeros().unwrap(),
                kernel.operations() / seconds / 1e6,
                verification.computed,
                verification.reference.unwrap(),
                if verification.passed { "VERIFIED" } else { "FAILED" }
            );
            assert!(verification.passed);
        }
    }
}
