//! A cluster's check records turned into a baseline per node type, and
//! compared with one: the best of a host's attempts counts, a host of
//! another node type is named, and healthy hosts are not.

use super::*;
use crate::check::{node_fingerprint, CHECK_REPEAT};
use crate::doctor::DoctorReport;
use crate::topology::fixture_tests::load;
use serde_json::json;

/// The records a measuring rank sends for `plan`: its plan record, then
/// one record per item with `value(item index)`, each tagged.
fn host_records(
    host: &str,
    rank: i64,
    fingerprint: &Fingerprint,
    plan: &CheckPlan,
    value: impl Fn(usize, &CheckItem) -> f64,
) -> Vec<Record> {
    let tag = |mut record: Record| {
        record.params.extend(to_params(&ClusterLabels {
            host: Some(host.into()),
            rank: Some(rank),
            ..ClusterLabels::default()
        }));
        record
    };
    let mut records = vec![tag(Record {
        benchmark: benchmark::CHECK.into(),
        metric: PLAN_METRIC.into(),
        value: plan.items.len() as f64,
        unit: Unit::Count,
        params: Map::from_iter([
            ("fingerprint".to_string(), json!(fingerprint)),
            ("plan".to_string(), json!(plan)),
        ]),
        placement: Placement::default(),
        stats: Summary::single(0.0),
    })];
    for (index, item) in plan.items.iter().enumerate() {
        let value = value(index, item);
        records.push(tag(Record {
            benchmark: benchmark::CHECK.into(),
            metric: "read_bandwidth".into(),
            value,
            unit: Unit::GigabytesPerSecond,
            params: Map::from_iter([("key".to_string(), json!(item.key))]),
            placement: Placement::default(),
            stats: Summary::single(value),
        }));
    }
    records
}

/// A healthy figure of `item`: 10 GB/s, or 100 ns.
fn healthy(item: &CheckItem) -> f64 {
    if item.quantity.higher_is_better() {
        10.0
    } else {
        100.0
    }
}

fn setup() -> (Fingerprint, CheckPlan) {
    let topology = load("two-socket-smt");
    let fingerprint = node_fingerprint(&topology, &DoctorReport::new(Vec::new()), "model");
    let plan = plan_check(&topology, DEFAULT_BUDGET_SECONDS);
    assert_eq!(plan.repeat, CHECK_REPEAT);
    (fingerprint, plan)
}

/// Three hosts of one type at 9.5, 10 and 10.5 (x the healthy figure):
/// one entry, every metric the median 10 with at least the floors, written
/// by the three hosts; a fourth host of another CPU model gets its own.
#[test]
fn a_baseline_holds_the_median_of_each_node_type() {
    let (fingerprint, plan) = setup();
    let mut records = Vec::new();
    for (rank, factor) in [0.95, 1.0, 1.05].into_iter().enumerate() {
        records.extend(host_records(
            &format!("h{rank}"),
            rank as i64,
            &fingerprint,
            &plan,
            |_, item| healthy(item) * factor,
        ));
    }
    let mut other = fingerprint.clone();
    other.cpu_model = "other model".into();
    records.extend(host_records("h3", 3, &other, &plan, |_, item| {
        healthy(item)
    }));
    let entries = baseline_from_records(&records, &Tolerances::default()).unwrap();
    assert_eq!(entries.len(), 2);
    let entry = &entries[0];
    assert_eq!(entry.written.host, "h0, h1, h2");
    assert_eq!(entry.written.runs, 3);
    assert_eq!(entry.plan, plan);
    assert_eq!(entry.metrics.len(), plan.items.len());
    for item in &plan.items {
        let reference = &entry.metrics[&item.key];
        assert!(
            (reference.value - healthy(item)).abs() < 1e-9,
            "{reference:?}"
        );
        // The hosts' spread (5%: MAD 0.05 x 1.4826 x 3 = 22%) is above the floors.
        let bound = reference.lower.or(reference.upper).unwrap().abs();
        assert!(bound > 0.2 && bound < 0.25, "{}: {bound}", item.key);
    }
    assert_eq!(entries[1].written.host, "h3");
    assert!(baseline_from_records(&[], &Tolerances::default()).is_err());
}

