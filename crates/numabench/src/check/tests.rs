//! The check on every fixture (its plan fits the default budget and covers
//! every node), its baseline arithmetic and file, and on simulated
//! machines with planted faults: the slow node is named, and only it.

use super::*;
use crate::bench::Context;
use crate::doctor::{CheckId, DoctorReport, Finding, Severity};
use crate::simulate::{Fault, MachineModel};
use crate::topology::fixture_tests::load;
use crate::topology::{cpu_nodes, memory_nodes, Machine};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Every hwloc XML fixture, by name.
fn fixtures() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".xml").map(String::from)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    names
}

/// On every fixture (up to 24 nodes, 256 CPUs, 400 GB behind a DRAM
/// cache) the default plan fits 30 s, measures every node with CPUs and
/// memory (read, triad, local latency) and every CPU-less memory node,
/// with unique keys and working sets of at least 16 MiB.
#[test]
fn the_default_plan_fits_the_budget_and_covers_every_node() {
    for name in fixtures() {
        let topology = load(&name);
        let plan = plan_check(&topology, DEFAULT_BUDGET_SECONDS);
        assert!(
            plan.estimated_seconds <= DEFAULT_BUDGET_SECONDS,
            "{name}: {:.1} s",
            plan.estimated_seconds
        );
        let keys: Vec<&str> = plan.items.iter().map(|item| item.key.as_str()).collect();
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), keys.len(), "{name}: {keys:?}");
        let memory = memory_nodes(&topology);
        for node in cpu_nodes(&topology) {
            if memory.contains(&node) {
                for metric in ["read_bandwidth", "triad_bandwidth", "latency_local"] {
                    let key = format!("node{node}.{metric}");
                    assert!(keys.contains(&key.as_str()), "{name}: no {key}");
                }
            }
        }
        for node in memory {
            let key = format!("node{node}.read_bandwidth");
            assert!(keys.contains(&key.as_str()), "{name}: no {key}");
        }
        for item in &plan.items {
            assert!(item.size >= 16 << 20, "{name}: {item:?}");
            assert!(!item.cpus.is_empty());
        }
    }
}

/// A larger budget never measures less: sizes only grow.
#[test]
fn a_larger_budget_measures_larger_sets() {
    let topology = load("twenty-four-nodes");
    let small = plan_check(&topology, 30.0);
    let large = plan_check(&topology, 55.0);
    assert_eq!(small.items.len(), large.items.len());
    for (a, b) in small.items.iter().zip(&large.items) {
        assert!(a.size <= b.size, "{a:?} {b:?}");
    }
    assert!(
        small.estimated_seconds <= 30.0,
        "{}",
        small.estimated_seconds
    );
    assert!(small.estimated_seconds < large.estimated_seconds);
}

/// A reference is the median of the runs; its tolerance three robust
/// standard deviations, never under the floors (5% bandwidth, 10%
/// latency), unless the user set one; only the bad side is bounded.
#[test]
fn references_take_the_median_and_a_tolerance_from_the_spread() {
    let quiet = Reference::from_runs(CheckQuantity::ReadBandwidth, &[10.0, 10.1, 9.9], None);
    assert_eq!(quiet.value, 10.0);
    assert_eq!(quiet.lower, Some(-BANDWIDTH_TOLERANCE_FLOOR));
    assert_eq!(quiet.upper, None);
    assert!(quiet.accepts(9.6) && quiet.accepts(50.0) && !quiet.accepts(9.4));
    // Median 10, deviations 0.4 0.2 0 0.2 0.4 (and one outlier): MAD 0.2.
    let noisy = Reference::from_runs(
        CheckQuantity::TriadBandwidth,
        &[9.6, 9.8, 10.0, 10.2, 10.4, 5.0, 10.0],
        None,
    );
    assert_eq!(noisy.value, 10.0);
    let expected = 3.0 * 1.4826 * 0.2 / 10.0;
    assert!((noisy.lower.unwrap() + expected).abs() < 1e-12, "{noisy:?}");
    let latency = Reference::from_runs(CheckQuantity::Latency, &[100.0, 101.0, 99.0], None);
    assert_eq!(latency.lower, None);
    assert_eq!(latency.upper, Some(LATENCY_TOLERANCE_FLOOR));
    assert!(latency.accepts(109.0) && latency.accepts(50.0) && !latency.accepts(111.0));
    let set = Reference::from_runs(CheckQuantity::Latency, &[100.0, 130.0, 99.0], Some(0.03));
    assert_eq!(set.upper, Some(0.03));
    assert_eq!(set.tolerance_text(), "+3%");
    assert!(!quiet.accepts(f64::NAN));
}

