//! `run --observe` timelines of one run: resident memory per node over
//! time, and which CPU each thread was on at each sample. Read through
//! the run's typed params ([`ObservationParams`]).

use crate::output::ReadRecord;
use crate::report::plot::Series;
use numabench_schema::params::{ObservationParams, RunParams};
use std::collections::BTreeMap;

/// MiB per node against seconds, one curve per node (a node missing from a
/// sample holds 0 bytes then).
pub fn memory_series(r: &ReadRecord) -> Vec<Series> {
    let observation = observation(r);
    let mut nodes: BTreeMap<u32, Vec<(f64, f64)>> = observation
        .samples
        .iter()
        .flat_map(|sample| sample.bytes_per_node.keys())
        .map(|&node| (node, Vec::new()))
        .collect();
    for sample in &observation.samples {
        for (node, points) in nodes.iter_mut() {
            let bytes = sample.bytes_per_node.get(node).copied().unwrap_or(0);
            points.push((sample.t, bytes as f64 / 1_048_576.0));
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
    let mut threads: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
    for sample in observation(r).samples {
        for (tid, cpu) in sample.thread_cpus {
            threads
                .entry(tid)
                .or_default()
                .push((sample.t, f64::from(cpu)));
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

/// The run's observation; empty where it has none (or one that does not
/// read: the run table says so).
fn observation(r: &ReadRecord) -> ObservationParams {
    r.params_or_default::<RunParams>()
        .observation
        .unwrap_or_default()
}
