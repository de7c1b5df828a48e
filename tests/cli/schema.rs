//! Every record and metadata line the CLI writes matches the shipped JSON
//! Schema (`docs/record.schema.json`, generated from the schema crate's
//! types): for a fixed set of small commands here, and for every JSON
//! document the other CLI tests read through [`super::json_document`].

use super::succeeding;
use serde_json::{Map, Value};
use std::path::Path;
use std::sync::OnceLock;

/// The shipped schema, compiled once.
fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/record.schema.json");
        let text = std::fs::read_to_string(path).expect("docs/record.schema.json is shipped");
        let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
        jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema")
    })
}

/// Panics, naming every violation, unless `line` (a JSON Lines line, with
/// its `type`) matches the schema.
pub fn assert_line_matches(line: &Value, origin: &str) {
    let errors: Vec<String> = validator()
        .iter_errors(line)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{origin}: a line does not match docs/record.schema.json:\n{}\n{line}",
        errors.join("\n")
    );
}

/// `object` with `"type": kind` in front, as a JSON Lines line has it.
fn as_line(kind: &str, object: &Value) -> Value {
    let mut line = Map::new();
    line.insert("type".into(), Value::from(kind));
    if let Some(fields) = object.as_object() {
        line.extend(fields.clone());
    }
    Value::Object(line)
}

/// Checks a results document (`--json`: `metadata` and `records`); other
/// JSON documents (`topo --json`, `doctor --json`) are left alone.
pub fn assert_document_matches(document: &Value, origin: &str) {
    let (Some(metadata), Some(records)) = (document.get("metadata"), document.get("records"))
    else {
        return;
    };
    assert_line_matches(&as_line("metadata", metadata), origin);
    for record in records.as_array().expect("records is an array") {
        assert_line_matches(&as_line("record", record), origin);
    }
}

/// Checks every line of a JSON Lines file; returns how many there were.
pub fn assert_jsonl_matches(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let origin = path.display().to_string();
    let mut lines = 0;
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        assert_line_matches(&serde_json::from_str(line).unwrap(), &origin);
        lines += 1;
    }
    lines
}

/// Small, fast argument sets of the commands whose records are checked.
const COMMANDS: &[&[&str]] = &[
    &["latency", "--size", "64K", "--repeat", "2"],
    &["bandwidth", "--size", "1M", "--repeat", "2"],
    &["mlp", "--size", "1M", "--repeat", "1"],
    &["c2c", "--repeat", "1"],
    &["cache", "--levels", "L1,DRAM", "--repeat", "1"],
    &["run", "--repeat", "1", "--warmup", "0", "--", "true"],
    &[
        "placement-study",
        "stream",
        "--size",
        "1M",
        "--repeat",
        "1",
        "--placements",
        "first-touch,serial",
        "--threads-placements",
        "compact",
    ],
    // Latency alone: the smallest characterize that still writes its
    // summary records.
    &[
        "characterize",
        "--only",
        "latency",
        "--repeat",
        "1",
        "--budget",
        "1m",
    ],
];

#[test]
fn every_line_the_commands_write_matches_the_shipped_schema() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (index, arguments) in COMMANDS.iter().enumerate() {
        let path = dir.path().join(format!("{index}.jsonl"));
        let path_text = path.to_str().unwrap().to_string();
        let (command, program) = match arguments.iter().position(|word| *word == "--") {
            Some(split) => arguments.split_at(split),
            None => (*arguments, &[][..]),
        };
        succeeding(&[command, &["--jsonl", &path_text], program].concat());
        // Every line of a version-2 file is a record (with its run).
        let lines = assert_jsonl_matches(&path);
        assert!(lines >= 1, "{arguments:?} wrote no record");
        files.push(path_text);
    }
    // compare reads two of those files and writes records of its own.
    let compared = dir.path().join("compare.jsonl");
    succeeding(&[
        "compare",
        &files[0],
        &files[0],
        "--jsonl",
        compared.to_str().unwrap(),
    ]);
    assert!(assert_jsonl_matches(&compared) >= 1);
}

