//! `numabench check`: its plan on every fixture fits the default budget, a
//! baseline written here is read back and checked against, `--json`
//! validates against the schema, a node that differs from its baseline's
//! fingerprint gets one `ERROR numabench:` line per difference and exit 1,
//! and bad baselines and flags get one line and exit 2.

use super::plan::read_plan;
use super::{numabench, refusal, succeeded, typed_stdout};
use numabench::check::CheckPlanEntry;
use numabench_schema::params::CheckItemParams;
use numabench_schema::{PlacementStatus, Record};
use serde_json::Value;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// Held by each test that measures: a node runs one check at a time (the
/// second gets exit 2), and measurements side by side would disturb each
/// other.
static ONE_CHECK: Mutex<()> = Mutex::new(());

fn one_check() -> MutexGuard<'static, ()> {
    ONE_CHECK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Every fixture's default plan, estimated within the 30 s default.
#[test]
fn the_default_plan_fits_30_seconds_on_every_fixture() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../numabench/tests/fixtures");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "xml") {
            continue;
        }
        let output = succeeded(numabench().args([
            "--topology",
            path.to_str().unwrap(),
            "check",
            "--plan",
            "--json",
        ]));
        let plans: Vec<CheckPlanEntry> = read_plan(&path.display().to_string(), &output.stdout);
        let plan = &plans[0].plan;
        let seconds = plan.estimated_seconds;
        assert!(seconds <= 30.0, "{}: {seconds} s", path.display());
        assert!(!plan.items.is_empty());
        seen += 1;
    }
    assert!(seen >= 10);
}