/// Two hosts of one type at 1x and 3x a bandwidth (median 2x, robust
/// deviation 74%) write no baseline: three deviations would let the
/// bandwidth fall 100% or more, a file `check` refuses. The error names
/// the node type, the metric and the hosts; a latency spread as far is
/// only an upper bound and still writes.
#[test]
fn hosts_spread_too_far_for_a_bandwidth_tolerance_write_no_baseline() {
    let (fingerprint, plan) = setup();
    let bandwidth = plan
        .items
        .iter()
        .find(|item| item.quantity.higher_is_better())
        .unwrap();
    let latency = plan
        .items
        .iter()
        .find(|item| !item.quantity.higher_is_better())
        .unwrap();
    let records_with = |spread_key: &str| {
        let mut records = Vec::new();
        for (rank, factor) in [1.0, 3.0].into_iter().enumerate() {
            records.extend(host_records(
                &format!("h{rank}"),
                rank as i64,
                &fingerprint,
                &plan,
                |_, item| healthy(item) * if item.key == spread_key { factor } else { 1.0 },
            ));
        }
        records
    };
    let error =
        baseline_from_records(&records_with(&bandwidth.key), &Tolerances::default()).unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "{}: {} spreads 74% over hosts h0, h1",
            fingerprint.node_type(),
            bandwidth.key
        )),
        "{message}"
    );
    assert!(message.contains("no baseline written"), "{message}");
    let entries =
        baseline_from_records(&records_with(&latency.key), &Tolerances::default()).unwrap();
    assert!(entries[0].metrics[&latency.key].upper.unwrap() > 1.0);
}

/// Against a baseline of healthy figures (5% and 10% floors): a host at
/// 80% of one bandwidth is named for it, in `check`'s words; a host whose
/// first attempt was slow but whose retest passed is not; a host of
/// another type is named as such; healthy hosts are not named.
#[test]
fn hosts_are_compared_with_their_node_types_entry() {
    let (fingerprint, plan) = setup();
    let mut healthy_records = Vec::new();
    for rank in 0..3 {
        healthy_records.extend(host_records(
            &format!("h{rank}"),
            rank,
            &fingerprint,
            &plan,
            |_, item| healthy(item),
        ));
    }
    let entries = baseline_from_records(&healthy_records, &Tolerances::default()).unwrap();
    let mut baseline = Baseline::new();
    for entry in entries {
        baseline.put(entry);
    }
    let slow_index = plan
        .items
        .iter()
        .position(|item| item.quantity == CheckQuantity::TriadBandwidth)
        .unwrap();
    let mut records = host_records("slow", 0, &fingerprint, &plan, |index, item| {
        healthy(item) * if index == slow_index { 0.8 } else { 1.0 }
    });
    // Slow at first, healthy when measured again.
    records.extend(host_records(
        "retested",
        1,
        &fingerprint,
        &plan,
        |_, item| healthy(item) * 0.5,
    ));
    records.extend(host_records(
        "retested",
        1,
        &fingerprint,
        &plan,
        |_, item| healthy(item),
    ));
    records.extend(host_records("fine", 2, &fingerprint, &plan, |_, item| {
        healthy(item)
    }));
    let mut other = fingerprint.clone();
    other.numa_nodes += 1;
    records.extend(host_records("odd", 3, &other, &plan, |_, item| {
        healthy(item)
    }));
    let findings = compare_with_baseline(&records, &baseline);
    let named: Vec<(&str, &str)> = findings
        .iter()
        .map(|finding| (finding.host.as_str(), finding.problem.as_str()))
        .collect();
    assert_eq!(findings.len(), 2, "{named:?}");
    assert_eq!(findings[0].host, "slow");
    let label = plan.items[slow_index].label();
    assert_eq!(
        findings[0].problem,
        format!("{label}: 8.00 GB/s vs 10.00 GB/s (-5%)")
    );
    assert_eq!(findings[1].host, "odd");
    assert!(
        findings[1]
            .problem
            .starts_with("no baseline for this node type"),
        "{named:?}"
    );
}
