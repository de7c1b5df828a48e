//! The time budget on the fixtures' machine shapes (loaded as other
//! machines: nothing is measured): what each cut removes, that the cuts
//! come in their stated order, and that an unlimited budget keeps all.

use super::*;
use crate::bench::cell_classes::default_draws;
use crate::bench::{calibration_estimate_seconds, characterize_plan, registry, select};
use crate::topology::fixture_tests::load;

/// Every fixture of `tests/fixtures` (see make-fixtures.sh).
const FIXTURES: [&str; 11] = [
    "amd-nps4",
    "cxl-hmat",
    "four-socket-ladder",
    "hybrid-laptop",
    "intel-snc2-hbm",
    "knl-snc4-cache",
    "memory-mode-400g",
    "sgi-uv2000-24n",
    "two-socket-smt",
    "two-sockets-hbm-cxl",
    "twenty-four-nodes",
];

fn planned(name: &str, budget: Budget) -> (Context, Vec<Step>, BudgetOutcome) {
    let mut context = Context::new(load(name));
    let mut steps = characterize_plan(&context, &select(&[], &[]).unwrap());
    let outcome = fit_budget(&mut context, &mut steps, budget, MatrixCut::Seeded(1));
    (context, steps, outcome)
}

/// `--budget none` changes nothing: every step, every repetition, every
/// CPU alone, the estimate of the uncut plan.
#[test]
fn an_unlimited_budget_cuts_nothing() {
    for name in FIXTURES {
        let context = Context::new(load(name));
        let all = characterize_plan(&context, &select(&[], &[]).unwrap());
        let (after, steps, outcome) = planned(name, Budget::Unlimited);
        assert!(outcome.cuts.is_empty() && outcome.fits, "{name}");
        assert_eq!(after.repeat, context.repeat);
        assert_eq!(plan_of(&after, &steps), plan_of(&context, &all), "{name}");
    }
}

/// Cuts are made in the stated order (sizes, matrix classes, CPUs,
/// repetitions, working sets), each
/// only while the estimate is over the budget, each lowering it; the
/// outcome's estimate is the cut plan's, and a plan that fits is not cut.
#[test]
fn cuts_come_in_order_and_each_lowers_the_estimate() {
    let order = [
        "sizes",
        "matrix-classes",
        "cpus",
        "repetitions",
        "working-sets",
    ];
    for name in FIXTURES {
        let (context, steps, outcome) = planned(name, Budget::Seconds(DEFAULT_BUDGET_SECONDS));
        let positions: Vec<usize> = outcome
            .cuts
            .iter()
            .map(|cut| order.iter().position(|&what| what == cut.what).unwrap())
            .collect();
        assert!(
            positions.windows(2).all(|pair| pair[0] < pair[1]),
            "{name}: {positions:?}"
        );
        for cut in &outcome.cuts {
            assert!(
                cut.before_seconds > DEFAULT_BUDGET_SECONDS,
                "{name}: {cut:?}"
            );
            assert!(cut.after_seconds < cut.before_seconds, "{name}: {cut:?}");
        }
        let estimate = total_seconds(&plan_of(&context, &steps));
        assert!(
            (estimate - outcome.estimated_seconds).abs() < 1e-6,
            "{name}"
        );
        if outcome.uncut_seconds <= DEFAULT_BUDGET_SECONDS {
            assert!(outcome.cuts.is_empty(), "{name}");
        }
        assert!(context.repeat >= REPEAT_FLOOR, "{name}");
        assert_eq!(
            outcome.sentences().len(),
            outcome.cuts.len()
                + usize::from(outcome.leftover.is_some())
                + outcome.blind_spots.len()
                + usize::from(!outcome.fits)
        );
    }
}

