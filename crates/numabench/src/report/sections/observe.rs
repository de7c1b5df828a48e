//! `run --observe` timelines of one run: resident memory per node over
//! time, and which CPU each thread was on at each sample.

use crate::output::ReadRecord;
use crate::report::plot::Series;
use serde_json::Value;
use std::collections::BTreeMap;

/// MiB per node against seconds, one curve per node (a node missing from a
/// sample holds 0 bytes then).
pub fn memory_series(r: &ReadRecord) -> Vec<Series> {
    let samples = samples(r);
    let mut nodes: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
    for sample in samples {
        if let Some(per_node) = sample.get("bytes_per_node").and_then(Value::as_object) {
            for node in per_node.keys().filter_map(|k| k.parse::<u64>().ok()) {
                nodes.entry(node).or_default();
            }
        }
    }
    for sample in samples {
        let Some(t) = sample.get("t").and_then(Value::as_f64) else {
            continue;
        };
        let per_node = sample.get("bytes_per_node");
        for (node, points) in nodes.iter_mut() {
            let bytes = per_node
                .and_then(|p| p.get(node.to_string()))
                .and_then(Value::as_f64)
                .unwrap_or(0.0);
            points.push((t, bytes / 1_048_576.0));
        }
    }
    nodes
        .into_iter()
        .map(|(node, points)| Series {
            label: format!("node {node}"),
            points,
        })
        .collect()
}

/// The CPU of each thread at each sample, one series per thread id.
pub fn thread_series(r: &ReadRecord) -> Vec<Series> {
    let mut threads: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
    for sample in samples(r) {
        let Some(t) = sample.get("t").and_then(Value::as_f64) else {
            continue;
        };
        for (tid, cpu) in sample
            .get("thread_cpus")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if let (Ok(tid), Some(cpu)) = (tid.parse::<u64>(), cpu.as_f64()) {
                threads.entry(tid).or_default().push((t, cpu));
            }
        }
    }
    threads
        .into_iter()
        .map(|(tid, points)| Series {
            label: format!("thread {tid}"),
            points,
        })
        .collect()
}

fn samples(r: &ReadRecord) -> &[Value] {
    r.params
        .get("observation")
        .and_then(|o| o.get("samples"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}
