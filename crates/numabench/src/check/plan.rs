//! What a node health check measures, and at what sizes: each NUMA node
//! on its own, sized so that the whole check fits a budget (Slurm kills a
//! `HealthCheckProgram` after 60 s).

use crate::bench::{cpus_of_node, working_set_for};
use crate::topology::{cpu_nodes, memory_nodes, Machine};
use serde::{Deserialize, Serialize};

/// What a check measures and plans: the schema's types (a cluster rank's
/// plan record and a baseline entry carry the plan as it is).
pub use numabench_schema::params::{CheckItem, CheckPlan, CheckQuantity};

/// One entry of the list `check --plan --json` prints: a node type's plan
/// (each entry of a baseline's, or this node's or the `--topology` file's
/// own), read back through this type by what checks the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckPlanEntry {
    /// The node type: a baseline entry's fingerprint, or the topology's
    /// source with its packages, CPUs and nodes.
    pub node_type: String,
    pub plan: CheckPlan,
}

/// Repetitions per bandwidth item, every one taken: the fastest of 11 is
/// what a healthy node reaches even when a neighbour (another tenant of
/// the host, a daemon) slows most of them.
pub const CHECK_REPEAT: usize = 11;

/// Samples per latency item, every one taken (each chases at least 20 ms,
/// and together they walk the whole chain).
pub const LATENCY_SAMPLES: usize = 5;

/// The default budget of a check (Slurm ends a health check at 60 s).
pub const DEFAULT_BUDGET_SECONDS: f64 = 30.0;

/// The least working set: below this, a cache, not memory, would answer.
const FLOOR_BYTES: u64 = 16 << 20;

/// Assumed rates of the estimate (as `bench::estimate`'s, per thread).
const SETUP_BYTES_PER_SECOND: f64 = 1e9;
const CHAIN_BYTES_PER_SECOND: f64 = 0.5e9;
const THREAD_BYTES_PER_SECOND: f64 = 5e9;
const NODE_BYTES_PER_SECOND_CAP: f64 = 40e9;
const LOAD_SECONDS: f64 = 100e-9;
const SAMPLE_SECONDS: f64 = 0.02;
/// Fixed cost of one item (threads started, pages verified).
const ITEM_SECONDS: f64 = 0.02;

/// Estimated seconds of one item at assumed rates: the buffer built, one
/// warm-up and `repeat` passes (bandwidth), or the chain laid, walked once
/// to warm up and once over the samples (latency).
pub fn item_seconds(item: &CheckItem, repeat: usize) -> f64 {
    let bytes = item.size as f64;
    match item.quantity {
        CheckQuantity::Latency => {
            let lines = bytes / 64.0;
            ITEM_SECONDS
                + bytes / CHAIN_BYTES_PER_SECOND
                + 2.0 * lines * LOAD_SECONDS
                + LATENCY_SAMPLES.min(repeat) as f64 * SAMPLE_SECONDS
        }
        _ => {
            let rate =
                (item.cpus.len() as f64 * THREAD_BYTES_PER_SECOND).min(NODE_BYTES_PER_SECOND_CAP);
            ITEM_SECONDS + bytes / SETUP_BYTES_PER_SECOND + (1 + repeat) as f64 * bytes / rate
        }
    }
}