/// A tight budget on the 2-socket SMT server cuts in turn, leaving alone
/// what would save under 1% (its latency sizes: a cut used to drop its
/// L2 and L3 sizes for 0.03-0.3% of the plan): contention's threads alone to one per node and the per-CPU steps to
/// two per node, the last still emitting the ratios, then repetitions to
/// the floor; a cut names what it removed.
#[test]
fn a_tight_budget_cuts_down_to_each_floor() {
    let context = Context::new(load("two-socket-smt"));
    let all = characterize_plan(&context, &select(&[], &[]).unwrap());
    let (after, steps, outcome) = planned("two-socket-smt", Budget::Seconds(1.0));
    assert!(!outcome.fits);
    let whats: Vec<&str> = outcome.cuts.iter().map(|cut| &*cut.what).collect();
    // Its 2x2 matrix has a class per cell: nothing to sample.
    // Dropping latency sizes would save under 1% of the estimate: not made.
    assert_eq!(whats, ["cpus", "repetitions"]);
    let sweep = |steps: &[Step]| -> Vec<u64> {
        latency_sweep(steps)
            .into_iter()
            .map(|index| steps[index].work::<LatencyConfig>().unwrap().sizes[0])
            .collect()
    };
    assert_eq!(sweep(&all), sweep(&steps));
    assert_eq!(after.repeat, REPEAT_FLOOR);
    let nodes = |cpus: &[u32]| {
        let mut nodes: Vec<u32> = cpus
            .iter()
            .filter_map(|&c| after.topology.node_of_cpu(c))
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    };
    for step in &steps {
        if let Some(ContentionWork { cpus, alone, .. }) = step.work::<ContentionWork>() {
            assert_eq!(alone.len(), nodes(cpus).len().max(2));
            assert_eq!(nodes(alone), nodes(cpus), "one per node");
            assert!(alone.iter().all(|cpu| cpus.contains(cpu)));
        }
    }
    let groups = per_cpu_groups(&steps);
    assert_eq!(groups.len(), 2, "latency, then read bandwidth");
    for group in groups {
        let ones: Vec<&OneCpu> = steps[group]
            .iter()
            .map(|step| step.work::<OneCpu>().unwrap())
            .collect();
        let cpus: Vec<u32> = ones.iter().map(|one| one.cpu).collect();
        assert_eq!(cpus.len(), 2 * nodes(&cpus).len(), "two per node");
        assert_eq!(nodes(&cpus).len(), 2);
        assert_eq!(ones.iter().filter(|one| one.last).count(), 1);
        assert!(ones.last().unwrap().last);
        assert!(ones[0].labels["sample_rule"]
            .as_str()
            .unwrap()
            .contains("time budget"));
    }
    assert!(outcome
        .sentences()
        .last()
        .unwrap()
        .starts_with("over budget"));
}

/// Each registry entry alone on the smallest fixture fits by far: no cut.
#[test]
fn a_plan_within_the_budget_is_not_cut() {
    for info in registry() {
        let mut context = Context::new(load("hybrid-laptop"));
        let mut steps = characterize_plan(&context, &[info]);
        let before = plan_of(&context, &steps);
        let outcome = fit_budget(
            &mut context,
            &mut steps,
            Budget::Seconds(DEFAULT_BUDGET_SECONDS),
            MatrixCut::Seeded(1),
        );
        assert!(outcome.cuts.is_empty(), "{}", info.name);
        assert_eq!(plan_of(&context, &steps), before);
    }
}

/// The default budget (10 minutes) fits every fixture's characterize
/// plan; the matrices' classes are cut only where the earlier cuts were
/// not enough, and a sampled matrix measures fewer cells than it has.
#[test]
fn every_fixture_fits_the_default_budget() {
    for name in FIXTURES {
        let (context, steps, outcome) = planned(name, Budget::Seconds(DEFAULT_BUDGET_SECONDS));
        assert!(outcome.fits, "{name}: {:?}", outcome.sentences());
        assert!(
            outcome.estimated_seconds <= DEFAULT_BUDGET_SECONDS,
            "{name}"
        );
        for step in &steps {
            if let Some(sample) = step.work::<MatrixWork>().and_then(|w| w.sample.as_ref()) {
                let plan = step.plan(&context);
                let cells = crate::topology::cpu_nodes(&context.topology).len()
                    * crate::topology::memory_nodes(&context.topology).len();
                assert_eq!(plan.measurements, sample.cells().len(), "{name}");
                assert!(plan.measurements < cells, "{name}");
                assert!(plan
                    .sample_rule
                    .as_deref()
                    .unwrap()
                    .contains("by symmetry class"));
            }
        }
    }
}

