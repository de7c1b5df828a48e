//! The params text of every record kind the cluster writes, pinned on the
//! map writers before they were typed: keys, order, value types, absent
//! and null as they were.

use super::check_part::{cluster_item_record, plan_params};
use super::measure::topo_params;
use super::outlier::OutlierRule;
use super::pingpong_summary::{pair_params, pingpong_summaries, PairEnd};
use super::settings::Difference;
use super::tags::{mark_attempt, mark_target, Origin};
use super::verdict::{analyze, fixtures::four_hosts_one_slow, Failure};
use super::BaselineFinding;
use crate::check::{Attempt, CheckItem, CheckPlan, CheckQuantity, Fingerprint};
use crate::doctor::{CheckId, DoctorReport, Finding, Severity};
use crate::output::{Placement, Record, Unit};
use crate::stats::Summary;
use numabench_schema::PlacementCheck;
use serde_json::{json, Map, Value};

/// The params of `records` as text, one per record.
fn texts<'a>(records: impl IntoIterator<Item = &'a Record>) -> Vec<String> {
    records
        .into_iter()
        .map(|record| Value::Object(record.params.clone()).to_string())
        .collect()
}

/// `actual` is `expected`; else (`NUMABENCH_PIN_DUMP` set) the actual
/// texts are written to `/tmp/pins/NAME` for pinning.
fn pinned(name: &str, actual: &[String], expected: &[&str]) {
    if actual != expected && std::env::var_os("NUMABENCH_PIN_DUMP").is_some() {
        std::fs::create_dir_all("/tmp/pins").unwrap();
        std::fs::write(format!("/tmp/pins/{name}"), actual.join("\n")).unwrap();
    }
    assert_eq!(actual, expected, "{name}");
}

fn bare(benchmark: &str, metric: &str, params: Map<String, Value>) -> Record {
    Record {
        benchmark: benchmark.into(),
        metric: metric.into(),
        value: 1.0,
        unit: Unit::Count,
        params,
        placement: Placement::default(),
        stats: Summary::single(1.0),
    }
}

const VERDICT: &[&str] = &[
    r#"{"unit":"c","host":"c","key":"far","record_unit":"ns","direction":"slower","target":"memory node 1","value":500.0,"median":100.5,"others_median":100.0,"others_mad":1.0,"robust_z":269.7963037906381,"relative":4.0,"units":4,"mad_k":3.0,"min_deviation":0.1}"#,
    r#"{"unit":"c","host":"c","key":"latency local","record_unit":"ns","direction":"slower","target":null,"value":300.0,"median":90.5,"others_median":90.0,"others_mad":1.0,"robust_z":141.643059490085,"relative":2.3333333333333335,"units":4,"mad_k":3.0,"min_deviation":0.1}"#,
    r#"{"unit":"c","host":"c","key":"triad node 0","record_unit":"GB/s","direction":"slower","target":null,"value":3.0,"median":9.95,"others_median":10.0,"others_mad":0.09999999999999964,"robust_z":47.21435316336183,"relative":-0.7,"units":4,"mad_k":3.0,"min_deviation":0.1}"#,
    r#"{"host":"b","setting":"doctor.thp","value":"never","majority":"madvise","majority_hosts":3}"#,
    r#"{"host":"c","setting":"numa_nodes","value":2,"majority":null,"majority_hosts":0}"#,
    r#"{"host":"e","rank":4,"part":"stream","error":"no memory"}"#,
    r#"{"host":"f","rank":5,"part":null,"error":"silent"}"#,
    r#"{"host":"c","rank":2,"problem":"node 0 triad bandwidth: 3.00 GB/s vs 10.0 GB/s (-5%)"}"#,
    r#"{"units":4,"hosts":4,"outliers":3,"differing":2,"failed":2,"baseline_problems":1,"retested":["c (stream)"],"idle_ranks":["a (rank 6)"],"notes":[],"mad_k":3.0,"min_deviation":0.1}"#,
];

