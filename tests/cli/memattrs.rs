//! `export-memattrs`: measured matrix figures become custom memory
//! attributes in an hwloc XML that hwloc's own `lstopo --memattrs` reads
//! back, on this machine and on a multi-node fixture shape.

use super::errors::assert_refused;
use super::numabench;
use super::plan::fixture;
use std::collections::BTreeMap;
use std::path::Path;

/// `lstopo --memattrs -i FILE`: the values listed under each attribute.
fn lstopo_values(xml: &Path) -> BTreeMap<String, Vec<u64>> {
    let output = std::process::Command::new("lstopo")
        .args(["--memattrs", "-i"])
        .arg(xml)
        .output()
        .expect("lstopo (hwloc) is installed by scripts/setup");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    let mut values: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut current = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Memory attribute #") {
            // "#8 name `NumabenchLatency' flags 6"
            let name = rest.split('`').nth(1).unwrap_or("");
            current = name.split('\'').next().unwrap_or("").to_string();
        } else if let Some((_, value)) = line.trim().split_once(" = ") {
            let number = value.split_whitespace().next().unwrap_or("");
            if let Ok(number) = number.parse() {
                values.entry(current.clone()).or_default().push(number);
            }
        }
    }
    values
}

/// A real `matrix latency` and `matrix bandwidth` here, exported: lstopo
/// lists NumabenchLatency and NumabenchReadBandwidth with the records'
/// values (ns; GB/s as MiB/s), rounded as hwloc keeps integers.
#[test]
fn measured_matrix_figures_read_back_by_lstopo() {
    let directory = tempfile::tempdir().unwrap();
    // Each run writes its own file; the export reads both.
    let mut text = String::new();
    let mut files = Vec::new();
    for kind in ["latency", "bandwidth"] {
        let path = directory.path().join(format!("{kind}.jsonl"));
        let status = numabench()
            .args(["matrix", kind, "--repeat", "1", "--size", "4M", "--jsonl"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
        text += &std::fs::read_to_string(&path).unwrap();
        files.push(path);
    }
    let out = directory.path().join("measured.xml");
    let output = numabench()
        .arg("export-memattrs")
        .args(&files)
        .args(["-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let mut latencies = Vec::new();
    let mut bandwidths = Vec::new();
    let (_, records) = super::records::read_typed_runs("matrix --jsonl", &text);
    for record in &records {
        let value = record.value;
        match (record.benchmark.as_str(), record.metric.as_str()) {
            ("matrix-latency", "latency") => latencies.push(value.round() as u64),
            ("matrix-bandwidth", "read_bandwidth") => {
                bandwidths.push((value * 1e9 / 1048576.0).round() as u64)
            }
            _ => {}
        }
    }
    assert!(!latencies.is_empty() && !bandwidths.is_empty());
    let read = lstopo_values(&out);
    latencies.sort_unstable();
    bandwidths.sort_unstable();
    let listed = |name: &str| {
        let mut values = read.get(name).cloned().unwrap_or_default();
        values.sort_unstable();
        values
    };
    assert_eq!(listed("NumabenchLatency"), latencies, "{read:?}");
    assert_eq!(listed("NumabenchReadBandwidth"), bandwidths, "{read:?}");
}

/// On the 8-node AMD NPS4 fixture (given with --topology), every
/// initiator x target pair's value is listed by lstopo under the attribute.
#[test]
fn a_multi_node_topology_gets_every_pair() {
    let directory = tempfile::tempdir().unwrap();
    let topology = fixture("amd-nps4.xml");
    let topo = numabench()
        .args(["--topology", &topology, "topo", "--json"])
        .output()
        .unwrap();
    let topo: numabench::topology::Machine = serde_json::from_slice(&topo.stdout).unwrap();
    let nodes: Vec<(u64, bool)> = topo
        .nodes
        .iter()
        .map(|node| (u64::from(node.index), !node.cpus.is_empty()))
        .collect();
    assert!(nodes.len() >= 4, "{topo:?}");
    let mut lines = vec![
        r#"{"type":"metadata","tool":"numabench","version":"0.1.0","schema_version":1,"host":"elsewhere"}"#
            .to_string(),
    ];
    let mut expected_latency = Vec::new();
    let mut expected_bandwidth = Vec::new();
    for &(initiator, has_cpus) in &nodes {
        if !has_cpus {
            continue;
        }
        for &(target, _) in &nodes {
            let latency = 100 + 10 * initiator + target;
            let mib = 20_000 + 100 * initiator + target;
            expected_latency.push(latency);
            expected_bandwidth.push(mib);
            let params = format!(r#"{{"cpu_node":{initiator},"mem_node":{target}}}"#);
            let stats =
                r#"{"n":1,"min":0,"median":0,"mean":0,"max":0,"stddev":0,"cv":0,"p90":0,"p99":0}"#;
            lines.push(format!(
                r#"{{"type":"record","benchmark":"matrix-latency","metric":"latency","value":{latency},"unit":"ns","params":{params},"placement":{{"requested":{{}},"verified":null}},"stats":{stats}}}"#
            ));
            lines.push(format!(
                r#"{{"type":"record","benchmark":"matrix-bandwidth","metric":"read_bandwidth","value":{},"unit":"GB/s","params":{params},"placement":{{"requested":{{}},"verified":null}},"stats":{stats}}}"#,
                mib as f64 * 1048576.0 / 1e9
            ));
        }
    }
    let results = directory.path().join("matrix.jsonl");
    std::fs::write(&results, lines.join("\n")).unwrap();
    let out = directory.path().join("measured.xml");
    let output = numabench()
        .args([
            "--topology",
            &topology,
            "export-memattrs",
            results.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let read = lstopo_values(&out);
    expected_latency.sort_unstable();
    expected_bandwidth.sort_unstable();
    let mut latency = read["NumabenchLatency"].clone();
    let mut bandwidth = read["NumabenchReadBandwidth"].clone();
    latency.sort_unstable();
    bandwidth.sort_unstable();
    assert_eq!(latency, expected_latency);
    assert_eq!(bandwidth, expected_bandwidth);
}

/// Bad inputs: one line, exit 2, no file written.
#[test]
fn bad_inputs_are_refused_with_one_line() {
    let directory = tempfile::tempdir().unwrap();
    let out = directory.path().join("out.xml");
    let out = out.to_str().unwrap();
    let file = |name: &str, text: &str| {
        let path = directory.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let record = |benchmark: &str, metric: &str, node: u32| {
        format!(
            r#"{{"type":"record","benchmark":"{benchmark}","metric":"{metric}","value":90,"unit":"ns","params":{{"cpu_node":0,"mem_node":{node}}},"placement":{{"requested":{{}},"verified":null}},"stats":{{"n":1,"min":90,"median":90,"mean":90,"max":90,"stddev":0,"cv":0,"p90":90,"p99":90}}}}"#
        )
    };
    let no_matrix = file("latency.jsonl", &record("latency", "latency", 0));
    let far_node = file("far.jsonl", &record("matrix-latency", "latency", 9));
    let other_host = file(
        "other.jsonl",
        &format!(
            "{}\n{}",
            r#"{"type":"metadata","tool":"numabench","host":"not-this-host-0"}"#,
            record("matrix-latency", "latency", 0)
        ),
    );
    let two_socket = fixture("two-socket-smt.xml");
    let cases: [(Vec<&str>, &str); 4] = [
        (
            vec!["export-memattrs", "/nonexistent/results.jsonl", "-o", out],
            "/nonexistent/results.jsonl: cannot read",
        ),
        (
            vec!["export-memattrs", &no_matrix, "-o", out],
            "no matrix latency or bandwidth records",
        ),
        (
            vec![
                "--topology",
                &two_socket,
                "export-memattrs",
                &far_node,
                "-o",
                out,
            ],
            "node 9",
        ),
        (
            vec!["export-memattrs", &other_host, "-o", out],
            "measured on host not-this-host-0",
        ),
    ];
    for (arguments, expected) in cases {
        let output = numabench().args(&arguments).output().unwrap();
        assert_refused(&output, &format!("{arguments:?}"), expected);
        assert!(!Path::new(out).exists(), "{arguments:?} wrote {out}");
    }
}
