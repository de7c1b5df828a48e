use super::*;
use crate::output::{Placement, Record, Unit};
use crate::stats::Sample;
use serde_json::{json, Map, Value};

fn record(benchmark: &str, metric: &str, value: f64, params: Value) -> Record {
    let params: Map<String, Value> = params.as_object().unwrap().clone();
    Record::of_median(
        benchmark,
        metric,
        Unit::Nanoseconds,
        Sample::new([value]).unwrap().summary(),
        params,
        Placement::default(),
    )
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

/// A set of `run` records of `values`, one repetition each.
fn runs(name: &str, values: &[f64]) -> ResultSet {
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
}

/// `b.jsonl`: the two latencies of `a.jsonl`'s sizes in the other order,
/// and a bandwidth record no other set has.
fn second_machine() -> ResultSet {
    set(
        "b.jsonl",
        vec![
            latency(1 << 20, 15.0, "b", 2 << 20),
            latency(65536, 5.0, "b", 2 << 20),
            record("bandwidth", "read_bandwidth", 9.0, json!({"threads": 1})),
        ],
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
    let comparison = compare(&[first, second_machine()]);
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

/// A `matrix-latency` cell (params as characterize writes them).
fn cell(cpu_node: u64, mem_node: u64, distance: u64, value: f64) -> Record {
    record(
        "matrix-latency",
        "latency",
        value,
        json!({"cpu_node": cpu_node, "mem_node": mem_node, "slit_distance": distance,
               "size_bytes": 1u64 << 28, "cache_level": "memory", "cpu": cpu_node * 2}),
    )
}

/// Local is the diagonal; of each row's other cells those at the row's
/// smallest distance are the nearest remote, those at its largest the
/// farthest (the four-node VM's asymmetric SLIT rows); a two-node row's
/// one remote cell is both.
#[test]
fn matrix_cells_take_their_rank_by_row_distance() {
    let four = [
        cell(0, 0, 10, 100.0),
        cell(0, 1, 21, 150.0),
        cell(0, 2, 31, 170.0),
        cell(0, 3, 32, 200.0),
        cell(1, 0, 24, 210.0),
        cell(1, 1, 10, 110.0),
        cell(1, 3, 17, 140.0),
    ];
    let roles = roles::roles(&four);
    assert_eq!(roles[0], ["DRAM latency local"]);
    assert_eq!(roles[1], ["DRAM latency remote (nearest)"]);
    assert!(roles[2].is_empty(), "a distance between: {:?}", roles[2]);
    assert_eq!(roles[3], ["DRAM latency remote (farthest)"]);
    assert_eq!(roles[4], ["DRAM latency remote (farthest)"]);
    assert_eq!(roles[6], ["DRAM latency remote (nearest)"]);
    let two = [cell(0, 0, 10, 90.0), cell(0, 1, 21, 180.0)];
    let comparison = compare_by_role(&[set("four", four.to_vec()), set("two", two.to_vec())]);
    let matched: Vec<(String, f64, f64)> = comparison
        .matched
        .iter()
        .map(|m| {
            (
                m.key.params[0].1.as_str().unwrap().to_string(),
                m.figures[0].value,
                m.figures[1].value,
            )
        })
        .collect();
    assert_eq!(
        matched,
        [
            ("DRAM latency local".to_string(), 105.0, 90.0),
            ("DRAM latency remote (nearest)".to_string(), 145.0, 180.0),
            ("DRAM latency remote (farthest)".to_string(), 205.0, 180.0),
        ]
    );
    // 0 -> 2 (distance 31) has no role: unmatched.
    assert_eq!(comparison.unmatched[0].records, 1);
    assert_eq!(comparison.unmatched[1].records, 0);
    let records = comparison_records(&comparison);
    assert_eq!(records[0].params["role"], "DRAM latency local");
    assert_eq!(records[0].params["matched_by"], "role");
    assert_eq!(records[0].params["p_value"], Value::Null);
}

/// The sweep's levels: a cache level by its middle size (the lower of
/// two), DRAM by its largest; records without `cache_level` are DRAM when not
/// cache-affected. Two machines' different sizes then match level by level.
#[test]
fn latency_levels_match_across_sweep_sizes() {
    let sweep = |sizes: &[(u64, &str, f64)]| -> Vec<Record> {
        sizes
            .iter()
            .map(|&(size, level, value)| {
                record(
                    "latency",
                    "latency",
                    value,
                    json!({"size_bytes": size, "cache_level": level, "cpu": 0, "cpu_node": 0}),
                )
            })
            .collect()
    };
    let a = sweep(&[
        (16384, "L1", 1.0),
        (65536, "L2", 4.0),
        (262144, "L2", 5.0),
        (1 << 26, "memory", 90.0),
        (1 << 28, "memory", 95.0),
    ]);
    let mut b = sweep(&[(8192, "L1", 2.0), (131072, "L2", 8.0)]);
    b.push(latency(1 << 30, 190.0, "b", 1 << 20));
    b[2].params.insert("cache_affected".into(), json!(false));
    let comparison = compare_by_role(&[set("a", a), set("b", b)]);
    let values: Vec<(f64, f64)> = comparison
        .matched
        .iter()
        .map(|m| (m.figures[0].value, m.figures[1].value))
        .collect();
    assert_eq!(values, [(1.0, 2.0), (4.0, 8.0), (95.0, 190.0)]);
    assert_eq!(comparison.unmatched[0].records, 2, "L2 256K and DRAM 64M");
}

/// Auto: exact for one machine, role for two; without metadata, role only
/// when exact matching leaves most of a set unmatched.
#[test]
fn auto_matches_by_role_only_across_machines() {
    let named = |machine: &str| ResultSet {
        machine: Some(machine.into()),
        ..set("x", vec![latency(65536, 4.0, "a", 1 << 20)])
    };
    assert_eq!(MatchBy::choose(&[named("a"), named("a")]), MatchBy::Exact);
    assert_eq!(MatchBy::choose(&[named("a"), named("b")]), MatchBy::Role);
    let same = || set("x", vec![latency(65536, 4.0, "a", 1 << 20)]);
    assert_eq!(MatchBy::choose(&[same(), same()]), MatchBy::Exact);
    let other = set("y", vec![latency(131072, 4.0, "b", 1 << 21)]);
    assert_eq!(MatchBy::choose(&[same(), other]), MatchBy::Role);
}

/// A sampled matrix's cell matches the same cell of another run whether
/// each run measured it or inferred it, whatever class and seed drew it:
/// `cell`, `cell_class`, `class_cells`, `class_seed` and `inferred_from`
/// used to be part of the key, and two default runs (seeded from the
/// clock) matched no cell.
#[test]
fn sampled_matrix_cells_match_however_they_were_drawn() {
    let cell = |value: f64, how: &str, class: u64, seed: u64| {
        record(
            "matrix-latency",
            "latency",
            value,
            json!({"cpu_node": 0, "mem_node": 5, "size_bytes": 1 << 26, "slit_distance": 32,
                   "cell": how, "cell_class": class, "class_cells": 96, "class_seed": seed}),
        )
    };
    let mut inferred = cell(200.0, "inferred", 3, 7);
    inferred.params.insert(
        "inferred_from".into(),
        json!({"cpu_node": 0, "mem_node": 6}),
    );
    assert_eq!(
        MeasurementKey::of(&cell(201.0, "measured", 2, 1)),
        MeasurementKey::of(&inferred)
    );
}

/// The map writer of the comparison records as it was before their params
/// were typed: the wire the typed writer must keep, text for text.
fn records_as_the_map_writer_wrote_them(comparison: &Comparison) -> Vec<String> {
    let mut texts = Vec::new();
    for matched in &comparison.matched {
        for index in 1..matched.figures.len() {
            if matched.ratio(index).is_none() {
                continue;
            }
            let mut params = Map::new();
            params.insert("benchmark".into(), json!(matched.key.benchmark));
            for (name, value) in &matched.key.params {
                params.insert(name.clone(), value.clone());
            }
            params.insert("unit".into(), json!(matched.key.unit));
            params.insert("set".into(), json!(index + 1));
            params.insert("file".into(), json!(comparison.sets[index]));
            params.insert("baseline_file".into(), json!(comparison.sets[0]));
            params.insert("set_value".into(), json!(matched.figures[index].value));
            params.insert("baseline_value".into(), json!(matched.figures[0].value));
            params.insert(
                "repetitions".into(),
                json!([
                    matched.figures[0].values.len(),
                    matched.figures[index].values.len()
                ]),
            );
            let p_value = match comparison.by {
                MatchBy::Exact => matched.p_value(index),
                MatchBy::Role => None,
            };
            params.insert("p_value".into(), json!(p_value));
            params.insert("matched_by".into(), json!(comparison.by.name()));
            texts.push(Value::Object(params).to_string());
        }
    }
    for (index, _) in comparison.unmatched.iter().enumerate() {
        let mut params = Map::new();
        params.insert("set".into(), json!(index + 1));
        params.insert("file".into(), json!(comparison.sets[index]));
        params.insert("matched_by".into(), json!(comparison.by.name()));
        texts.push(Value::Object(params).to_string());
    }
    texts
}

/// The typed writer's records keep the map writer's text (keys, order,
/// integers and floats, nulls): latencies of two machines with a record
/// only one set has, and runs with repetitions (a p-value); and they read
/// back as their types.
#[test]
fn comparison_records_keep_their_params_text() {
    let comparisons = [
        compare(&[
            set(
                "a.jsonl",
                vec![
                    latency(65536, 4.0, "a", 1 << 20),
                    latency(1 << 20, 10.0, "a", 1 << 20),
                ],
            ),
            second_machine(),
        ]),
        compare(&[
            runs("x.jsonl", &[1.0, 1.1, 1.2, 1.05]),
            runs("y.jsonl", &[2.0, 2.1, 2.2, 2.05]),
        ]),
    ];
    for comparison in &comparisons {
        let records = comparison_records(comparison);
        let texts: Vec<String> = records
            .iter()
            .map(|r| Value::Object(r.params.clone()).to_string())
            .collect();
        assert_eq!(texts, records_as_the_map_writer_wrote_them(comparison));
        for r in &records {
            match r.metric.as_str() {
                numabench_schema::params::UNMATCHED => {
                    r.params_as::<numabench_schema::params::CompareUnmatchedParams>()
                        .unwrap();
                }
                _ => {
                    let typed = r
                        .params_as::<numabench_schema::params::CompareRatioParams>()
                        .unwrap();
                    assert_eq!(
                        Value::Object(to_params_of(&typed)),
                        Value::Object(r.params.clone())
                    );
                }
            }
        }
    }
    assert!(!comparisons[1].matched.is_empty());
}

fn to_params_of<T: serde::Serialize>(value: &T) -> Map<String, Value> {
    numabench_schema::params::to_params(value)
}
