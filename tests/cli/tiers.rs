//! `tiers advise` from the command line: its plan on a machine with CXL
//! and HBM nodes (every socket with the CPU-less nodes nearest it) and on
//! one without (the first socket against every other node), and bad
//! input refused before anything runs. The advice itself is measured in
//! the tiered VM (tests/vm/tiered.rs): this machine has one node.

use super::numabench;
use super::plan::{fixture, plan_text};

fn plan(fixture_name: &str, extra: &[&str]) -> String {
    plan_text(fixture_name, &[&["tiers", "advise"], extra].concat())
}

#[test]
fn the_plan_takes_each_socket_with_its_nearest_cpuless_nodes_within_minutes() {
    let tiered = plan("two-sockets-hbm-cxl.xml", &[]);
    assert!(
        tiered.contains("tiers — interleave ratios, 2 socket(s), 2 round(s)"),
        "{tiered}"
    );
    // Without CPU-less nodes: one socket against every other node.
    let flat = plan("twenty-four-nodes.xml", &[]);
    assert!(flat.contains("1 socket(s)"), "{flat}");
    assert!(flat.contains("memory nodes: 0-23"), "{flat}");
    assert!(flat.contains("264 measurement(s)"), "{flat}");
    // Fewer ratios and mixes, fewer measurements: 1:0, 1:1, 0:1 and 3:1, read, 3 thread counts, 2 rounds.
    let narrow = plan(
        "twenty-four-nodes.xml",
        &["--weights", "3:1", "--mix", "read"],
    );
    assert!(narrow.contains("24 measurement(s)"), "{narrow}");
}

#[test]
fn a_program_is_planned_under_every_ratio_as_run_policies() {
    // --plan before the program: after --, everything is the program's.
    let file = fixture("two-sockets-hbm-cxl.xml");
    let output = super::succeeding(&[
        "--topology",
        &file,
        "tiers",
        "advise",
        "--plan",
        "--cpu-node",
        "0",
        "--weights",
        "3:1",
        "--",
        "./app",
    ]);
    let plan = String::from_utf8(output.stdout).unwrap();
    for expected in [
        "Plan (5 policies, interleaved round robin)",
        "1. as-is",
        "5 runs after 1 warm-up",
    ] {
        assert!(plan.contains(expected), "{expected}: {plan}");
    }
    // DRAM only, 3:1, 1:1 and the tier only: weighted interleaves and binds.
    assert!(plan.matches("weighted:").count() >= 2, "{plan}");
    assert!(plan.contains("membind:0"), "{plan}");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let file = fixture("two-sockets-hbm-cxl.xml");
    for (arguments, expected) in [
        (&["--weights", "0:0"][..], "'0:0' is not a DRAM:tier ratio"),
        (&["--weights", "3-1"][..], "'3-1' is not a DRAM:tier ratio"),
        (
            &["--mix", "read,fast"][..],
            "'fast' is not a bandwidth kernel",
        ),
        (&["--threads", "none"][..], "'none' is not a thread count"),
        (&["--cpu-node", "9"][..], "node 9 does not exist"),
    ] {
        let output = numabench()
            .args(["--topology", &file, "tiers", "advise", "--plan"])
            .args(arguments)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert!(stderr.contains(expected), "{arguments:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    // This machine: one node, nothing to interleave with (exit 2 before anything runs).
    let here = numabench().args(["tiers", "advise"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&here.stderr);
    if !std::path::Path::new("/sys/devices/system/node/node1").exists() {
        assert_eq!(here.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("a second node with memory"), "{stderr}");
    }
}
