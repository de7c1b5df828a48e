//! `interference` from the command line: its plan on a machine with CXL
//! and HBM nodes (every pair) and on a 24-node one (each node against
//! itself and a sample of each class of pairs, within minutes), bad input
//! refused before anything runs, and a real run on this machine read back
//! as records: every measurement, the matrix with every pair and load,
//! and the finding. Speed is never asserted: the matrix of the emulated
//! tiered machine is checked in tests/vm/tiered.rs.

use super::plan::{fixture, plan_text};
use super::records::params_of;
use super::{numabench, refusal, typed_records, with_metric};
use numabench_schema::params::{InterferenceCellParams, InterferenceParams};

fn plan(fixture_name: &str, extra: &[&str]) -> String {
    plan_text(fixture_name, &[&["interference"], extra].concat())
}

/// The plan's estimated total, seconds.
fn estimated_seconds(plan: &str) -> u64 {
    let total = plan
        .lines()
        .find_map(|line| line.strip_prefix("Estimated total: "))
        .unwrap_or_else(|| panic!("no estimate in {plan}"));
    let clock = total.split_whitespace().next().unwrap();
    clock.split(':').fold(0, |seconds, part| {
        seconds * 60 + part.parse::<u64>().unwrap()
    })
}

#[test]
fn the_plan_pairs_every_node_on_small_machines_and_samples_classes_on_large_ones() {
    let tiered = plan("two-sockets-hbm-cxl.xml", &[]);
    assert!(
        tiered.contains("interference — 5 victim(s), 25 pair(s) x 2 load(s), 3 round(s)"),
        "{tiered}"
    );
    let chosen = plan(
        "two-sockets-hbm-cxl.xml",
        &["--victim", "0", "--aggressor", "0,4", "--load", "writes"],
    );
    assert!(
        chosen.contains("1 victim(s), 2 pair(s) x 1 load(s)"),
        "{chosen}"
    );
    for large in ["twenty-four-nodes.xml", "sgi-uv2000-24n.xml"] {
        let plan = plan(large, &[]);
        assert!(plan.contains("24 victim(s)"), "{plan}");
        // Within the default budget of 10 minutes.
        assert!(estimated_seconds(&plan) <= 600, "{plan}");
    }
    // 400 GB behind memory-side caches: the budget caps the victim's buffer, and every
    // aggressor thread streams its share of it, not a buffer as large.
    let cached = plan("memory-mode-400g.xml", &[]);
    assert!(estimated_seconds(&cached) <= 600, "{cached}");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let file = fixture("two-sockets-hbm-cxl.xml");
    for (arguments, expected) in [
        (&["--victim", "9"][..], "--victim 9: not a node with memory"),
        (
            &["--aggressor", "7"][..],
            "--aggressor 7: not a node with memory",
        ),
        (&["--load", "reads,fast"][..], "unknown traffic mix 'fast'"),
        (&["--rounds", "0"][..], "--rounds"),
        (&["--aggressor-threads", "0"][..], "--aggressor-threads"),
    ] {
        let output = numabench()
            .args(["--topology", &file, "interference", "--plan"])
            .args(arguments)
            .output()
            .unwrap();
        let stderr = refusal(&output);
        assert!(stderr.contains(expected), "{arguments:?}: {stderr}");
    }
}

#[test]
fn a_run_here_records_every_measurement_the_matrix_and_the_finding() {
    let arguments = [
        "interference",
        "--size",
        "16MiB",
        "--rounds",
        "2",
        "--repeat",
        "3",
    ];
    let records = typed_records(&arguments);
    let measured = with_metric(&records, "victim_latency");
    // This machine's nodes: each alone and under each of its pairs' two loads, twice.
    let latency = with_metric(&records, "latency_ratio");
    let bandwidth = with_metric(&records, "bandwidth_ratio");
    assert!(!latency.is_empty());
    assert_eq!(latency.len(), bandwidth.len());
    let victims: std::collections::BTreeSet<u32> = measured
        .iter()
        .map(|record| {
            params_of::<InterferenceParams>(record)
                .victim_node
                .expect("victim_node")
        })
        .collect();
    assert_eq!(measured.len(), 2 * (victims.len() + latency.len()));
    assert_eq!(
        with_metric(&records, "victim_bandwidth").len(),
        measured.len()
    );
    for record in &measured {
        let params: InterferenceParams = params_of(record);
        assert!(record.value > 0.0, "{record:?}");
        assert!(record.placement.verified.is_some(), "{record:?}");
        match params.load.as_deref().expect("a load") {
            "none" => {
                assert!(params.aggressor_node.is_none(), "{record:?}");
                assert_eq!(params.traffic_gbs, Some(0.0), "{record:?}");
            }
            "reads" | "writes" => {
                assert!(params.aggressor_threads.expect("aggressor_threads") >= 1);
                // The aggressors moved memory while the victim was timed.
                assert!(params.traffic_gbs.expect("traffic_gbs") > 0.0, "{record:?}");
            }
            other => panic!("load {other}"),
        }
    }
    let loads: Vec<String> = latency
        .iter()
        .map(|record| {
            params_of::<InterferenceCellParams>(record)
                .load
                .expect("a load")
        })
        .collect();
    let loads: Vec<&str> = loads.iter().map(String::as_str).collect();
    assert!(
        loads.contains(&"reads") && loads.contains(&"writes"),
        "{loads:?}"
    );
    for cell in &latency {
        let params: InterferenceCellParams = params_of(cell);
        let ratio = params.loaded_ns.expect("loaded_ns") / params.alone_ns.expect("alone_ns");
        assert!((cell.value - ratio).abs() < 1e-9, "{cell:?}");
        let p = params.p_value.expect("p_value");
        assert!((0.0..=1.0).contains(&p), "{cell:?}");
    }
    let finding = with_metric(&records, "interference");
    assert_eq!(finding.len(), 1, "{records:?}");
    let sentence = finding[0].typed_params().sentence().unwrap();
    assert!(sentence.starts_with("interference"), "{sentence}");
}

#[test]
fn the_table_shows_every_pair_and_says_what_the_mark_means() {
    let output = numabench()
        .args([
            "interference",
            "--size",
            "16MiB",
            "--rounds",
            "1",
            "--repeat",
            "2",
            "--load",
            "writes",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("| victim | aggressor | load"), "{stdout}");
    assert!(stdout.contains("| writes |"), "{stdout}");
    assert!(
        stdout.contains("* significant: Mann-Whitney p < 0.05"),
        "{stdout}"
    );
    assert!(
        stdout.lines().all(|line| line.chars().count() <= 100),
        "{stdout}"
    );
}