/// Runs that spread so far that three deviations would let a bandwidth
/// fall 100% or more write no baseline (check would refuse to read it):
/// the error names the metric and its spread. Quiet runs of the same plan
/// write one that reads back.
#[test]
fn runs_too_noisy_for_a_tolerance_write_no_baseline() {
    let topology = load("two-socket-smt");
    let plan = plan_check(&topology, DEFAULT_BUDGET_SECONDS);
    let quiet: Vec<Vec<f64>> = plan.items.iter().map(|_| vec![10.0, 10.2]).collect();
    let entry = |values: &[Vec<f64>]| {
        super::run::entry_from_runs(
            &plan,
            values,
            &Tolerances::default(),
            node_fingerprint(&topology, &doctor("on"), "model"),
            Written::now(2),
        )
    };
    let mut baseline = Baseline::new();
    baseline.put(entry(&quiet).unwrap());
    let text = serde_json::to_string(&baseline).unwrap();
    Baseline::parse(&text).unwrap();
    // One bandwidth's two runs: 30 and 70 (median 50, deviation 20: 59% robust, 178% x 3).
    let noisy_index = plan
        .items
        .iter()
        .position(|item| item.quantity.higher_is_better())
        .unwrap();
    let mut noisy = quiet.clone();
    noisy[noisy_index] = vec![30.0, 70.0];
    let message = entry(&noisy).unwrap_err().to_string();
    let key = &plan.items[noisy_index].key;
    assert!(
        message.starts_with(&format!("{key}: its 2 runs spread 59%")),
        "{message}"
    );
    assert!(message.contains("no baseline written"), "{message}");
    // A latency's upper bound has no such limit: noisy latency runs still write.
    let latency_index = plan
        .items
        .iter()
        .position(|item| !item.quantity.higher_is_better())
        .unwrap();
    let mut slow = quiet.clone();
    slow[latency_index] = vec![30.0, 70.0];
    let written = entry(&slow).unwrap();
    assert!(
        written.metrics[&plan.items[latency_index].key]
            .upper
            .unwrap()
            > 1.0
    );
}

fn doctor(smt: &str) -> DoctorReport {
    DoctorReport::new(vec![
        Finding::new(CheckId::Smt, Severity::Ok, smt, "", ""),
        Finding::new(
            CheckId::NodeMemory,
            Severity::Warning,
            "node 0: 1 GiB free",
            "",
            "",
        ),
    ])
}

/// The fingerprint keys the node type; memory per node beyond 2%, CPUs per
/// node and settings are differences; free memory is not.
#[test]
fn fingerprints_tell_node_types_and_what_changed() {
    let topology = load("two-socket-smt");
    let reference = node_fingerprint(&topology, &doctor("on"), "Xeon");
    let mut same = topology.clone();
    same.nodes[1].memory_total_bytes += same.nodes[1].memory_total_bytes / 100;
    assert!(differences(&node_fingerprint(&same, &doctor("on"), "Xeon"), &reference).is_empty());
    let mut dimm = topology.clone();
    dimm.nodes[1].memory_total_bytes = dimm.nodes[1].memory_total_bytes / 12 * 11;
    let changed = node_fingerprint(&dimm, &doctor("off"), "Xeon");
    assert!(changed.same_type(&reference));
    let whats: Vec<String> = differences(&changed, &reference)
        .into_iter()
        .map(|d| d.what)
        .collect();
    assert_eq!(whats, ["node 1 memory", "setting smt"]);
    let other = node_fingerprint(&topology, &doctor("on"), "EPYC");
    assert!(!other.same_type(&reference));
    // A check doctor gained since the baseline was written is not a
    // difference; a setting the baseline has and this node lacks is.
    let mut newer = doctor("on");
    newer.findings.push(Finding::new(
        CheckId::MemoryTiers,
        Severity::Ok,
        "tier 4: nodes 0-1",
        "",
        "",
    ));
    let newer = node_fingerprint(&topology, &newer, "Xeon");
    assert!(differences(&newer, &reference).is_empty());
    let whats: Vec<String> = differences(&reference, &newer)
        .into_iter()
        .map(|d| format!("{}: {}", d.what, d.measured))
        .collect();
    assert_eq!(whats, ["setting memory_tiers: not read"]);
}

fn entry_of(topology: &Machine, model: Option<MachineModel>, runs: usize) -> BaselineEntry {
    let plan = plan_check(topology, DEFAULT_BUDGET_SECONDS);
    let context = context_of(topology, model);
    measure_baseline(
        &context,
        &plan,
        runs,
        &Tolerances::default(),
        node_fingerprint(topology, &doctor("on"), "model"),
        Written::now(runs),
        &mut |_, _, _| {},
    )
    .unwrap()
}

fn context_of(topology: &Machine, model: Option<MachineModel>) -> Context {
    let mut context = Context::new(topology.clone());
    context.repeat = CHECK_REPEAT;
    context.fixed_repetitions = true;
    if let Some(model) = model {
        context.backend = Some(Arc::new(model));
    }
    context
}

