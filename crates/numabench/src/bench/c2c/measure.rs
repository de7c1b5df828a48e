//! `c2c`: cache-to-cache transfer latency. Two threads pinned to two CPUs
//! bounce one cache line: each writes it (taking it in Modified state) and
//! waits for the other's write. Half a round trip is the one-way latency of
//! moving a modified line between those cores — what MLC's c2c latency and
//! multichase's pingpong measure.

use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::clock::Stopwatch;
use crate::interrupt::interrupted;
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::threads::{run_pinned, CpuOrder};
use crate::topology::Machine;
use numabench_schema::params::{to_params, C2cParams};
use numabench_schema::RequestedPlacement;
use std::sync::atomic::{AtomicU64, Ordering};

/// Round trips per sample.
const ROUND_TRIPS: u64 = 20_000;
/// Above this many CPUs, only representative pairs are measured.
const ALL_PAIRS_UP_TO: usize = 16;

/// A line of its own, so nothing else shares it.
#[repr(align(128))]
struct Line(AtomicU64);

/// The order the pairs' CPUs are taken in: tree order, so the first
/// CPU's partners are found nearest first (its sibling, its L2, ...).
pub const C2C_ORDER: CpuOrder = CpuOrder::Compact;

/// The CPU pairs to measure, CPUs in [`C2C_ORDER`]: every pair on small machines. Above
/// [`ALL_PAIRS_UP_TO`] CPUs, representative pairs: the first allowed CPU
/// with one partner per way two CPUs can be related (sharing its L1, i.e.
/// its SMT sibling; sharing its L2 but not its L1; its L3 but not its L2;
/// the same node with no shared cache; the same package on another node;
/// another package), then the first CPUs of every pair of nodes.
pub fn c2c_pairs(topology: &Machine) -> Vec<(u32, u32)> {
    let cpus = &C2C_ORDER.all_allowed(topology);
    if cpus.len() <= ALL_PAIRS_UP_TO {
        let mut pairs = Vec::new();
        for (index, &first) in cpus.iter().enumerate() {
            for &second in &cpus[index + 1..] {
                pairs.push((first, second));
            }
        }
        return pairs;
    }
    let first = cpus[0];
    let mut pairs = Vec::new();
    let mut relations_seen = Vec::new();
    for &other in &cpus[1..] {
        let relation = PairRelation::of(topology, first, other);
        if !relations_seen.contains(&relation) {
            relations_seen.push(relation);
            pairs.push((first, other));
        }
    }
    let firsts: Vec<u32> = topology
        .nodes
        .iter()
        .filter_map(|node| node.cpus.iter().copied().find(|cpu| cpus.contains(cpu)))
        .collect();
    for (index, &a) in firsts.iter().enumerate() {
        for &b in &firsts[index + 1..] {
            pairs.push((a.min(b), a.max(b)));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// How two CPUs are related: what a modified line crosses between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairRelation {
    /// The lowest cache level both share (1: SMT siblings of one core).
    pub shared_cache_level: Option<u32>,
    pub same_node: bool,
    pub same_package: bool,
}

impl PairRelation {
    pub fn of(topology: &Machine, a: u32, b: u32) -> Self {
        let same = |x: Option<u32>, y: Option<u32>| x.is_some() && x == y;
        Self {
            shared_cache_level: topology.shared_cache_level(a, b),
            same_node: same(topology.node_of_cpu(a), topology.node_of_cpu(b)),
            same_package: same(topology.package_of_cpu(a), topology.package_of_cpu(b)),
        }
    }
}

/// One-way latency samples (ns) between two CPUs.
pub fn measure_c2c(first: u32, second: u32, samples: usize) -> Result<Vec<f64>, BenchError> {
    let line = Line(AtomicU64::new(0));
    let results = run_pinned(&[first, second], |worker| {
        let mut one_way = Vec::with_capacity(samples);
        let mut value = 0u64;
        for _ in 0..samples + 1 {
            // Both workers run the same rounds; a failed wait means the peer is gone.
            if worker.barrier.wait().is_err() {
                break;
            }
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
        if !one_way.is_empty() {
            one_way.remove(0); // warm-up
        }
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
        let relation = PairRelation::of(topology, first, second);
        let params = C2cParams {
            cpu_a: Some(first),
            cpu_b: Some(second),
            node_a,
            node_b,
            relation: Some(
                match relation.same_node {
                    true => "same-node",
                    false => "other-node",
                }
                .to_string(),
            ),
            shared_cache: relation.shared_cache_level.map(|level| format!("L{level}")),
            same_package: Some(relation.same_package),
        };
        let requested = to_params(&RequestedPlacement::on_cpus(&[first, second]));
        pipeline.emit(&Record {
            benchmark: "c2c".into(),
            metric: "c2c_latency".into(),
            value: summary.median,
            unit: Unit::Nanoseconds,
            params: to_params(&params),
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

    #[test]
    fn large_machines_measure_one_pair_per_relation_and_per_node_pair() {
        // 2 packages x 2 L3s x 2 L2s x 2 cores x 2 SMT threads = 32 CPUs, a
        // node per package: CPU 0 shares L1 with 1, L2 with 2-3, L3 with
        // 4-7, only its node with 8-15, and nothing with 16-31.
        let topology = crate::topology::synthetic(
            "pack:2 [numa(memory=1GiB)] l3:2(size=8MiB) l2:2(size=1MiB) l1d:2(size=32KiB) core:1 pu:2",
        );
        assert_eq!(topology.allowed.cpus.len(), 32);
        assert_eq!(topology.shared_cache_level(0, 1), Some(1));
        assert_eq!(topology.shared_cache_level(0, 3), Some(2));
        assert_eq!(topology.shared_cache_level(0, 7), Some(3));
        assert_eq!(topology.shared_cache_level(0, 8), None);
        assert_eq!(
            c2c_pairs(&topology),
            [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16)]
        );
        let relation = PairRelation::of(&topology, 0, 8);
        assert!(relation.same_node && relation.same_package);
        assert!(!PairRelation::of(&topology, 0, 16).same_package);
    }
}