/// `--full-matrix` (the matrix cut forbidden) and `--budget none` plan
/// every cell of every matrix on every fixture, however far over budget.
#[test]
fn full_matrix_and_no_budget_plan_every_cell() {
    for name in FIXTURES {
        for (budget, matrix) in [
            (Budget::Seconds(1.0), MatrixCut::Never),
            (Budget::Unlimited, MatrixCut::Seeded(1)),
        ] {
            let mut context = Context::new(load(name));
            let mut steps = characterize_plan(&context, &select(&[], &[]).unwrap());
            let outcome = fit_budget(&mut context, &mut steps, budget, matrix);
            assert!(
                outcome.cuts.iter().all(|cut| cut.what != "matrix-classes"),
                "{name}"
            );
            let cells = crate::topology::cpu_nodes(&context.topology).len()
                * crate::topology::memory_nodes(&context.topology).len();
            for step in &steps {
                if let Some(MatrixWork { sample, .. }) = step.work::<MatrixWork>() {
                    assert!(sample.is_none(), "{name}");
                    assert_eq!(step.plan(&context).measurements, cells, "{name}");
                }
            }
        }
    }
}

/// The 24-node machine (4 packages x 6 nodes, SLIT 10/12/32/42) has 4
/// classes of cells: its 576-cell matrices measure every node's own cell
/// (24), about sqrt(n) members of each other class, and more with what
/// the cuts leave of the budget, which is spent (the plan used to end at
/// 347 s of 600 with 12 cells per matrix); the rest of it pays for
/// classes whose members disagree.
#[test]
fn twenty_four_nodes_fit_by_class() {
    let (_, steps, outcome) = planned("twenty-four-nodes", Budget::Seconds(DEFAULT_BUDGET_SECONDS));
    assert!(outcome.fits);
    assert!(outcome.cuts.iter().any(|cut| cut.what == "matrix-classes"));
    assert!(outcome.leftover.is_some());
    let mut allowance = 0;
    for step in &steps {
        if let Some(MatrixWork { sample, .. }) = step.work::<MatrixWork>() {
            let sample = sample.as_ref().expect("sampled");
            assert_eq!(sample.classes.len(), 4);
            let draws = sample.classes.iter().map(default_draws).sum::<usize>();
            assert!(
                sample.cells().len() >= 4 + draws,
                "{}",
                sample.cells().len()
            );
            assert!(sample.cells().len() >= 24 + 3 * 12);
            allowance += sample.allowance;
        }
    }
    assert!(allowance > 0);
    // Whatever allowance the disagreeing classes use, the run stays
    // within the budget by the estimate: the draws took half the rest.
    assert!(outcome.estimated_seconds > 0.75 * DEFAULT_BUDGET_SECONDS);
}

/// With 96 GiB of memory-side cache in front of each node, every DRAM
/// working set (4x the caches in front) is 192 GiB and costs minutes to
/// build and pass over: the earlier cuts leave the plan hours over, and
/// only capped working sets fit it. The cut says what it capped and that
/// the capped figures are the memory-side cache's; the plan marks them
/// cache-affected; no size falls below 4x the CPU caches.
#[test]
fn a_huge_memory_side_cache_fits_by_capped_working_sets_and_says_so() {
    let (context, steps, outcome) =
        planned("memory-mode-400g", Budget::Seconds(DEFAULT_BUDGET_SECONDS));
    assert!(outcome.fits, "{:?}", outcome.sentences());
    let cut = outcome.cuts.last().unwrap();
    assert_eq!(cut.what, "working-sets");
    assert!(
        cut.before_seconds > 10.0 * DEFAULT_BUDGET_SECONDS,
        "{cut:?}"
    );
    assert!(cut.text.contains("were up to 192 GiB"), "{}", cut.text);
    assert!(cut.text.contains("memory-side cache's"), "{}", cut.text);
    let topology = &context.topology;
    let cpu_caches = topology.cpu_cache_bytes(&topology.allowed.cpus);
    let mut capped = 0;
    for step in &steps {
        let plan = step.plan(&context);
        if plan.size_bytes > 1 << 30 {
            capped += 1;
            assert!(
                plan.size_bytes <= 4 << 30,
                "{}: {}",
                step.label,
                plan.size_bytes
            );
            assert!(plan.size_bytes >= 4 * cpu_caches, "{}", step.label);
            assert!(plan.cache_affected, "{}", step.label);
        }
    }
    assert!(capped >= 5, "{capped} steps at the cap");
    // Unlimited, the same machine plans its full working sets.
    let (context, steps, _) = planned("memory-mode-400g", Budget::Unlimited);
    assert!(steps
        .iter()
        .any(|step| step.plan(&context).size_bytes == 192 << 30));
}