/// The baseline file round-trips, and bad ones are refused saying why.
#[test]
fn baselines_round_trip_and_bad_ones_are_refused() {
    let topology = load("two-socket-smt");
    let mut baseline = Baseline::new();
    baseline.put(entry_of(
        &topology,
        Some(MachineModel::new(&topology, &[], 1)),
        3,
    ));
    let text = serde_json::to_string(&baseline).unwrap();
    let read = Baseline::parse(&text).unwrap();
    let (a, b) = (&read.entries[0], &baseline.entries[0]);
    assert_eq!(
        (&a.plan, &a.fingerprint, &a.written),
        (&b.plan, &b.fingerprint, &b.written)
    );
    for (key, reference) in &b.metrics {
        let got = &a.metrics[key];
        assert!((got.value / reference.value - 1.0).abs() < 1e-12, "{key}");
        assert_eq!(
            (got.lower, got.upper, &got.unit),
            (reference.lower, reference.upper, &reference.unit)
        );
    }
    let refused = |text: &str| Baseline::parse(text).unwrap_err().to_string();
    assert!(refused("{").contains("not JSON"));
    assert!(refused("{\"format\": \"x\"}").contains("format"));
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["version"] = 9.into();
    assert!(refused(&value.to_string()).contains("version 9"));
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["entries"][0]["metrics"]["node0.read_bandwidth"]["lower"] = 0.5.into();
    assert!(refused(&value.to_string()).contains("lower"));
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["entries"][0]["metrics"]
        .as_object_mut()
        .unwrap()
        .remove("node1.triad_bandwidth");
    assert!(refused(&value.to_string()).contains("node1.triad_bandwidth"));
    // Another node type finds no entry.
    let other = node_fingerprint(&topology, &doctor("on"), "other CPU");
    assert!(baseline.entry_for(&other).is_none());
}

/// On simulated machines (the 24-node server, the 8-node NPS4, two
/// sockets with HBM and CXL), a baseline from one healthy machine and a
/// check of another (other seeds: their own node-to-node variation and
/// noise) find nothing; a node with one memory channel of ten missing
/// (bandwidth -10%) is named by its bandwidth, and no other node is.
#[test]
fn a_simulated_check_names_the_slow_node_and_only_it() {
    for name in ["twenty-four-nodes", "amd-nps4", "two-sockets-hbm-cxl"] {
        let topology = load(name);
        let entry = entry_of(&topology, Some(MachineModel::new(&topology, &[], 100)), 5);
        let fingerprint = node_fingerprint(&topology, &doctor("on"), "model");
        let deadline = Instant::now() + Duration::from_secs(3600);
        for seed in 0..4 {
            let healthy = context_of(&topology, Some(MachineModel::new(&topology, &[], seed)));
            let report =
                run_check(&healthy, &entry, &fingerprint, 2, deadline, &mut |_| {}).unwrap();
            assert!(
                report.healthy(),
                "{name} seed {seed}: {:?}",
                report.problems
            );
            // Any node with CPUs and memory, two nodes enough: the
            // baseline, not the other nodes, is what it is compared with.
            let nodes: Vec<u32> = cpu_nodes(&topology)
                .into_iter()
                .filter(|node| memory_nodes(&topology).contains(node))
                .collect();
            let node = nodes[(seed as usize * 7 + 3) % nodes.len()];
            let fault = Fault::SlowNodeBandwidth { node };
            let faulty = context_of(
                &topology,
                Some(MachineModel::new(&topology, &[fault], seed)),
            );
            let report =
                run_check(&faulty, &entry, &fingerprint, 2, deadline, &mut |_| {}).unwrap();
            assert!(
                !report.healthy(),
                "{name} seed {seed}: node {node} not found"
            );
            for problem in &report.problems {
                assert!(
                    problem.check.starts_with(&format!("node {node} "))
                        && problem.check.contains("bandwidth"),
                    "{name} seed {seed}, fault on node {node}: {}",
                    problem.nhc_line()
                );
            }
            let failed: Vec<&Outcome> = report
                .outcomes
                .iter()
                .filter(|outcome| outcome.verdict == Verdict::Fail)
                .collect();
            assert!(failed.iter().all(|outcome| outcome.attempts.len() == 3));
        }
    }
}

/// The problem line is NHC's: `ERROR numabench: <check>: <measured> vs
/// <reference> (<tolerance>)`.
#[test]
fn problems_read_as_nhc_lines() {
    let problem = Problem {
        check: "node 1 triad bandwidth".into(),
        measured: "18.2 GB/s".into(),
        reference: "25.4 GB/s".into(),
        tolerance: "-5%".into(),
    };
    assert_eq!(
        problem.nhc_line(),
        "ERROR numabench: node 1 triad bandwidth: 18.2 GB/s vs 25.4 GB/s (-5%)"
    );
}