/// Every kind of verdict record: an outlier with and without a target, a
/// differing setting with and without a majority, a failure with and
/// without its part, a baseline problem, the verdict.
#[test]
fn the_verdict_records_keep_their_params_text() {
    let mut records = four_hosts_one_slow();
    let mut remote = super::verdict::fixtures::tagged("c", "far", 500.0, Unit::Nanoseconds);
    mark_target(&mut remote, "memory node 1");
    records.push(remote);
    for (host, value) in [("a", 100.0), ("b", 101.0), ("d", 99.0)] {
        let mut record = super::verdict::fixtures::tagged(host, "far", value, Unit::Nanoseconds);
        mark_target(&mut record, "memory node 1");
        records.push(record);
    }
    let failures = vec![
        Failure {
            host: "e".into(),
            rank: 4,
            part: Some("stream".into()),
            error: "no memory".into(),
        },
        Failure {
            host: "f".into(),
            rank: 5,
            part: None,
            error: "silent".into(),
        },
    ];
    let rule = OutlierRule::default();
    let mut verdict = analyze(&records, failures, vec!["a (rank 6)".into()], &rule);
    verdict.differences = vec![
        Difference {
            host: "b".into(),
            setting: "doctor.thp".into(),
            value: json!("never"),
            majority: Some(json!("madvise")),
            majority_hosts: 3,
        },
        Difference {
            host: "c".into(),
            setting: "numa_nodes".into(),
            value: json!(2),
            majority: None,
            majority_hosts: 0,
        },
    ];
    verdict.baseline = vec![BaselineFinding {
        host: "c".into(),
        rank: 2,
        problem: "node 0 triad bandwidth: 3.00 GB/s vs 10.0 GB/s (-5%)".into(),
    }];
    verdict.retested = vec!["c (stream)".into()];
    pinned("VERDICT", &texts(&verdict.records(&rule)), VERDICT);
}

const TAGGED: &[&str] = &[
    r#"{"size_bytes":4096,"cluster_target":"memory node 2","host":"h1","rank":3,"unit":"h1/node 0","part":"latency","cluster_key":"latency remote, distance 21"}"#,
    r#"{"host":"h1","rank":3,"unit":"h1","part":"stream","cluster_key":"triad_bandwidth node 0","attempt":2}"#,
    r#"{"host":"h1","rank":3,"unit":"h1","part":"latency"}"#,
];

/// A part's record tagged: its own params, its target, the tags (with and
/// without a key), a retest's attempt.
#[test]
fn a_tagged_record_keeps_its_params_text() {
    let origin = Origin {
        host: "h1".into(),
        rank: 3,
    };
    let mut first = bare(
        "latency",
        "latency",
        Map::from_iter([("size_bytes".to_string(), json!(4096))]),
    );
    mark_target(&mut first, "memory node 2");
    origin.tag(
        &mut first,
        "h1/node 0",
        "latency",
        Some("latency remote, distance 21".into()),
    );
    let mut retest = bare("bandwidth", "triad_bandwidth", Map::new());
    origin.tag(
        &mut retest,
        "h1",
        "stream",
        Some("triad_bandwidth node 0".into()),
    );
    mark_attempt(&mut retest, 2);
    let mut unkeyed = bare("latency", "latency_cycles", Map::new());
    origin.tag(&mut unkeyed, "h1", "latency", None);
    pinned("TAGGED", &texts([&first, &retest, &unkeyed]), TAGGED);
}

const TOPO: &[&str] = &[
    r#"{"settings":{"cpus":4,"cores":4,"numa_nodes":2,"cpuless_nodes":0,"memory_total_bytes":2147483648,"doctor.numa_balancing":"warning: kernel.numa_balancing = 1 (on)","doctor.node_memory":"ok"},"doctor_warnings":1,"allowed_cpus":[0,1,2,3]}"#,
];

