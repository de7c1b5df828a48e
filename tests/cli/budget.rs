//! `characterize --budget`: what a time budget cuts, in which order, and
//! that the plan and a real run's summary name every cut; `none` runs
//! everything; bad values are refused.

use super::errors::assert_refused;
use super::plan::{fixture, numbers, plan_on, steps};
use super::{numabench, succeeding};
use serde_json::Value;

/// The steps of `plan` of `benchmark`.
fn of<'a>(plan: &'a Value, benchmark: &str) -> Vec<&'a Value> {
    steps(plan)
        .iter()
        .filter(|step| step["benchmark"] == benchmark)
        .collect()
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
    assert_eq!(all["budget"]["budget_seconds"], Value::Null);
    assert_eq!(all["budget"]["cuts"], serde_json::json!([]));
    let contention = of(&all, "contention");
    assert_eq!(
        contention[0]["measurements"],
        128 + 2,
        "every thread alone, then together twice"
    );
    assert!(steps(&all)
        .iter()
        .all(|step| step["benchmark"] == "per-cpu" || step["repeat"] == 5));
    let cut = plan_on(&file, &["characterize"]);
    let budget = &cut["budget"];
    assert_eq!(budget["budget_seconds"], 600.0);
    assert_eq!(budget["uncut_seconds"], all["estimated_seconds"]);
    assert!(
        cut["estimated_seconds"].as_f64().unwrap() <= 600.0,
        "{budget}"
    );
    assert_eq!(budget["fits"], true);
    let whats: Vec<&str> = budget["cuts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cut| cut["what"].as_str().unwrap())
        .collect();
    // Dropping latency sizes would save under 1% of the estimate, and the
    // repetitions are cut only after the CPUs: the CPU cut alone fits,
    // and what it leaves buys every per-CPU step back.
    assert_eq!(whats, ["cpus"]);
    assert_eq!(of(&cut, "latency").len(), of(&all, "latency").len());
    assert_eq!(of(&cut, "per-cpu").len(), of(&all, "per-cpu").len());
    assert!(budget["cuts"][0]["text"]
        .as_str()
        .unwrap()
        .contains("then per-cpu measures 256 of its 256 CPU steps"));
    assert!(
        contention[0]["measurements"].as_u64() > of(&cut, "contention")[0]["measurements"].as_u64()
    );
    // The together run still uses every thread.
    assert_eq!(numbers(&of(&cut, "contention")[0]["cpus"]).len(), 128);
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
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let records = document["records"].as_array().unwrap();
    let cut = records
        .iter()
        .find(|record| record["benchmark"] == "summary" && record["metric"] == "budget_cut")
        .expect("a budget_cut summary record");
    assert_eq!(cut["params"]["cut"], "sizes");
    assert_eq!(cut["params"]["budget_seconds"], 1.0);
    assert!(cut["params"]["sentence"]
        .as_str()
        .unwrap()
        .contains("not measured: "));
    let latencies = records
        .iter()
        .filter(|record| record["benchmark"] == "latency" && record["metric"] == "latency")
        .count();
    assert_eq!(latencies, 3, "three sizes measured");
    // The run's record of its estimate against its elapsed time.
    let run_time = records
        .iter()
        .find(|record| record["benchmark"] == "summary" && record["metric"] == "run_time")
        .expect("a run_time summary record");
    let elapsed = run_time["params"]["elapsed_seconds"].as_f64().unwrap();
    assert!(elapsed > 0.0 && run_time["value"] == elapsed);
    assert!(run_time["params"]["estimated_seconds"].as_f64().unwrap() > 0.0);
    // Estimated with this machine's rates, calibrated before the run.
    let rates = &run_time["params"]["estimate_rates"];
    assert_eq!(rates["source"], "calibrated", "{rates}");
    for rate in ["thread_bytes_per_second", "setup_bytes_per_second"] {
        let value = rates[rate].as_f64().unwrap();
        assert!((1e8..=1e11).contains(&value), "{rate}: {rates}");
    }
}
