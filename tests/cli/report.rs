//! `numabench report` on records of real runs made in the test, on a mix
//! of commands and formats, and on malformed input.

use super::{numabench, succeeding};
use std::fs;
use std::path::Path;

/// Records written by real numabench runs (tests/fixtures/report/README.md).
pub const REPORT_FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../numabench/tests/fixtures/report/"
);

/// The `id`s of the page's sections.
pub fn section_ids(html: &str) -> Vec<String> {
    html.split("<section id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

#[test]
fn a_mix_of_real_runs_gets_the_sections_its_records_have() {
    let dir = tempfile::tempdir().unwrap();
    let latency = path(dir.path(), "latency.jsonl");
    succeeding(&[
        "latency", "--size", "16K,2M", "--repeat", "3", "--jsonl", &latency,
    ]);
    let output = succeeding(&[
        "bandwidth",
        "--size",
        "1M",
        "--kernel",
        "read",
        "--repeat",
        "3",
        "--json",
    ]);
    let bandwidth = path(dir.path(), "bandwidth.json");
    fs::write(&bandwidth, &output.stdout).unwrap();
    let topo = path(dir.path(), "topo.json");
    fs::write(&topo, succeeding(&["topo", "--json"]).stdout).unwrap();
    let html_path = path(dir.path(), "mixed.html");
    let output = succeeding(&["report", &latency, &bandwidth, &topo, "-o", &html_path]);
    assert!(String::from_utf8_lossy(&output.stdout).contains("mixed.html"));
    let html = fs::read_to_string(&html_path).unwrap();
    // latency_cycles is drawn by no section: listed under "Other records",
    // with a note saying so; the counts add up to every record.
    assert_eq!(
        section_ids(&html),
        ["notes", "metadata", "latency", "bandwidth", "other"]
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("(5 records: 3 drawn or tabled, 2 under Other records)"),
        "{stdout}"
    );
    // The latency curve has both sizes, the bandwidth one its size; the
    // cache sizes of the topology are marked.
    assert!(
        html.contains("data (2 rows)") && html.contains("data (1 rows)"),
        "{html}"
    );
    // (plotters writes SVG text on its own line; every L1 lies in 16K..2M)
    assert!(html.contains("\nL1 "), "cache sizes marked");
    assert_eq!(
        html.matches("<svg").count(),
        3,
        "one plot per section, and the topology's node diagram"
    );
    assert!(html.contains("The node diagram"));
    assert!(
        html.matches("<details>").count() >= 2,
        "each plot has its data table"
    );
    // Self-contained: no script, no external resource.
    assert!(!html.contains("<script"));
    assert!(!html.contains("src=") && !html.contains("<link"));
}

#[test]
fn a_truncated_line_is_reported_and_the_rest_rendered() {
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(format!("{REPORT_FIXTURES}characterize.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len();
    let cut = format!(
        "{}\n{}",
        lines[..last - 1].join("\n"),
        &lines[last - 1][..lines[last - 1].len() / 2]
    );
    let input = path(dir.path(), "cut.jsonl");
    fs::write(&input, cut).unwrap();
    let html_path = path(dir.path(), "cut.html");
    let output = succeeding(&["report", &input, "-o", &html_path]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let place = format!("cut.jsonl:{last}: not a JSON line");
    assert!(stderr.contains(&place), "{stderr}");
    let html = fs::read_to_string(&html_path).unwrap();
    assert!(html.contains(&place), "the note is in the page");
    assert!(section_ids(&html).contains(&"latency".to_string()));
    let untouched = path(dir.path(), "whole.html");
    succeeding(&[
        "report",
        &format!("{REPORT_FIXTURES}characterize.jsonl"),
        "-o",
        &untouched,
    ]);
    assert!(!fs::read_to_string(&untouched)
        .unwrap()
        .contains("not a JSON line"));
}

#[test]
fn an_unknown_kind_is_skipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = fs::read_to_string(format!("{REPORT_FIXTURES}run.jsonl")).unwrap();
    text.push_str("{\"type\":\"hologram\",\"value\":1}\n");
    let input = path(dir.path(), "odd.jsonl");
    fs::write(&input, text).unwrap();
    let html_path = path(dir.path(), "odd.html");
    succeeding(&["report", &input, "-o", &html_path]);
    let html = fs::read_to_string(&html_path).unwrap();
    assert!(
        html.contains("unknown kind &quot;hologram&quot; skipped"),
        "{html}"
    );
    assert_eq!(section_ids(&html), ["notes", "metadata", "run"]);
}

#[test]
fn the_default_output_is_report_html_and_inputs_are_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let input = path(dir.path(), "report.html");
    fs::copy(format!("{REPORT_FIXTURES}run.jsonl"), &input).unwrap();
    let before = fs::read(&input).unwrap();
    let output = numabench()
        .current_dir(dir.path())
        .args(["report", "report.html"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(fs::read(&input).unwrap(), before);
    fs::rename(&input, dir.path().join("run.jsonl")).unwrap();
    let output = numabench()
        .current_dir(dir.path())
        .args(["report", "run.jsonl"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(dir.path().join("report.html").exists());
}

#[test]
fn another_machines_topology_shows_its_cpuless_nodes_and_distances() {
    let dir = tempfile::tempdir().unwrap();
    let topo = path(dir.path(), "server-topo.json");
    let output = succeeding(&["--topology", super::OTHER_MACHINE_XML, "topo", "--json"]);
    fs::write(&topo, &output.stdout).unwrap();
    let document: numabench::topology::Machine = serde_json::from_slice(&output.stdout).unwrap();
    let cpuless = document.nodes.iter().filter(|n| n.cpuless).count();
    assert!(cpuless > 0);
    let html_path = path(dir.path(), "server.html");
    succeeding(&["report", &topo, "-o", &html_path]);
    let html = fs::read_to_string(&html_path).unwrap();
    assert_eq!(section_ids(&html), ["metadata"]);
    assert_eq!(html.matches("none (CPU-less)").count(), cpuless);
    // The distance heatmap has a row label per node, and HMAT attributes
    // are listed.
    assert!(html.contains("The firmware&#39;s node distances"));
    let distances = &html[html.find("<h4>Distances</h4>").unwrap()..html.find("<h4>HMAT").unwrap()];
    assert_eq!(
        distances
            .matches(&format!("\nnode {}\n", document.nodes.len() - 1))
            .count(),
        2,
        "{html}"
    );
    assert!(html.contains("HMAT memory attributes"));
    // Each declared attribute is a heatmap, with the note that no matrix
    // measured it beside (no records given).
    assert!(
        html.contains("<h5>HMAT latency</h5><div class=\"pair\">"),
        "{html}"
    );
    assert!(html.contains("No matrix-latency latency record"));
}
