//! The counts' params keep the text the map writers wrote before they were
//! typed ([`CountsParams`]): `run`'s counted runs and the applications'
//! observed runs, keys in order, integers and floats as they were, nodes
//! in numeric order.

use crate::counters::{PerfReport, ThreadUsage, Tlp};
use crate::runner::{counts_params, ProgramCounts};
use crate::runtime::{observation_params, RunObservation, WorkerUsage};
use numabench_schema::params::CountsParams;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

fn usage(tid: u32) -> ThreadUsage {
    ThreadUsage {
        tid,
        cpu: tid % 4,
        user_seconds: 1.5,
        system_seconds: 0.25,
        voluntary_switches: 3,
        involuntary_switches: 4,
    }
}

/// The map writers' shapes, as they were (the reference the types keep).
fn usage_json(usage: &ThreadUsage) -> Map<String, Value> {
    let mut object = Map::new();
    for (key, value) in [
        ("tid", json!(usage.tid)),
        ("cpu", json!(usage.cpu)),
        ("user_seconds", json!(usage.user_seconds)),
        ("system_seconds", json!(usage.system_seconds)),
        ("voluntary_switches", json!(usage.voluntary_switches)),
        ("involuntary_switches", json!(usage.involuntary_switches)),
    ] {
        object.insert(key.to_string(), value);
    }
    object
}

fn numastat_json(delta: &BTreeMap<u32, BTreeMap<String, u64>>) -> Value {
    Value::Object(
        delta
            .iter()
            .map(|(node, counters)| (node.to_string(), json!(counters)))
            .collect(),
    )
}

fn perf_json(report: &PerfReport, params: &mut Map<String, Value>) {
    params.insert("perf".into(), json!(report.counts));
    params.insert("perf_unavailable".into(), json!(report.unavailable));
    if !report.multiplexed.is_empty() {
        params.insert("perf_multiplexed".into(), json!(report.multiplexed));
    }
}

fn sample_perf(multiplexed: bool) -> PerfReport {
    let mut report = PerfReport::default();
    report.counts.insert("cycles".into(), 1000);
    report.counts.insert("instructions".into(), 2000);
    report
        .unavailable
        .insert("LLC-load-misses".into(), "no PMU".into());
    if multiplexed {
        report.multiplexed.insert("cycles".into(), 0.5);
    }
    report
}

/// Nodes 0, 2 and 10: numeric order, not text order.
fn sample_numastat() -> BTreeMap<u32, BTreeMap<String, u64>> {
    [0, 2, 10]
        .into_iter()
        .map(|node| {
            (
                node,
                BTreeMap::from([("numa_hit".to_string(), 10 + u64::from(node))]),
            )
        })
        .collect()
}

fn sample_tlp() -> Tlp {
    Tlp {
        tlp_1: 1.0,
        tlp_2: 0.5,
        tlp_3: 0.25,
        tlp_4: 0.0,
        samples: 100,
        cores: 4,
        mean_interval_ms: None,
    }
}

#[test]
fn a_counted_runs_params_keep_their_text() {
    for (tlp, vmstat, multiplexed) in [
        (
            Some(sample_tlp()),
            Some(BTreeMap::from([("pgmigrate_success".to_string(), 7)])),
            true,
        ),
        (None, None, false),
    ] {
        let counts = ProgramCounts {
            threads_usage: vec![usage(11), usage(12)],
            tlp,
            numastat_delta: sample_numastat(),
            vmstat_delta: vmstat,
            perf: sample_perf(multiplexed),
            ..ProgramCounts::default()
        };
        let mut before = Map::new();
        let threads: Vec<Value> = counts
            .threads_usage
            .iter()
            .enumerate()
            .map(|(worker, usage)| {
                let mut object = Map::new();
                object.insert("worker".into(), json!(worker));
                object.extend(usage_json(usage));
                Value::Object(object)
            })
            .collect();
        before.insert("threads_usage".into(), Value::Array(threads));
        before.insert("threads_seen".into(), json!(counts.threads_usage.len()));
        before.insert(
            "threads_usage_resolution_seconds".into(),
            json!(crate::counters::tick_seconds()),
        );
        before.insert(
            "tlp".into(),
            counts.tlp.map_or(Value::Null, |tlp| json!(tlp)),
        );
        before.insert(
            "numastat_delta".into(),
            numastat_json(&counts.numastat_delta),
        );
        before.insert("numastat_scope".into(), json!("system"));
        if let Some(delta) = &counts.vmstat_delta {
            before.insert("vmstat_delta".into(), json!(delta));
        }
        perf_json(&counts.perf, &mut before);
        let now = counts_params(&counts);
        assert_eq!(
            Value::Object(now.clone()).to_string(),
            Value::Object(before).to_string()
        );
        let typed: CountsParams = serde_json::from_value(Value::Object(now)).unwrap();
        assert_eq!(typed.threads_usage[1].usage.tid, 12);
    }
}

#[test]
fn an_observed_runs_params_keep_their_text() {
    let observation = RunObservation {
        threads_usage: vec![
            WorkerUsage {
                worker: 0,
                usage: usage(21),
            },
            WorkerUsage {
                worker: 1,
                usage: usage(22),
            },
        ],
        other_threads_usage: vec![usage(23)],
        tlp: Some(sample_tlp()),
        numastat_delta: sample_numastat(),
        vmstat_delta: None,
        perf: sample_perf(false),
        perf_per_worker: vec![BTreeMap::from([("cycles".to_string(), 500)]); 2],
    };
    let mut before = Map::new();
    let workers: Vec<Value> = observation
        .threads_usage
        .iter()
        .map(|worker| {
            let mut object = Map::new();
            object.insert("worker".into(), json!(worker.worker));
            object.extend(usage_json(&worker.usage));
            Value::Object(object)
        })
        .collect();
    before.insert("threads_usage".into(), Value::Array(workers));
    before.insert(
        "other_threads_usage".into(),
        Value::Array(
            observation
                .other_threads_usage
                .iter()
                .map(|usage| Value::Object(usage_json(usage)))
                .collect(),
        ),
    );
    before.insert(
        "threads_usage_resolution_seconds".into(),
        json!(crate::counters::tick_seconds()),
    );
    before.insert(
        "tlp".into(),
        observation.tlp.map_or(Value::Null, |tlp| json!(tlp)),
    );
    before.insert(
        "numastat_delta".into(),
        numastat_json(&observation.numastat_delta),
    );
    before.insert("numastat_scope".into(), json!("system"));
    perf_json(&observation.perf, &mut before);
    before.insert("perf_per_worker".into(), json!(observation.perf_per_worker));
    assert_eq!(
        Value::Object(observation_params(&observation)).to_string(),
        Value::Object(before).to_string()
    );
}