/// The `topo` record: settings (a doctor finding's as text, a
/// severity-only one as its severity), warnings, allowed CPUs.
#[test]
fn the_topo_record_keeps_its_params_text() {
    let topology = crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
    let doctor = DoctorReport {
        schema_version: 1,
        status: "warnings".into(),
        warnings: 1,
        not_checked: 0,
        findings: vec![
            Finding::new(
                CheckId::NumaBalancing,
                Severity::Warning,
                "kernel.numa_balancing = 1 (on)",
                "why",
                "advice",
            ),
            Finding::new(CheckId::NodeMemory, Severity::Ok, "free: 1 GiB", "why", ""),
        ],
    };
    let record = bare(
        "cluster-topo",
        "numa_nodes",
        topo_params(&topology, &doctor),
    );
    pinned("TOPO", &texts([&record]), TOPO);
}

const PINGPONG: &[&str] = &[
    r#"{"unit_a":"h0/rank 0","unit_b":"h1/rank 1","host_a":"h0","host_b":"h1","rank_a":0,"rank_b":1,"same_host":false,"message_bytes":8,"round_trips":1000,"pair_rule":"every pair of participants","host":"h0","rank":0,"unit":"h0/rank 0","part":"pingpong"}"#,
    r#"{"host":"h0","rank":0,"unit":"h0/rank 0","part":"pingpong","cluster_key":"pingpong latency","same_host":false,"partners":1,"message_bytes":8,"round_trips":1000}"#,
    r#"{"host":"h1","rank":1,"unit":"h1/rank 1","part":"pingpong","cluster_key":"pingpong latency","same_host":false,"partners":2,"message_bytes":8,"round_trips":1000}"#,
    r#"{"host":"h0","rank":0,"unit":"h0/rank 0","part":"pingpong","cluster_key":"pingpong same-host latency","same_host":true,"partners":1,"message_bytes":8,"round_trips":1000}"#,
    r#"{"host":"h0","rank":2,"unit":"h0/rank 2","part":"pingpong","cluster_key":"pingpong same-host latency","same_host":true,"partners":1,"message_bytes":8,"round_trips":1000}"#,
    r#"{"host":"h0","rank":2,"unit":"h0/rank 2","part":"pingpong","cluster_key":"pingpong latency","same_host":false,"partners":1,"message_bytes":8,"round_trips":1000}"#,
    r#"{"host":"a","rank":null,"unit":"a","part":"pingpong","cluster_key":"pingpong bandwidth","same_host":false,"partners":1}"#,
    r#"{"host":"b","rank":null,"unit":"b","part":"pingpong","cluster_key":"pingpong bandwidth","same_host":false,"partners":1}"#,
];

/// A ping-pong pair record (as the measuring end tags it) and the
/// best-partner summaries, across hosts and on one host, with and
/// without the pair's message size.
#[test]
fn the_pingpong_records_keep_their_params_text() {
    let pair = |a: (&str, usize), b: (&str, usize), value: f64| {
        let params = pair_params(
            [
                PairEnd {
                    unit: format!("{}/rank {}", a.0, a.1),
                    host: a.0,
                    rank: a.1,
                },
                PairEnd {
                    unit: format!("{}/rank {}", b.0, b.1),
                    host: b.0,
                    rank: b.1,
                },
            ],
            8,
            1000,
            "every pair of participants",
        );
        let mut record = bare("mpi-pingpong", "latency", params);
        record.value = value;
        record.unit = Unit::Nanoseconds;
        Origin {
            host: a.0.into(),
            rank: a.1 as i32,
        }
        .tag(
            &mut record,
            &format!("{}/rank {}", a.0, a.1),
            "pingpong",
            None,
        );
        record
    };
    let pairs = vec![
        pair(("h0", 0), ("h1", 1), 1500.0),
        pair(("h0", 0), ("h0", 2), 300.0),
        pair(("h1", 1), ("h0", 2), 1400.0),
    ];
    let mut old = bare(
        "mpi-pingpong",
        "bandwidth",
        Map::from_iter([
            ("unit_a".to_string(), json!("a")),
            ("unit_b".to_string(), json!("b")),
            ("host_a".to_string(), json!("a")),
            ("host_b".to_string(), json!("b")),
        ]),
    );
    old.unit = Unit::GigabytesPerSecond;
    let mut all = pairs.clone();
    all.push(old);
    let summaries = pingpong_summaries(&all);
    let mut records: Vec<&Record> = pairs.iter().take(1).collect();
    records.extend(&summaries);
    pinned("PINGPONG", &texts(records), PINGPONG);
}

