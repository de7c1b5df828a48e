//! `--budget`: what a time budget cuts, in which order, and that the plan
//! and a real run name every cut; `none` runs everything; bad values are
//! refused; every command's default plan fits on every fixture.

use super::errors::assert_refused;
use super::plan::{fixture, plan_on, PLANNING};
use super::{numabench, param, params_of, succeeding, typed_stdout, with_metric};
use numabench::bench::{BudgetOutcome, PlanDocument, PlanStep};
use numabench_schema::params::findings::{BudgetCutParams, RunTimeParams};

/// The steps of `plan` of `benchmark`.
fn of<'a>(plan: &'a PlanDocument, benchmark: &str) -> Vec<&'a PlanStep> {
    plan.steps
        .iter()
        .filter(|step| step.benchmark == benchmark)
        .collect()
}

/// What the plan's budget did; a plan without one fails the test.
fn budget_of(plan: &PlanDocument) -> &BudgetOutcome {
    plan.budget.as_ref().unwrap_or_else(|| {
        panic!(
            "no budget in the plan of {} steps on {}",
            plan.steps.len(),
            plan.topology_source
        )
    })
}

/// The `what` of each of a plan's budget cuts, in order.
fn cut_names(budget: &BudgetOutcome) -> Vec<&str> {
    budget.cuts.iter().map(|cut| &*cut.what).collect()
}

/// A budget that is not a duration, or zero, is refused before anything
/// runs: status 2, one line naming the value.
#[test]
fn a_bad_budget_is_refused() {
    for value in ["0", "abc", "0s", "-5m", "10x", "inf"] {
        let output = numabench()
            .args(["characterize", &format!("--budget={value}"), "--plan"])
            .output()
            .unwrap();
        assert_refused(&output, value, &format!("'{value}'"));
    }
}

/// `--budget none` plans everything: every latency size, every thread
/// alone in turn, every per-CPU step of the sampling rule, 5 repetitions;
/// the plan says nothing was cut. The default budget (10 minutes) on the
/// same 128-CPU server cuts, in the stated order, and its plan fits.
#[test]
fn none_plans_everything_and_the_default_budget_cuts_in_order() {
    let file = fixture("two-socket-smt.xml");
    let all = plan_on(&file, &["characterize", "--budget", "none"]);
    assert_eq!(budget_of(&all).budget_seconds, None);
    assert!(budget_of(&all).cuts.is_empty(), "{:?}", all.budget);
    let contention = of(&all, "contention");
    assert_eq!(
        contention[0].measurements,
        128 + 2,
        "every thread alone, then together twice"
    );
    assert!(all
        .steps
        .iter()
        .all(|step| step.benchmark == "per-cpu" || step.repeat == 5));
    let cut = plan_on(&file, &["characterize"]);
    let budget = budget_of(&cut);
    assert_eq!(budget.budget_seconds, Some(600.0));
    assert_eq!(budget.uncut_seconds, all.estimated_seconds);
    assert!(cut.estimated_seconds <= 600.0, "{budget:?}");
    assert!(budget.fits, "{budget:?}");
    let whats = cut_names(budget);
    // Dropping latency sizes would save under 1% of the estimate, and the
    // repetitions are cut only after the CPUs: the CPU cut alone fits,
    // and what it leaves buys every per-CPU step back.
    assert_eq!(whats, ["cpus"]);
    assert_eq!(of(&cut, "latency").len(), of(&all, "latency").len());
    assert_eq!(of(&cut, "per-cpu").len(), of(&all, "per-cpu").len());
    assert!(budget.cuts[0]
        .text
        .contains("then per-cpu measures 256 of its 256 CPU steps"));
    assert!(contention[0].measurements > of(&cut, "contention")[0].measurements);
    // The together run still uses every thread.
    assert_eq!(of(&cut, "contention")[0].cpus.len(), 128);
    // The table says the same before its total.
    let text = succeeding(&["--topology", &file, "characterize", "--plan"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("Budget: 10:00 (--budget)"), "{text}");
    for what in whats {
        assert!(text.contains(&format!("budget cut ({what}): ")), "{text}");
    }
    assert!(text
        .lines()
        .last()
        .unwrap()
        .starts_with("Estimated total: "));
}

/// A real run under a budget it exceeds: stderr names the cut before the
/// run and the estimate against the elapsed time after it; the summary
/// records carry the cut (`budget_cut`, what it removed and why).
#[test]
fn a_run_names_its_cuts_in_the_summary() {
    let output = succeeding(&[
        "characterize",
        "--only",
        "latency",
        "--budget",
        "1s",
        "--repeat",
        "3",
        "--json",
    ]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("characterize: budget cut (sizes): latency measured at 3 of"),
        "{stderr}"
    );
    assert!(stderr.contains(", took "), "{stderr}");
    let (_, records) = typed_stdout("characterize --budget 1s", &output.stdout);
    let summary = |metric: &str| {
        records
            .iter()
            .find(|record| record.benchmark == "summary" && record.metric == metric)
            .unwrap_or_else(|| panic!("no {metric} summary record"))
    };
    let cut = summary("budget_cut");
    let cut_params: BudgetCutParams = params_of(cut);
    assert_eq!(cut_params.cut.as_deref(), Some("sizes"));
    assert_eq!(cut_params.budget_seconds, Some(1.0));
    assert!(param(cut, "sentence")
        .as_str()
        .unwrap()
        .contains("not measured: "));
    let latencies = with_metric(&records, "latency")
        .iter()
        .filter(|record| record.benchmark == "latency")
        .count();
    assert_eq!(latencies, 3, "three sizes measured");
    // The run's record of its estimate against its elapsed time.
    let run_time = summary("run_time");
    let run_time_params: RunTimeParams = params_of(run_time);
    let elapsed = run_time_params.elapsed_seconds.unwrap();
    assert!(elapsed > 0.0 && run_time.value == elapsed);
    assert!(run_time_params.estimated_seconds.unwrap() > 0.0);
    // Estimated with this machine's rates, calibrated before the run.
    let rates = run_time_params
        .estimate_rates
        .expect("the estimate's rates");
    assert_eq!(rates.source, "calibrated", "{rates:?}");
    // Within the calibration's bounds: 10 MB/s (an emulated guest is
    // below 100 MB/s, and so is a debug build's setup) to 100 GB/s.
    for (rate, value) in [
        ("thread_bytes_per_second", rates.thread_bytes_per_second),
        ("setup_bytes_per_second", rates.setup_bytes_per_second),
    ] {
        assert!((1e7..=1e11).contains(&value), "{rate}: {rates:?}");
    }
}

/// Every fixture of the folder (make-fixtures.sh, make-xml.sh write them).
fn every_fixture() -> Vec<String> {
    let folder = fixture("");
    let mut files: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "xml"))
        .map(|path| path.display().to_string())
        .collect();
    files.sort();
    assert!(files.len() >= 11, "{files:?}");
    files
}

