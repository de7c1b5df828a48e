//! `topo` and `doctor` against this machine's real kernel files.

use super::numabench;
use std::fs;

fn kernel_nodes() -> Vec<u32> {
    let mut nodes: Vec<u32> = fs::read_dir("/sys/devices/system/node")
        .expect("sysfs node directory")
        .filter_map(Result::ok)
        .filter_map(|entry| {
            entry
                .file_name()
                .to_str()?
                .strip_prefix("node")?
                .parse()
                .ok()
        })
        .collect();
    nodes.sort_unstable();
    nodes
}

#[test]
fn topo_json_matches_the_kernel() {
    let output = numabench().args(["topo", "--json"]).output().unwrap();
    assert!(output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let nodes: Vec<u32> = report["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| node["index"].as_u64().unwrap() as u32)
        .collect();
    assert_eq!(nodes, kernel_nodes());
    let online = fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
    let cpus = numabench::parse::parse_id_list(online.trim()).unwrap();
    assert_eq!(report["cpu_count"].as_u64().unwrap() as usize, cpus.len());
    for node in report["nodes"].as_array().unwrap() {
        let index = node["index"].as_u64().unwrap();
        let listed =
            fs::read_to_string(format!("/sys/devices/system/node/node{index}/cpulist")).unwrap();
        let expected = if listed.trim().is_empty() {
            Vec::new()
        } else {
            numabench::parse::parse_id_list(listed.trim()).unwrap()
        };
        let reported: Vec<u32> = node["cpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|cpu| cpu.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(reported, expected, "CPUs of node {index}");
        assert!(node["memory_total_bytes"].as_u64().unwrap() > 0);
        assert!(
            node["memory_free_bytes"].as_u64().unwrap()
                <= node["memory_total_bytes"].as_u64().unwrap()
        );
    }
    assert_eq!(report["schema_version"], 1);
}

#[test]
fn topo_table_names_every_node() {
    let output = numabench().arg("topo").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("NUMA nodes:"));
    assert!(text.contains(&format!("{} NUMA node(s)", kernel_nodes().len())));
}

#[test]
fn doctor_reports_real_settings_and_gates_on_warnings() {
    let output = numabench().args(["doctor", "--json"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let warnings = report["warnings"].as_u64().unwrap();
    let expected_status = if warnings == 0 { 0 } else { 1 };
    assert_eq!(output.status.code(), Some(expected_status));
    let balancing = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|finding| finding["check"] == "numa_balancing")
        .unwrap();
    match fs::read_to_string("/proc/sys/kernel/numa_balancing") {
        Ok(value) => assert!(balancing["found"]
            .as_str()
            .unwrap()
            .contains(&format!("= {}", value.trim()))),
        // Absent from this kernel, or unreadable here (then unknown and a warning).
        Err(_) => {
            let found = balancing["found"].as_str().unwrap();
            assert!(
                found.contains("not available")
                    || (found.starts_with("unknown (could not read")
                        && balancing["severity"] == "warning"),
                "{found}"
            )
        }
    }
    assert_eq!(report["findings"].as_array().unwrap().len(), 18);
}

/// doctor's text fits the terminal (`$COLUMNS`): a long finding, why or
/// fix wraps under its label; only a single word wider than the width (a
/// path to copy) may stand out. Its lines ran to 282 columns here.
#[test]
fn doctor_text_fits_the_terminal_width() {
    for width in [80usize, 100] {
        let output = numabench()
            .arg("doctor")
            .env("COLUMNS", width.to_string())
            .output()
            .unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(stdout.lines().count() > 3, "{stdout}");
        for line in stdout.lines() {
            let one_word = line.split_whitespace().count() == 1
                || line.trim_start().starts_with("why: ") && line.split_whitespace().count() == 2
                || line.trim_start().starts_with("fix: ") && line.split_whitespace().count() == 2;
            assert!(line.chars().count() <= width || one_word, "{width}: {line}");
        }
    }
}
