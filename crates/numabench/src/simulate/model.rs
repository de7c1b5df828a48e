//! A model of a machine that answers the measurements instead of the
//! hardware ([`crate::bench::Backend`]): latency and bandwidth from the
//! topology (SLIT distance, cache level, memory kind), a fixed per-node
//! and per-CPU variation, seeded noise per repetition, and planted
//! faults. The figures are plausible, not any machine's: the model exists
//! to prove that characterize's plan, sampling and findings name a fault
//! that is there and name none that is not.

use super::faults::Fault;
use crate::bench::{
    Backend, BandwidthConfig, BandwidthResult, BenchError, Context, LatencyConfig,
    LatencyMeasurement,
};
use crate::kernels::{mix, SplitMix64};
use crate::kernels::{ChaseBlock, SimdChoice, SimdLevel};
use crate::output::PlacementCheck;
use crate::stats::Sample;
use crate::topology::Machine;
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

/// Relative spread of one latency repetition.
pub const LATENCY_NOISE: f64 = 0.01;
/// Relative spread of one bandwidth repetition.
pub const BANDWIDTH_NOISE: f64 = 0.03;
/// Relative spread of healthy nodes' figures around the model's.
pub const NODE_SPREAD: f64 = 0.005;
/// Relative spread of healthy CPUs' figures around their node's.
pub const CPU_SPREAD: f64 = 0.005;

/// Local DRAM latency, ns.
const LOCAL_NS: f64 = 90.0;
/// One thread's local DRAM read bandwidth, GB/s.
const THREAD_GBS: f64 = 12.0;
/// A node's memory saturates at this many threads' worth of bandwidth.
const NODE_THREADS: f64 = 8.0;

/// What a fault does to the figures, in one place.
const NODE_LATENCY_FAULT: f64 = 1.08;
const NODE_BANDWIDTH_FAULT: f64 = 0.90;
const CPU_BANDWIDTH_FAULT: f64 = 0.80;
const PAIR_LATENCY_FAULT: f64 = 1.15;
const MISSING_DIMM_BANDWIDTH: f64 = 0.92;

/// A simulated machine: its topology (a missing DIMM shrinks its node),
/// the fixed variation of its nodes and CPUs, its faults, and the noise
/// generator every repetition draws from.
#[derive(Debug)]
pub struct MachineModel {
    topology: Machine,
    faults: Vec<Fault>,
    node_factor: HashMap<u32, (f64, f64)>,
    cpu_factor: HashMap<u32, (f64, f64)>,
    /// Each CPU's node (the topology's answer, kept: asked per thread).
    cpu_node: HashMap<u32, u32>,
    noise: Mutex<SplitMix64>,
}

impl MachineModel {
    /// The model of `topology` with `faults`, its variation and noise
    /// drawn from `seed`.
    pub fn new(topology: &Machine, faults: &[Fault], seed: u64) -> Self {
        let mut topology = topology.clone();
        for fault in faults {
            if let Fault::MissingDimm { node } = fault {
                if let Some(info) = topology.nodes.iter_mut().find(|info| info.index == *node) {
                    info.memory_total_bytes = info.memory_total_bytes / 12 * 11;
                }
            }
        }
        let mut rng = SplitMix64::new(mix(seed ^ 0x51A7_0DE1));
        let mut spread = |sigma: f64| {
            (
                1.0 + sigma * rng.normal().clamp(-3.0, 3.0),
                1.0 + sigma * rng.normal().clamp(-3.0, 3.0),
            )
        };
        let node_factor = topology
            .nodes
            .iter()
            .map(|node| (node.index, spread(NODE_SPREAD)))
            .collect();
        let cpu_factor = topology
            .nodes
            .iter()
            .flat_map(|node| node.cpus.clone())
            .map(|cpu| (cpu, spread(CPU_SPREAD)))
            .collect();
        let cpu_node = topology
            .nodes
            .iter()
            .flat_map(|node| node.cpus.iter().map(move |&cpu| (cpu, node.index)))
            .collect();
        Self {
            cpu_node,
            topology,
            faults: faults.to_vec(),
            node_factor,
            cpu_factor,
            noise: Mutex::new(SplitMix64::new(mix(seed ^ 0x0415_E5EE))),
        }
    }

    /// The machine as the model has it (a missing DIMM's node smaller).
    pub fn topology(&self) -> &Machine {
        &self.topology
    }

    fn node(&self, node: u32) -> (f64, f64) {
        self.node_factor.get(&node).copied().unwrap_or((1.0, 1.0))
    }

    fn cpu(&self, cpu: u32) -> (f64, f64) {
        self.cpu_factor.get(&cpu).copied().unwrap_or((1.0, 1.0))
    }