/// A command that asks for every CPU (`--each-cpu`, `--per-cpu`): its
/// CPUs are the request, never sampled by a budget.
fn asks_for_every_cpu(command: &[&str]) -> bool {
    command.contains(&"--each-cpu") || command.contains(&"--per-cpu")
}

/// On every fixture (a 24-node 384-CPU SGI UV, a 400 GB memory-mode server
/// among them) every measuring command's default plan fits the default
/// budget of 10 minutes (characterize: `every_fixture_fits_the_default_budget`
/// in the library). A command that asks for every CPU keeps every CPU and
/// says when it is over.
#[test]
fn every_default_fits_its_budget_on_every_fixture() {
    for file in every_fixture() {
        let name = file.rsplit('/').next().unwrap();
        for command in PLANNING.iter().filter(|c| c[0] != "characterize") {
            let plan = plan_on(&file, command);
            let budget = budget_of(&plan);
            assert_eq!(budget.budget_seconds, Some(600.0), "{name} {command:?}");
            let estimated = plan.estimated_seconds;
            let said = budget.estimated_seconds;
            assert!(
                (said - estimated).abs() <= 1e-9 * estimated.max(1.0),
                "{name} {command:?}: {said} against {estimated}"
            );
            if asks_for_every_cpu(command) {
                assert_eq!(budget.fits, estimated <= 600.0, "{name} {command:?}");
                continue;
            }
            assert!(budget.fits, "{name} {command:?}: {budget:?}");
            assert!(estimated <= 600.0, "{name} {command:?}: {estimated}");
        }
    }
}