/// The plan of a check of `topology` within `budget_seconds`: per node with
/// CPUs and memory, its read and triad bandwidth with all its CPUs, its
/// local latency, and its latency to the nearest and the farthest other
/// node with memory (SLIT distance; the same node once when they are one);
/// per CPU-less memory node, its read bandwidth and latency from the
/// nearest node with CPUs. Working sets start DRAM-sized (four times the
/// caches in front, as every benchmark's default) and are halved together,
/// not below twice the caches in front nor 16 MiB, until the estimate
/// fits; where that is not enough (a memory-side cache of many GiB), below
/// the memory-side caches down to twice the CPU caches, and such items are
/// marked [`CheckItem::cache_affected`].
pub fn plan_check(topology: &Machine, budget_seconds: f64) -> CheckPlan {
    let mut items = Vec::new();
    let memory = memory_nodes(topology);
    let cpu_nodes = cpu_nodes(topology);
    // The node's CPUs this process may use (none: the node is skipped).
    let usable = |node: u32| cpus_of_node(topology, node).unwrap_or_default();
    let distance = |a: u32, b: u32| {
        topology
            .distance(a, b)
            .unwrap_or(if a == b { 10 } else { 20 })
    };
    let mut add = |quantity: CheckQuantity, cpu_node: u32, memory_node: u32, cpus: Vec<u32>| {
        let key = match quantity {
            CheckQuantity::ReadBandwidth => format!("node{memory_node}.read_bandwidth"),
            CheckQuantity::TriadBandwidth => format!("node{memory_node}.triad_bandwidth"),
            CheckQuantity::Latency if cpu_node == memory_node => {
                format!("node{cpu_node}.latency_local")
            }
            CheckQuantity::Latency => format!("node{cpu_node}.latency_to_node{memory_node}"),
        };
        if items.iter().any(|item: &CheckItem| item.key == key) || cpus.is_empty() {
            return;
        }
        let size = working_set_for(topology, &cpus, &[memory_node]).bytes;
        items.push(CheckItem {
            key,
            quantity,
            cpu_node,
            memory_node,
            cpus,
            size,
            cache_affected: false,
        });
    };
    for &node in &cpu_nodes {
        let cpus = usable(node);
        if memory.contains(&node) {
            add(CheckQuantity::ReadBandwidth, node, node, cpus.clone());
            add(CheckQuantity::TriadBandwidth, node, node, cpus.clone());
            add(CheckQuantity::Latency, node, node, cpus[..1].to_vec());
        }
        let others: Vec<u32> = memory.iter().copied().filter(|&m| m != node).collect();
        let nearest = others
            .iter()
            .copied()
            .min_by_key(|&m| (distance(node, m), m));
        let farthest = others
            .iter()
            .copied()
            .max_by_key(|&m| (distance(node, m), std::cmp::Reverse(m)));
        for target in [nearest, farthest].into_iter().flatten() {
            add(CheckQuantity::Latency, node, target, cpus[..1].to_vec());
        }
    }
    for &node in &memory {
        let has_cpus = cpu_nodes.contains(&node);
        let nearest = cpu_nodes
            .iter()
            .copied()
            .min_by_key(|&c| (distance(c, node), c));
        if let (false, Some(from)) = (has_cpus, nearest) {
            let cpus = usable(from);
            add(CheckQuantity::ReadBandwidth, from, node, cpus.clone());
            add(CheckQuantity::Latency, from, node, cpus[..1].to_vec());
        }
    }
    let floor = |cache_bytes: u64| (2 * cache_bytes).max(FLOOR_BYTES).next_multiple_of(1 << 20);
    // First not below the memory-side caches, then (a huge one in front of
    // the memory: KNL's MCDRAM, a 400 GB DRAM cache) below them.
    let floors: [Vec<u64>; 2] = [
        items
            .iter()
            .map(|item| floor(topology.cache_bytes_in_front(&item.cpus, &[item.memory_node])))
            .collect(),
        items
            .iter()
            .map(|item| floor(topology.cpu_cache_bytes(&item.cpus)))
            .collect(),
    ];
    let total = |items: &[CheckItem]| -> f64 {
        items
            .iter()
            .map(|item| item_seconds(item, CHECK_REPEAT))
            .sum()
    };
    for floors in &floors {
        while total(&items) > budget_seconds {
            let mut smaller = false;
            for (item, &floor) in items.iter_mut().zip(floors) {
                let half = (item.size / 2).max(floor.min(item.size));
                smaller |= half < item.size;
                item.size = half;
            }
            if !smaller {
                break;
            }
        }
    }
    for item in &mut items {
        let in_front = topology.cache_bytes_in_front(&item.cpus, &[item.memory_node]);
        item.cache_affected = item.size < 2 * in_front;
    }
    CheckPlan {
        estimated_seconds: total(&items),
        items,
        repeat: CHECK_REPEAT,
        latency_samples: LATENCY_SAMPLES,
        budget_seconds,
    }
}

/// `plan`'s estimate again, after its sizes or repetitions changed.
fn reestimate(plan: &mut CheckPlan) {
    plan.estimated_seconds = plan
        .items
        .iter()
        .map(|item| item_seconds(item, plan.repeat))
        .sum();
}

/// `plan` with `repeat` repetitions per bandwidth item and at most
/// [`LATENCY_SAMPLES`] samples per latency item, its estimate redone.
pub fn with_repeat(mut plan: CheckPlan, repeat: usize) -> CheckPlan {
    plan.repeat = repeat.max(1);
    plan.latency_samples = LATENCY_SAMPLES.min(plan.repeat);
    reestimate(&mut plan);
    plan
}

/// `plan` with every working set `size` bytes instead (`check
/// --write-baseline --size`: a small machine, an emulated one), its
/// estimate and cache marks redone.
pub fn with_size(mut plan: CheckPlan, topology: &Machine, size: u64) -> CheckPlan {
    for item in &mut plan.items {
        item.size = size;
        let in_front = topology.cache_bytes_in_front(&item.cpus, &[item.memory_node]);
        item.cache_affected = size < 2 * in_front;
    }
    reestimate(&mut plan);
    plan
}