    /// Distance factor from `cpu`'s node to `node`: SLIT over 10, or 1.7
    /// for another node where the firmware declares none.
    fn distance(&self, cpu: u32, node: u32) -> f64 {
        let from = self.cpu_node.get(&cpu).copied();
        match from.and_then(|from| self.topology.distance(from, node)) {
            Some(distance) => distance as f64 / 10.0,
            None if from == Some(node) => 1.0,
            None => 1.7,
        }
    }

    fn kind(&self, node: u32) -> Option<&str> {
        self.topology
            .nodes
            .iter()
            .find(|info| info.index == node)
            .and_then(|info| info.kind.as_deref())
    }

    /// Idle DRAM latency from `cpu` to `node`'s memory, ns, noise-free.
    pub fn memory_latency(&self, cpu: u32, node: u32) -> f64 {
        let kind = match self.kind(node) {
            Some("HBM") => 1.1,
            Some("NVM") => 3.0,
            _ => 1.0,
        };
        let mut ns = LOCAL_NS * self.distance(cpu, node).powf(0.8) * kind;
        ns *= self.node(node).0 * self.cpu(cpu).0;
        let cpu_node = self.cpu_node.get(&cpu).copied();
        for fault in &self.faults {
            match *fault {
                Fault::SlowNodeLatency { node: slow } if slow == node => ns *= NODE_LATENCY_FAULT,
                Fault::SlowPairLatency {
                    cpu_node: a,
                    mem_node: b,
                } if Some(a) == cpu_node && b == node => ns *= PAIR_LATENCY_FAULT,
                _ => {}
            }
        }
        ns
    }

    /// Latency of a chase of `size` bytes from `cpu` over `nodes`, ns,
    /// noise-free: the cache level that holds it, else memory (the mean
    /// over the nodes).
    pub fn latency(&self, cpu: u32, nodes: &[u32], size: u64) -> f64 {
        let level = self.topology.cache_level_holding(size, &[cpu], nodes);
        let memory = || {
            let nodes: Vec<u32> = match nodes {
                [] => self.topology.node_of_cpu(cpu).into_iter().collect(),
                nodes => nodes.to_vec(),
            };
            nodes
                .iter()
                .map(|&node| self.memory_latency(cpu, node))
                .sum::<f64>()
                / nodes.len().max(1) as f64
        };
        match level.as_str() {
            "L1" => 1.2 * self.cpu(cpu).0,
            "L2" => 4.0 * self.cpu(cpu).0,
            "L3" => 14.0 * self.cpu(cpu).0,
            "L4" => 35.0 * self.cpu(cpu).0,
            "memory-side cache" => 0.8 * memory(),
            _ => memory(),
        }
    }

    /// One thread's DRAM read bandwidth from `cpu` to `node`, GB/s.
    fn thread_bandwidth(&self, cpu: u32, node: u32) -> f64 {
        let kind = match self.kind(node) {
            Some("HBM") => 1.2,
            Some("NVM") => 0.3,
            _ => 1.0,
        };
        let mut gbs = THREAD_GBS / self.distance(cpu, node).powf(0.6) * kind;
        gbs *= self.node(node).1 * self.cpu(cpu).1 * self.node_bandwidth_fault(node);
        for fault in &self.faults {
            if let Fault::SlowCpuBandwidth { cpu: slow } = *fault {
                if slow == cpu {
                    gbs *= CPU_BANDWIDTH_FAULT;
                }
            }
        }
        gbs
    }

    fn node_bandwidth_fault(&self, node: u32) -> f64 {
        self.faults
            .iter()
            .map(|fault| match *fault {
                Fault::SlowNodeBandwidth { node: slow } if slow == node => NODE_BANDWIDTH_FAULT,
                Fault::MissingDimm { node: slow } if slow == node => MISSING_DIMM_BANDWIDTH,
                _ => 1.0,
            })
            .product()
    }