const CHECK_PART: &[&str] = &[
    r#"{"fingerprint":{"cpu_model":"cpu","packages":1,"numa_nodes":1,"cpus_per_node":{"node0":2},"memory_per_node_bytes":{"node0":1073741824},"settings":{"thp":"ok: madvise"}},"node_type":"cpu, 1 package(s), 1 NUMA node(s)","plan":{"items":[{"key":"node0.triad_bandwidth","quantity":"triad_bandwidth","cpu_node":0,"memory_node":0,"cpus":[0,1],"size":16777216,"cache_affected":false}],"repeat":11,"latency_samples":5,"estimated_seconds":1.5,"budget_seconds":30.0},"plan_from_baseline":false}"#,
    r#"{"fingerprint":{"cpu_model":"cpu","packages":1,"numa_nodes":1,"cpus_per_node":{"node0":2},"memory_per_node_bytes":{"node0":1073741824},"settings":{"thp":"ok: madvise"}},"node_type":"cpu, 1 package(s), 1 NUMA node(s)","plan":{"items":[{"key":"node0.triad_bandwidth","quantity":"triad_bandwidth","cpu_node":0,"memory_node":0,"cpus":[0,1],"size":16777216,"cache_affected":false}],"repeat":11,"latency_samples":5,"estimated_seconds":1.5,"budget_seconds":30.0},"plan_from_baseline":true}"#,
    r#"{"key":"node0.triad_bandwidth","check":"node 0 triad bandwidth","node":0,"cpu_node":0,"threads":2,"size_bytes":16777216,"quantity":"triad_bandwidth","cache_affected":false}"#,
];

/// The check part's plan record (from `check`'s plan and from a
/// baseline's) and an item's record with what the cluster compares.
#[test]
fn the_check_part_records_keep_their_params_text() {
    let fingerprint = Fingerprint {
        cpu_model: "cpu".into(),
        packages: 1,
        numa_nodes: 1,
        cpus_per_node: [("node0".to_string(), 2)].into_iter().collect(),
        memory_per_node_bytes: [("node0".to_string(), 1u64 << 30)].into_iter().collect(),
        settings: [("thp".to_string(), "ok: madvise".to_string())]
            .into_iter()
            .collect(),
    };
    let item = CheckItem {
        key: "node0.triad_bandwidth".into(),
        quantity: CheckQuantity::TriadBandwidth,
        cpu_node: 0,
        memory_node: 0,
        cpus: vec![0, 1],
        size: 16 << 20,
        cache_affected: false,
    };
    let plan = CheckPlan {
        items: vec![item.clone()],
        repeat: 11,
        latency_samples: 5,
        estimated_seconds: 1.5,
        budget_seconds: 30.0,
    };
    let attempt = Attempt {
        value: 10.5,
        repetitions: vec![10.0, 10.5],
        placement: PlacementCheck {
            moved: None,
            pages: 4096,
            pages_per_node: [(0, 4096)].into_iter().collect(),
            fraction_as_requested: 1.0,
            achieved: true,
            huge_pages: None,
        },
    };
    let records = [
        bare(
            "check",
            "check_plan",
            plan_params(&fingerprint, &plan, false),
        ),
        bare(
            "check",
            "check_plan",
            plan_params(&fingerprint, &plan, true),
        ),
        cluster_item_record(&item, &attempt),
    ];
    pinned("CHECK_PART", &texts(&records), CHECK_PART);
}
