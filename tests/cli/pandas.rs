//! Results load straight into pandas, as a data-minded user would load
//! them: `read_csv(path)` with no options, and `json_normalize` of the JSON
//! Lines give one table (same shape, same columns, `params.*` and `run.*`
//! among them). Needs Debian's python3-pandas (`scripts/setup --test`);
//! without it the test fails saying so.

use super::succeeding;
use std::path::Path;
use std::process::Command;

/// What the Python side checks, given the CSV and the JSON Lines paths.
const CHECK: &str = r#"
import json, sys
import pandas
csv_path, jsonl_path = sys.argv[1], sys.argv[2]
table = pandas.read_csv(csv_path)
with open(jsonl_path) as lines:
    records = [json.loads(line) for line in lines]
normalized = pandas.json_normalize(records)
assert len(table) > 0, "no rows"
assert table.shape == normalized.shape, (table.shape, normalized.shape)
assert list(table.columns) == list(normalized.columns), (list(table.columns), list(normalized.columns))
for prefix in ("params.", "run.", "stats."):
    assert any(column.startswith(prefix) for column in table.columns), prefix
plain = pandas.read_json(jsonl_path, lines=True)
assert len(plain) == len(table) and "type" not in plain.columns, plain.columns
assert (table["run.schema_version"] == 2).all()
print("pandas ok", table.shape)
"#;

/// The first Python with pandas: `python3` on the PATH, else Debian's.
fn python_with_pandas() -> String {
    for python in ["python3", "/usr/bin/python3"] {
        let found = Command::new(python)
            .args(["-c", "import pandas"])
            .output()
            .is_ok_and(|output| output.status.success());
        if found {
            return python.to_string();
        }
    }
    panic!("no python3 with pandas (neither python3 on the PATH nor /usr/bin/python3): install Debian's python3-pandas (scripts/setup --test)");
}

fn check_with_pandas(csv: &Path, jsonl: &Path) {
    let output = Command::new(python_with_pandas())
        .args(["-c", CHECK])
        .arg(csv)
        .arg(jsonl)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}\nCSV:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        std::fs::read_to_string(csv).unwrap_or_default()
    );
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("pandas ok"));
}

/// Runs numabench with `arguments` plus `--csv` and `--jsonl`, then loads both.
fn loads_into_pandas(name: &str, arguments: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join(format!("{name}.csv"));
    let jsonl = dir.path().join(format!("{name}.jsonl"));
    let (command, rest) = arguments.split_at(1);
    let files = [
        "--csv",
        csv.to_str().unwrap(),
        "--jsonl",
        jsonl.to_str().unwrap(),
    ];
    succeeding(&[command, &files, rest].concat());
    check_with_pandas(&csv, &jsonl);
}

#[test]
fn characterize_results_load_into_pandas() {
    loads_into_pandas(
        "characterize",
        &["characterize", "--only", "matrix-latency", "--repeat", "1"],
    );
}

#[test]
fn run_results_load_into_pandas() {
    loads_into_pandas(
        "run",
        &[
            "run", "--repeat", "2", "--warmup", "0", "--policy", "as-is", "--", "true",
        ],
    );
}
