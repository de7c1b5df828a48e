//! Measuring commands on this machine: records reach every output, with
//! verified placement, and files are complete after the run.

use super::numabench;

#[test]
fn list_names_every_benchmark_and_describes_them() {
    let output = numabench().arg("list").output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("latency") && text.contains("bandwidth"));
    let described = numabench().args(["list", "--describe"]).output().unwrap();
    let text = String::from_utf8(described.stdout).unwrap();
    assert!(
        text.contains("write-allocate"),
        "bandwidth says how bytes are counted"
    );
}

#[test]
fn latency_writes_verified_records_to_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, jsonl) = (dir.path().join("r.csv"), dir.path().join("r.jsonl"));
    let output = numabench()
        .args([
            "latency",
            "--size",
            "64K,4M",
            "--repeat",
            "3",
            "--json",
            "--mem-node",
            "0",
        ])
        .arg("--csv")
        .arg(&csv)
        .arg("--jsonl")
        .arg(&jsonl)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let records = document["records"].as_array().unwrap();
    let latencies: Vec<&serde_json::Value> = records
        .iter()
        .filter(|record| record["metric"] == "latency")
        .collect();
    assert_eq!(latencies.len(), 2);
    for record in &latencies {
        assert_eq!(record["unit"], "ns");
        assert_eq!(record["stats"]["n"], 3);
        assert!(record["value"].as_f64().unwrap() > 0.0);
        assert_eq!(record["placement"]["requested"]["memory"], "bind:0");
        assert_eq!(record["placement"]["verified"]["achieved"], true);
        assert_eq!(
            record["placement"]["verified"]["fraction_as_requested"],
            1.0
        );
    }
    // A larger working set cannot be faster to chase than one that fits in L1/L2.
    assert!(latencies[1]["value"].as_f64().unwrap() > latencies[0]["value"].as_f64().unwrap());
    let lines: Vec<String> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 1 + records.len());
    let metadata: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(metadata["type"], "metadata");
    assert_eq!(metadata["command_line"][1], "latency");
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        csv_text
            .lines()
            .filter(|line| !line.starts_with('#'))
            .count(),
        1 + records.len()
    );
}

#[test]
fn bandwidth_reports_every_kernel_with_gigabytes_per_second() {
    let output = numabench()
        .args([
            "bandwidth",
            "--size",
            "8M",
            "--repeat",
            "2",
            "--json",
            "--threads",
            "1",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let metrics: Vec<&str> = document["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|record| record["metric"].as_str().unwrap())
        .collect();
    assert_eq!(
        metrics,
        ["read", "write", "copy", "triad", "write-nt", "copy-nt", "triad-nt"]
            .map(|kernel| format!("{kernel}_bandwidth"))
    );
    for record in document["records"].as_array().unwrap() {
        assert_eq!(record["unit"], "GB/s");
        assert_eq!(record["value"], record["stats"]["max"]);
        assert_eq!(record["placement"]["verified"]["achieved"], true);
    }
}
