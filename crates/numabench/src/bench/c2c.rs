//! `c2c`: cache-to-cache transfer latency. Two threads pinned to two CPUs
//! bounce one cache line: each writes it (taking it in Modified state) and
//! waits for the other's write. Half a round trip is the one-way latency of
//! moving a modified line between those cores — what MLC's c2c latency and
//! multichase's pingpong measure.

use super::clock::Stopwatch;
use super::context::Context;
use super::error::BenchError;
use super::interrupt::interrupted;
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::threads::run_pinned;
use crate::topology::TopologyReport;
use serde_json::{json, Map};
use std::sync::atomic::{AtomicU64, Ordering};

/// Round trips per sample.
const ROUND_TRIPS: u64 = 20_000;
/// Above this many CPUs, only representative pairs are measured.
const ALL_PAIRS_UP_TO: usize = 16;

/// A line of its own, so nothing else shares it.
#[repr(align(128))]
struct Line(AtomicU64);

/// The CPU pairs to measure: every pair on small machines; otherwise the
/// first allowed CPU with its next two CPUs (same core or core complex on
/// most machines) and with the first CPU of every other node, plus the
/// first CPUs of every pair of nodes.
pub fn c2c_pairs(topology: &TopologyReport) -> Vec<(u32, u32)> {
    let cpus = &topology.allowed.cpus;
    if cpus.len() <= ALL_PAIRS_UP_TO {
        let mut pairs = Vec::new();
        for (index, &first) in cpus.iter().enumerate() {
            for &second in &cpus[index + 1..] {
                pairs.push((first, second));
            }
        }
        return pairs;
    }
    let firsts: Vec<u32> = topology
        .nodes
        .iter()
        .filter_map(|node| node.cpus.iter().copied().find(|cpu| cpus.contains(cpu)))
        .collect();
    let mut pairs: Vec<(u32, u32)> = cpus
        .iter()
        .skip(1)
        .take(2)
        .map(|&cpu| (cpus[0], cpu))
        .collect();
    for (index, &a) in firsts.iter().enumerate() {
        for &b in &firsts[index + 1..] {
            pairs.push((a, b));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// One-way latency samples (ns) between two CPUs.
pub fn measure_c2c(first: u32, second: u32, samples: usize) -> Result<Vec<f64>, BenchError> {
    let line = Line(AtomicU64::new(0));
    let results = run_pinned(&[first, second], |worker| {
        let mut one_way = Vec::with_capacity(samples);
        let mut value = 0u64;
        for _ in 0..samples + 1 {
            worker.barrier.wait();
            let stopwatch = Stopwatch::start();
            for _ in 0..ROUND_TRIPS {
                if worker.index == 0 {
                    line.0.store(value + 1, Ordering::Release);
                    while line.0.load(Ordering::Acquire) != value + 2 {
                        std::hint::spin_loop();
                    }
                } else {
                    while line.0.load(Ordering::Acquire) != value + 1 {
                        std::hint::spin_loop();
                    }
                    line.0.store(value + 2, Ordering::Release);
                }
                value += 2;
            }
            one_way.push(stopwatch.seconds() * 1e9 / (2 * ROUND_TRIPS) as f64);
        }
        one_way.remove(0); // warm-up
        one_way
    })?;
    Ok(results.into_iter().next().expect("the pinging worker"))
}

/// A CPU pair and its one-way latency (median, ns).
pub type PairLatency = ((u32, u32), f64);

/// Measures every pair of [`c2c_pairs`] and emits a `c2c_latency` record each.
pub fn run_c2c(context: &Context, pipeline: &mut Pipeline) -> Result<Vec<PairLatency>, BenchError> {
    let topology = &context.topology;
    let mut measured = Vec::new();
    for (first, second) in c2c_pairs(topology) {
        if interrupted() {
            break;
        }
        let samples = measure_c2c(first, second, context.repeat.max(1))?;
        let Ok(sample) = Sample::new(samples) else {
            continue;
        };
        let summary = sample.summary();
        let (node_a, node_b) = (topology.node_of_cpu(first), topology.node_of_cpu(second));
        let mut params = Map::new();
        params.insert("cpu_a".into(), json!(first));
        params.insert("cpu_b".into(), json!(second));
        params.insert("node_a".into(), json!(node_a));
        params.insert("node_b".into(), json!(node_b));
        params.insert(
            "relation".into(),
            json!(if node_a == node_b {
                "same-node"
            } else {
                "other-node"
            }),
        );
        let mut requested = Map::new();
        requested.insert("cpus".into(), json!([first, second]));
        pipeline.emit(&Record {
            benchmark: "c2c".into(),
            metric: "c2c_latency".into(),
            value: summary.median,
            unit: Unit::Nanoseconds,
            params,
            placement: Placement {
                requested,
                verified: None,
            },
            stats: summary,
        })?;
        measured.push(((first, second), summary.median));
    }
    Ok(measured)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_machines_measure_every_pair() {
        let topology = crate::topology::discover_this_system().unwrap();
        let pairs = c2c_pairs(&topology);
        let n = topology.allowed.cpus.len();
        assert_eq!(pairs.len(), n * (n - 1) / 2);
    }
}