/// The results files checked in as fixtures (report, records) are real
/// outputs of earlier versions: they still match.
#[test]
fn the_fixture_results_files_match_the_shipped_schema() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../numabench/tests/fixtures");
    let mut checked = 0;
    for folder in ["report", "records"] {
        for entry in std::fs::read_dir(fixtures.join(folder)).unwrap() {
            let path = entry.unwrap().path();
            if path
                .extension()
                .is_some_and(|extension| extension == "jsonl")
            {
                assert_jsonl_matches(&path);
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} fixture files found");
}

#[test]
fn a_line_that_breaks_the_schema_is_caught() {
    let record = serde_json::json!({
        "type": "record", "benchmark": "latency", "metric": "latency", "value": 1.0,
        "unit": "furlongs", "params": {}, "placement": {"requested": {}, "verified": null},
        "stats": {"n": 1, "min": 1.0, "median": 1.0, "mean": 1.0, "max": 1.0,
                  "stddev": 0.0, "cv": 0.0, "p90": 1.0, "p99": 1.0}
    });
    let caught = std::panic::catch_unwind(|| assert_line_matches(&record, "test"));
    assert!(caught.is_err(), "an unknown unit passed the schema");
    let mut fixed = record.clone();
    fixed["unit"] = "ns".into();
    // A latency record's params are LatencyParams: the keys every latency
    // record has are required.
    let caught = std::panic::catch_unwind(|| assert_line_matches(&fixed, "test"));
    assert!(caught.is_err(), "latency params without their keys passed");
    fixed["params"] = serde_json::json!({
        "size_bytes": 65536, "cache_bytes_in_front": 1048576, "cache_affected": true,
        "cpu": 0, "cpu_node": null, "order": "tlb-block", "order_measures": "idle latency",
        "block_bytes": 65536, "block_source": "default", "hugepages": false,
        "loads_per_sample": 16384
    });
    assert_line_matches(&fixed, "test");
    fixed["params"]["cpu"] = "zero".into();
    let caught = std::panic::catch_unwind(|| assert_line_matches(&fixed, "test"));
    assert!(caught.is_err(), "a latency record's cpu as text passed");
}

/// A node-median ratio record of `bandwidth --each-cpu` carries the CPU's
/// labels and its deviation, not a bandwidth record's params: the schema
/// checks it against the ratio's type, and a bandwidth record still
/// against bandwidth's.
#[test]
fn a_ratio_record_is_checked_as_a_ratio() {
    let stats = serde_json::json!({"n": 1, "min": 0.9, "median": 0.9, "mean": 0.9, "max": 0.9,
        "stddev": 0.0, "cv": 0.0, "p90": 0.9, "p99": 0.9});
    let ratio = serde_json::json!({"type": "record", "benchmark": "bandwidth",
        "metric": "read_bandwidth_vs_node_median", "value": 0.9, "unit": "ratio",
        "params": {"each_cpu": true, "cpu": 1, "cpu_node": 0, "mem_node": null,
            "size_bytes": 33554432, "kernel": "read", "deviation_from_node_median": -0.1,
            "cpu_order": 1},
        "placement": {"requested": {}, "verified": null}, "stats": stats});
    assert_line_matches(&ratio, "test");
    let mut without = ratio.clone();
    without["params"]
        .as_object_mut()
        .unwrap()
        .remove("deviation_from_node_median");
    let caught = std::panic::catch_unwind(|| assert_line_matches(&without, "test"));
    assert!(
        caught.is_err(),
        "a ratio record without its deviation passed"
    );
    let mut bandwidth = ratio.clone();
    bandwidth["metric"] = "read_bandwidth".into();
    bandwidth["unit"] = "GB/s".into();
    let caught = std::panic::catch_unwind(|| assert_line_matches(&bandwidth, "test"));
    assert!(
        caught.is_err(),
        "a bandwidth record with a ratio's params passed"
    );
}