/// A budget nothing fits on a machine whose scaling curve is too short to
/// cut (this one: a node of 2 CPUs, or 1) ends its cuts: the scaling
/// stride is never doubled without measuring fewer counts (it doubled until
/// it overflowed: a panic in a debug build, a hang in a release one; seen
/// in the four-node VM, nodes of 2 CPUs, under `--budget 4m`).
#[test]
fn a_budget_nothing_fits_ends_on_a_short_scaling_curve() {
    let mut context = Context::new(crate::topology::discover_this_system().unwrap());
    let mut steps = characterize_plan(&context, &select(&[], &[]).unwrap());
    let outcome = fit_budget(
        &mut context,
        &mut steps,
        Budget::Seconds(0.001),
        MatrixCut::Seeded(1),
    );
    assert!(!outcome.fits);
    for step in &steps {
        if let Some(ScalingWork { stride, .. }) = step.work::<ScalingWork>() {
            assert!(
                *stride <= context.topology.allowed.cpus.len().max(1),
                "{stride}"
            );
        }
    }
}

/// A matrix whose classes all have one cell (the ladder's asymmetric SLIT,
/// a 2-socket machine's 4 cells) cannot be sampled: the cut leaves it
/// whole and says nothing, instead of "16 of 16 cells measured ..., the
/// rest inferred".
#[test]
fn a_matrix_of_single_cell_classes_is_not_cut() {
    for name in ["four-socket-ladder", "two-socket-smt", "cxl-hmat"] {
        let (_, steps, outcome) = planned(name, Budget::Seconds(1.0));
        assert!(
            outcome.cuts.iter().all(|cut| cut.what != "matrix-classes"),
            "{name}: {:?}",
            outcome.sentences()
        );
        for step in &steps {
            if let Some(MatrixWork { sample, .. }) = step.work::<MatrixWork>() {
                assert!(sample.is_none(), "{name}");
            }
        }
    }
}

/// A matrix's remote cells are costed slower than its local ones (before
/// issue #34 item 11 every cell was costed at the local rates the
/// calibration measures): on the 24-node fixture a full latency matrix is
/// estimated above 576 local cells, and a matrix of local cells only (a
/// one-node machine) exactly at them.
#[test]
fn remote_cells_cost_more_than_local_ones() {
    use crate::bench::estimate::{estimate, Cost};
    for (name, remote) in [("twenty-four-nodes", true), ("hybrid-laptop", false)] {
        let context = Context::new(load(name));
        let size = 256 << 20;
        let step = Step::latency_matrix(size);
        let plan = step.plan(&context);
        let cells = plan.measurements;
        let local = estimate(
            Cost::Chase {
                bytes: size,
                count: cells,
            },
            context.repeat,
            &context.cost_model,
        );
        if remote {
            assert!(plan.estimated_seconds > 1.2 * local, "{name}: {plan:?}");
        } else {
            assert!(
                (plan.estimated_seconds - local).abs() < 1e-9 * local,
                "{name}"
            );
        }
    }
}

/// The calibration of the estimate's rates counts against the budget: the
/// plan estimates it, and the steps are fitted into what is left.
#[test]
fn the_calibration_counts_against_the_budget() {
    for name in FIXTURES {
        let mut context = Context::new(load(name));
        let calibration = calibration_estimate_seconds(&context);
        assert!(
            calibration > 0.0 && calibration < 60.0,
            "{name}: {calibration}"
        );
        let mut steps = characterize_plan(&context, &select(&[], &[]).unwrap());
        let budget = Budget::Seconds(DEFAULT_BUDGET_SECONDS);
        let outcome = fit_budget(
            &mut context,
            &mut steps,
            budget.less(calibration),
            MatrixCut::Seeded(1),
        );
        assert!(
            !outcome.fits || outcome.estimated_seconds + calibration <= DEFAULT_BUDGET_SECONDS,
            "{name}: {outcome:?}"
        );
    }
    assert_eq!(Budget::Seconds(10.0).less(4.0), Budget::Seconds(6.0));
    assert_eq!(Budget::Seconds(10.0).less(40.0), Budget::Seconds(1.0));
    assert_eq!(Budget::Unlimited.less(4.0), Budget::Unlimited);
}