/// contention: `--budget none` measures every thread alone in turn; the
/// default budget on a 256-CPU server samples them (the together runs
/// stay), cutting only as far as the budget needs.
#[test]
fn contention_samples_its_threads_alone_only_as_far_as_needed() {
    let file = fixture("amd-nps4.xml");
    let all = plan_on(&file, &["contention", "--budget", "none"]);
    assert_eq!(all.steps[0].measurements, 256 + 2, "{all:?}");
    assert!(budget_of(&all).cuts.is_empty(), "{:?}", all.budget);
    let cut = plan_on(&file, &["contention"]);
    let budget = budget_of(&cut);
    assert_eq!(budget.cuts[0].what, "cpus", "{budget:?}");
    let measured = cut.steps[0].measurements;
    assert!(measured < 256 + 2 && measured > 8 + 2, "{measured}");
    let estimated = cut.estimated_seconds;
    // Within the budget, and not far under it: a halving would leave
    // minutes unused.
    assert!(estimated <= 600.0 && estimated > 540.0, "{estimated}");
    // One thread more alone would be over.
    let per_thread = (all.estimated_seconds - estimated) / (256 + 2 - measured) as f64;
    assert!(estimated + per_thread > 600.0 - per_thread, "{per_thread}");
}

/// placement-study on a 400 GB memory-mode server: the default budget
/// keeps every configuration, cuts the runs to the study's floor of 5,
/// then caps STREAM's arrays, and says those figures are partly the
/// memory-side caches'; `--budget none` plans the full study.
#[test]
fn placement_study_keeps_its_grid_and_says_what_a_cap_measures() {
    let file = fixture("memory-mode-400g.xml");
    let all = plan_on(&file, &["placement-study", "stream", "--budget", "none"]);
    let cut = plan_on(&file, &["placement-study", "stream"]);
    assert_eq!(all.steps.len(), cut.steps.len(), "every configuration");
    for (full, fitted) in all.steps.iter().zip(&cut.steps) {
        assert_eq!(full.label, fitted.label);
        assert_eq!(full.repeat, 10);
        assert_eq!(fitted.repeat, 5);
        assert!(fitted.size_bytes < full.size_bytes);
    }
    let budget = budget_of(&cut);
    let whats = cut_names(budget);
    assert_eq!(whats, ["repetitions", "working-sets"], "{budget:?}");
    let text = &budget.cuts[1].text;
    assert!(text.contains("partly those caches'"), "{text}");
    assert!(cut.estimated_seconds <= 600.0);
    // A study asked for fewer runs than its floor keeps them.
    let few = plan_on(&file, &["placement-study", "stream", "--repeat", "2"]);
    assert!(few.steps.iter().all(|step| step.repeat == 2));
}

/// Every command with a budget refuses a bad one before anything runs.
#[test]
fn every_budget_refuses_a_bad_value() {
    for command in [
        &["contention"][..],
        &["stream"],
        &["mg"],
        &["placement-study", "cg"],
        &["latency", "--each-cpu"],
    ] {
        let output = numabench()
            .args(command)
            .args(["--budget=0s", "--plan"])
            .output()
            .unwrap();
        assert_refused(&output, "0s", "'0s'");
    }
}

/// A real stream run under a budget it exceeds: the cuts are on stderr
/// before it runs, and it runs as cut (3 runs).
#[test]
fn a_stream_run_says_its_cuts_and_runs_as_cut() {
    let output = succeeding(&["stream", "--budget", "1s", "--repeat", "4", "--json"]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr
            .contains("numabench: budget cut (repetitions): 3 runs per configuration instead of 4"),
        "{stderr}"
    );
    let (_, records) = typed_stdout("stream --budget 1s", &output.stdout);
    let times = records
        .iter()
        .find(|record| record.benchmark == "stream")
        .expect("a stream record");
    assert_eq!(times.stats.n, 3, "{times:?}");
}

/// `matrix latency` on hwloc's 24-node SGI UV shape: over the default
/// budget its cells are measured by symmetry class (as characterize's),
/// the plan naming the cells it infers; `--full-matrix` keeps every cell
/// and says it is over.
#[test]
fn a_matrix_over_its_budget_is_measured_by_class_unless_full() {
    let file = fixture("sgi-uv2000-24n.xml");
    let sampled = plan_on(&file, &["matrix", "latency"]);
    let budget = budget_of(&sampled);
    assert_eq!(cut_names(budget), ["matrix-classes"], "{budget:?}");
    assert!(budget.fits, "{budget:?}");
    assert!(budget.blind_spots[0].contains("a slow node pair is found only among the"));
    let rule = sampled.steps[0]
        .sample_rule
        .as_deref()
        .expect("a sample_rule");
    assert!(rule.contains("seed 1"), "{rule}");
    let full = plan_on(&file, &["matrix", "latency", "--full-matrix"]);
    assert_eq!(full.steps[0].measurements, 576);
    assert!(!budget_of(&full).fits, "{:?}", full.budget);
}