/// `numabench check --baseline PATH EXTRA...`, run to the end.
fn check(path: &Path, extra: &[&str]) -> std::process::Output {
    numabench()
        .args(["check", "--baseline", path.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap()
}

/// Writes a quick baseline of this node into `dir` with `tolerance`.
fn baseline(dir: &Path, tolerance: &str) -> std::path::PathBuf {
    let path = dir.join("baseline.json");
    let output = succeeded(
        numabench()
            .args(["check", "--write-baseline", path.to_str().unwrap()])
            .args(["--size", "16M", "--runs", "2", "--tolerance", tolerance]),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("node0.read_bandwidth"), "{stdout}");
    path
}

/// Healthy against its own baseline (tolerances wide enough for any
/// neighbour's load): nothing printed, exit 0; `--json` is a results
/// document that matches the schema, one record per metric with its
/// reference and verdict, and one for the node type.
#[test]
fn a_check_against_this_nodes_baseline_is_silent_and_its_json_validates() {
    let _one = one_check();
    let dir = tempfile::tempdir().unwrap();
    let path = baseline(dir.path(), "bandwidth=95%,latency=2000%");
    let output = check(&path, &[]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
    let jsonl = dir.path().join("check.jsonl");
    let output = check(&path, &["--json", "--jsonl", jsonl.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    // Checked against the schema, then read typed.
    let (_, records) = typed_stdout("check --json", &output.stdout);
    let metrics: Vec<(&Record, CheckItemParams)> = records
        .iter()
        .filter_map(|record| {
            let params = record.params_as::<CheckItemParams>().ok()?;
            params.key.is_some().then_some((record, params))
        })
        .collect();
    assert!(metrics.len() >= 3, "{records:?}");
    for (record, params) in &metrics {
        assert_eq!(record.benchmark, "check");
        let outcome = params
            .outcome
            .as_ref()
            .unwrap_or_else(|| panic!("no outcome: {record:?}"));
        assert_eq!(outcome.verdict, "ok", "{record:?}");
        assert!(outcome.reference.expect("a reference") > 0.0, "{record:?}");
        assert_eq!(
            record.placement.status(),
            Some(PlacementStatus::Verified),
            "{record:?}"
        );
    }
    assert!(records
        .iter()
        .any(|record| record.metric == "node_type_differences" && record.value == 0.0));
    // The report tables every record in its "Node health check" section.
    let html = dir.path().join("report.html");
    let report = succeeded(
        numabench()
            .args(["report", jsonl.to_str().unwrap(), "-o"])
            .arg(&html),
    );
    let said = String::from_utf8_lossy(&report.stdout);
    assert!(said.contains(", 0 under Other records"), "{said}");
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("Node health check"));
    let output = check(&path, &["--format", "npd"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 1);
}

/// A node whose memory per node or settings differ from its baseline's
/// fingerprint: one NHC line per difference, exit 1; npd: one line, 1.
#[test]
fn a_node_that_differs_from_its_baseline_gets_one_error_line_each() {
    let _one = one_check();
    let dir = tempfile::tempdir().unwrap();
    let path = baseline(dir.path(), "bandwidth=95%,latency=2000%");
    let mut document: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let fingerprint = &mut document["entries"][0]["fingerprint"];
    let memory = fingerprint["memory_per_node_bytes"]["node0"]
        .as_u64()
        .unwrap();
    fingerprint["memory_per_node_bytes"]["node0"] = (memory / 11 * 12).into();
    fingerprint["settings"]["smt"] = "ok: a setting it never had".into();
    std::fs::write(&path, document.to_string()).unwrap();
    let output = check(&path, &[]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines
            .iter()
            .all(|line| line.starts_with("ERROR numabench: ")),
        "{stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("ERROR numabench: node 0 memory: ")),
        "{stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("ERROR numabench: setting smt: ")),
        "{stdout}"
    );
    let output = check(&path, &["--format", "npd"]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.starts_with("numabench: node 0 memory"), "{stdout}");
}

/// Missing, malformed and other-type baselines, and bad flags: one line
/// naming what is wrong, exit 2, nothing on stdout (npd: the reason there).
#[test]
fn bad_baselines_and_flags_get_one_line_and_status_2() {
    let _one = one_check();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let output = check(&missing, &[]);
    assert!(refusal(&output).contains("missing.json"));
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{\"format\": \"something else\"}").unwrap();
    let output = check(&garbage, &[]);
    assert!(refusal(&output).contains("not a numabench baseline"));
    let path = baseline(dir.path(), "bandwidth=95%,latency=2000%");
    let mut document: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    document["entries"][0]["fingerprint"]["cpu_model"] = "Some Other CPU".into();
    std::fs::write(&path, document.to_string()).unwrap();
    let output = check(&path, &[]);
    let line = refusal(&output);
    assert!(line.contains("no baseline for this node type"), "{line}");
    assert!(line.contains("Some Other CPU"), "{line}");
    assert!(output.stdout.is_empty());
    let output = check(&path, &["--format", "npd"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stdout).contains("no baseline for this node type"));
    for (flags, named) in [
        (&["--tolerance", "bandwidth=abc"][..], "bandwidth=abc"),
        (&["--tolerance", "bandwidth=100%"], "bandwidth=100%"),
        (&["--tolerance", "speed=5%"], "speed=5%"),
        (&["--budget", "90s"], "90s"),
        (&["--budget", "soon"], "soon"),
    ] {
        let output = numabench()
            .args([
                "check",
                "--write-baseline",
                dir.path().join("b.json").to_str().unwrap(),
            ])
            .args(flags)
            .output()
            .unwrap();
        assert!(refusal(&output).contains(named), "{flags:?}");
    }
    let output = numabench().args(["check"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// Two checks started together: one measures (exit 0), the other finds
/// the node's lock held and says so in one line (exit 2).
#[test]
fn a_second_check_at_once_is_refused() {
    let _one = one_check();
    let dir = tempfile::tempdir().unwrap();
    let path = baseline(dir.path(), "bandwidth=95%,latency=2000%");
    let start = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_numabench"))
            .args(["check", "--baseline", path.to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (start(), start());
    let outputs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let mut codes: Vec<Option<i32>> = outputs.iter().map(|o| o.status.code()).collect();
    codes.sort();
    assert_eq!(codes, [Some(0), Some(2)], "{outputs:?}");
    let refused = outputs.iter().find(|o| o.status.code() == Some(2)).unwrap();
    assert!(refusal(refused).contains("another numabench check is running"));
}