    /// Per-thread read bandwidth of `cpus` together over `nodes` (pages
    /// spread evenly over them), GB/s, noise-free: each thread's own rate,
    /// scaled down where a node's memory saturates (at
    /// [`NODE_THREADS`] threads' worth, lower across a larger distance);
    /// a working set the caches hold streams at cache rates.
    pub fn bandwidth(&self, cpus: &[u32], nodes: &[u32], size: u64) -> Vec<f64> {
        let level = self.topology.cache_level_holding(size, cpus, nodes);
        let cache_rate = match level.as_str() {
            "L1" => Some(100.0),
            "L2" => Some(60.0),
            "L3" => Some(30.0),
            "L4" => Some(20.0),
            _ => None,
        };
        if let Some(rate) = cache_rate {
            return cpus.iter().map(|&cpu| rate * self.cpu(cpu).1).collect();
        }
        let nodes_of = |cpu: u32| -> Vec<u32> {
            match nodes {
                [] => self.cpu_node.get(&cpu).copied().into_iter().collect(),
                nodes => nodes.to_vec(),
            }
        };
        // Each thread's demand on each node, and each node's capacity.
        let mut demand: BTreeMap<u32, f64> = BTreeMap::new();
        let mut wanted: Vec<Vec<(u32, f64)>> = Vec::new();
        for &cpu in cpus {
            let targets = nodes_of(cpu);
            let share = 1.0 / targets.len().max(1) as f64;
            let parts: Vec<(u32, f64)> = targets
                .iter()
                .map(|&node| (node, self.thread_bandwidth(cpu, node) * share))
                .collect();
            for &(node, gbs) in &parts {
                *demand.entry(node).or_default() += gbs;
            }
            wanted.push(parts);
        }
        // A node's capacity, from the nearest of the reading CPUs' nodes.
        let mut reading: Vec<u32> = cpus
            .iter()
            .filter_map(|&cpu| self.cpu_node.get(&cpu).copied())
            .collect();
        reading.sort_unstable();
        reading.dedup();
        let scale: BTreeMap<u32, f64> = demand
            .iter()
            .map(|(&node, &wanted)| {
                let nearest = reading
                    .iter()
                    .filter_map(|&from| self.topology.distance(from, node))
                    .map(|distance| distance as f64 / 10.0)
                    .fold(f64::INFINITY, f64::min);
                let nearest = if nearest.is_finite() { nearest } else { 1.0 };
                let capacity = THREAD_GBS * NODE_THREADS / nearest.powf(0.6)
                    * self.node(node).1
                    * self.node_bandwidth_fault(node);
                (node, (capacity / wanted).min(1.0))
            })
            .collect();
        wanted
            .iter()
            .map(|parts| parts.iter().map(|&(node, gbs)| gbs * scale[&node]).sum())
            .collect()
    }

    /// `value` with one repetition's noise of relative spread `sigma`.
    fn noisy(&self, value: f64, sigma: f64) -> f64 {
        let mut rng = self.noise.lock().expect("no holder panicked");
        value * (1.0 + sigma * rng.normal().clamp(-4.0, 4.0))
    }

    /// A placement check of `size` bytes placed as asked on `nodes`.
    fn placed(size: u64, nodes: &[u32], threshold: f64) -> PlacementCheck {
        let pages = (size / 4096).max(1);
        let per_node = pages / nodes.len().max(1) as u64;
        PlacementCheck {
            moved: None,
            pages: per_node * nodes.len() as u64,
            pages_per_node: nodes.iter().map(|&node| (node, per_node)).collect(),
            fraction_as_requested: 1.0,
            achieved: 1.0 >= threshold,
            huge_pages: None,
        }
    }
}

impl Backend for MachineModel {
    fn latency(
        &self,
        context: &Context,
        config: &LatencyConfig,
        size: u64,
    ) -> Result<LatencyMeasurement, BenchError> {
        let nodes = config.memory.expected_nodes();
        let truth = self.latency(config.cpu, &nodes, size);
        let mut repetitions = context.stopping_rule().start();
        let mut samples = Vec::new();
        while !repetitions.done() {
            let value = self.noisy(truth, LATENCY_NOISE);
            samples.push(value);
            repetitions.push(value);
        }
        Ok(LatencyMeasurement {
            core_ghz: vec![3.0; samples.len()],
            nanoseconds_per_load: samples,
            loads_per_sample: (size / 64).max(1 << 14),
            check: Self::placed(size, &nodes, context.placement_threshold),
            block: ChaseBlock {
                bytes: size,
                source: "simulated".into(),
            },
            writer: None,
            convergence: Some(repetitions.convergence()),
            tail: None,
        })
    }

    fn bandwidth(
        &self,
        context: &Context,
        config: &BandwidthConfig,
    ) -> Result<BandwidthResult, BenchError> {
        let nodes = config.memory.expected_nodes();
        let per_thread = self.bandwidth(&config.cpus, &nodes, config.size);
        let truth: f64 = per_thread.iter().sum();
        let mut repetitions = context.stopping_rule().start();
        let mut samples = Vec::new();
        while !repetitions.done() {
            let value = self.noisy(truth, BANDWIDTH_NOISE);
            samples.push(value);
            repetitions.push(1.0 / value);
        }
        let best = samples.iter().copied().fold(0.0, f64::max);
        Ok(BandwidthResult {
            gigabytes_per_second: Sample::new(samples)
                .map_err(|error| BenchError::Invalid(format!("simulated bandwidth: {error}")))?,
            per_thread: per_thread.iter().map(|gbs| gbs * best / truth).collect(),
            check: Self::placed(config.size, &nodes, context.placement_threshold),
            simd: SimdChoice::Forced(SimdLevel::Scalar),
            convergence: repetitions.convergence(),
        })
    }
}
