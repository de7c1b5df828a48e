//! `numabench compare` on result sets made here by real runs.

use super::{numabench, succeeding};
use std::path::Path;

/// `latency` at the given sizes, written to `path` as JSON Lines.
fn latency_set(path: &Path, sizes: &str) {
    succeeding(&[
        "latency",
        "--size",
        sizes,
        "--repeat",
        "3",
        "--jsonl",
        path.to_str().unwrap(),
    ]);
}

fn records(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|value: &serde_json::Value| value["type"] == "record")
        .collect()
}

/// Two full sets match figure by figure; the third (a JSON document) lacks a size, which is
/// counted as unmatched in the sets that have it. Without per-repetition
/// records there is no rank test: "n/a", null in the records.
#[test]
fn latency_sets_match_by_size_and_count_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a.jsonl"),
        dir.path().join("b.jsonl"),
        dir.path().join("c.json"),
    );
    latency_set(&a, "64K,1M");
    latency_set(&b, "64K,1M");
    // The third set as the JSON document --json prints.
    let document = succeeding(&["latency", "--size", "64K", "--repeat", "3", "--json"]);
    std::fs::write(&c, document.stdout).unwrap();
    let out = dir.path().join("compare.jsonl");
    let output = succeeding(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--jsonl",
        out.to_str().unwrap(),
    ]);
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(table.contains("size_bytes=65536"), "{table}");
    assert!(table.contains("size_bytes=1048576"), "{table}");
    assert!(table.contains("unmatched in set 2: 0 record(s)"), "{table}");
    let compared = records(&out);
    let inputs = (records(&a), records(&b));
    // One ratio per record of a (latency and latency_cycles per size), one
    // unmatched count per set.
    assert_eq!(compared.len(), inputs.0.len() + 2);
    for (ratio, (first, second)) in compared.iter().zip(inputs.0.iter().zip(&inputs.1)) {
        assert_eq!(ratio["benchmark"], "compare");
        assert_eq!(ratio["metric"], first["metric"]);
        assert_eq!(ratio["params"]["size_bytes"], first["params"]["size_bytes"]);
        let expected = second["value"].as_f64().unwrap() / first["value"].as_f64().unwrap();
        assert!((ratio["value"].as_f64().unwrap() - expected).abs() < 1e-9);
        assert!(ratio["params"]["p_value"].is_null());
    }

    let output = succeeding(&[
        "compare",
        a.to_str().unwrap(),
        c.to_str().unwrap(),
        "--json",
    ]);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let unmatched: Vec<f64> = document["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|record| record["metric"] == "unmatched")
        .map(|record| record["value"].as_f64().unwrap())
        .collect();
    assert_eq!(
        unmatched,
        [2.0, 0.0],
        "the 1M latency and latency_cycles of a"
    );
}

/// `run` writes a record per repetition: compare tests them. The same
/// command, slowed by its environment in the second set, differs
/// significantly; a rerun of the first does not differ by a factor of 5.
#[test]
fn run_repetitions_get_a_p_value() {
    let dir = tempfile::tempdir().unwrap();
    let run_set = |name: &str, delay: &str| {
        let path = dir.path().join(name);
        let output = numabench()
            .env("NUMABENCH_TEST_DELAY", delay)
            .args([
                "run", "--repeat", "5", "--warmup", "0", "--policy", "as-is", "--jsonl",
            ])
            .arg(&path)
            .args(["--", "sh", "-c", "sleep $NUMABENCH_TEST_DELAY"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        path
    };
    let fast = run_set("fast.jsonl", "0.01");
    let slow = run_set("slow.jsonl", "0.5");
    let output = succeeding(&[
        "compare",
        fast.to_str().unwrap(),
        slow.to_str().unwrap(),
        "--json",
    ]);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let per_run = document["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|record| record["metric"] == "run_wall_time")
        .expect("the per-repetition wall times match");
    assert_eq!(per_run["params"]["repetitions"], serde_json::json!([5, 5]));
    assert!(
        per_run["params"]["p_value"].as_f64().unwrap() < 0.05,
        "{per_run}"
    );
    assert!(per_run["value"].as_f64().unwrap() > 5.0, "{per_run}");
}

/// Bad inputs: one line naming the file or the count, exit 2, no output
/// file created.
#[test]
fn bad_inputs_are_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.jsonl");
    latency_set(&good, "64K");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let metadata_only = dir.path().join("metadata.jsonl");
    let first_line = std::fs::read_to_string(&good).unwrap();
    std::fs::write(&metadata_only, first_line.lines().next().unwrap()).unwrap();
    let missing = dir.path().join("missing.jsonl");
    let out = dir.path().join("out.jsonl");
    let path = |path: &Path| path.to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (vec![path(&good)], "got 1".into()),
        (vec![path(&good), path(&missing)], path(&missing)),
        (
            vec![path(&good), path(&empty)],
            format!("'{}': empty file", path(&empty)),
        ),
        (
            vec![path(&good), path(&metadata_only)],
            format!("'{}': no records", path(&metadata_only)),
        ),
        (
            vec![path(&good), path(&good), "--jsonl".into(), path(&good)],
            "--jsonl".into(),
        ),
    ];
    for (arguments, expected) in cases {
        let output = numabench()
            .arg("compare")
            .args(&arguments)
            .args(["--csv", out.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(&expected), "{arguments:?}: {stderr}");
        assert!(!out.exists(), "{arguments:?} created the output");
    }
}
