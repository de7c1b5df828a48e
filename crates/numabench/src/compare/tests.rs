use super::*;
use crate::output::{Placement, Record, Unit};
use crate::stats::Sample;
use serde_json::{json, Map, Value};

fn record(benchmark: &str, metric: &str, value: f64, params: Value) -> Record {
    let params: Map<String, Value> = params.as_object().unwrap().clone();
    Record {
        benchmark: benchmark.into(),
        metric: metric.into(),
        value,
        unit: Unit::Nanoseconds,
        params,
        placement: Placement::default(),
        stats: Sample::new([value]).unwrap().summary(),
    }
}

/// A latency record as `latency --jsonl` writes it (params copied from a
/// real run), on `host`, with its machine-derived details.
fn latency(size: u64, value: f64, host: &str, cache_in_front: u64) -> Record {
    record(
        "latency",
        "latency",
        value,
        json!({"size_bytes": size, "cache_bytes_in_front": cache_in_front,
               "cache_affected": true, "cpu": 0, "cpu_node": 0, "order": "tlb-block",
               "block_bytes": 16384, "block_source": "cpuid", "hugepages": false,
               "loads_per_sample": 1000 + size, "host": host}),
    )
}

fn set(name: &str, records: Vec<Record>) -> ResultSet {
    ResultSet {
        name: name.into(),
        records,
        machine: None,
    }
}

#[test]
fn the_key_keeps_requests_and_drops_run_details() {
    let key = MeasurementKey::of(&latency(65536, 80.0, "a", 1 << 20));
    let names: Vec<&str> = key.params.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        ["cpu", "cpu_node", "hugepages", "order", "size_bytes"]
    );
    let mut app = record(
        "stream",
        "triad",
        1.0,
        json!({"threads": 2, "iteration_seconds": [0.1, 0.2], "repetition": 3,
               "pages_after_run": {"0": 5}, "user_seconds": 0.5, "placement": "local"}),
    );
    let names: Vec<String> = MeasurementKey::of(&app)
        .params
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(names, ["placement", "threads"]);
    app.params.insert("threads".into(), json!(4));
    assert_ne!(
        MeasurementKey::of(&app).identity(),
        MeasurementKey::of(&record("stream", "triad", 1.0, json!({"threads": 2}))).identity()
    );
}

#[test]
fn matches_across_machines_and_counts_what_one_set_lacks() {
    let first = set(
        "a.jsonl",
        vec![
            latency(65536, 4.0, "a", 1 << 20),
            latency(1 << 20, 10.0, "a", 1 << 20),
        ],
    );
    let mut second_records = vec![
        latency(1 << 20, 15.0, "b", 2 << 20),
        latency(65536, 5.0, "b", 2 << 20),
    ];
    second_records.push(record(
        "bandwidth",
        "read_bandwidth",
        9.0,
        json!({"threads": 1}),
    ));
    let comparison = compare(&[first, set("b.jsonl", second_records)]);
    assert_eq!(comparison.matched.len(), 2);
    // In the first set's order, whatever the second's.
    assert_eq!(comparison.matched[0].figures[0].value, 4.0);
    assert_eq!(comparison.matched[0].ratio(1), Some(5.0 / 4.0));
    assert_eq!(comparison.matched[1].ratio(1), Some(1.5));
    assert_eq!(comparison.matched[0].p_value(1), None);
    assert_eq!(comparison.unmatched[0].records, 0);
    assert_eq!(comparison.unmatched[1].records, 1);
    assert_eq!(comparison.unmatched[1].keys[0].1, 1);
    let table = render_table(&comparison);
    assert!(table.contains("1.250x"), "{table}");
    assert!(table.contains("n/a"), "{table}");
    assert!(
        table.contains("unmatched in set 2: 1 record(s) (bandwidth read_bandwidth x1)"),
        "{table}"
    );
    let records = comparison_records(&comparison);
    assert_eq!(
        records.len(),
        4,
        "two ratios and one unmatched count per set"
    );
    assert_eq!(records[1].value, 1.5);
    assert_eq!(records[1].params["baseline_value"], 10.0);
    assert_eq!(records[1].params["p_value"], Value::Null);
    assert_eq!(records[3].metric, "unmatched");
    assert_eq!(records[3].value, 1.0);
}

#[test]
fn repetitions_get_a_rank_test() {
    let runs = |name: &str, values: &[f64]| {
        set(
            name,
            values
                .iter()
                .enumerate()
                .map(|(repetition, &value)| {
                    record(
                        "run",
                        "wall_time",
                        value,
                        json!({"policy": "as-is", "repetition": repetition, "exit_code": 0}),
                    )
                })
                .collect(),
        )
    };
    let slow = [2.0, 2.1, 2.2, 2.3, 2.4];
    let comparison = compare(&[
        runs("fast", &[1.0, 1.1, 1.2, 1.3, 1.4]),
        runs("slow", &slow),
        runs("same", &[1.05, 1.15, 1.25, 1.35, 1.0]),
    ]);
    assert_eq!(comparison.matched.len(), 1);
    let matched = &comparison.matched[0];
    assert_eq!(matched.figures[1].values, slow);
    assert_eq!(
        matched.figures[1].value, 2.2,
        "the median of the repetitions"
    );
    assert!(matched.p_value(1).unwrap() < 0.05);
    assert!(matched.p_value(2).unwrap() > 0.5);
}
