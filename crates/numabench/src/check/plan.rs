//! What a node health check measures, and at what sizes: each NUMA node
//! on its own, sized so that the whole check fits a budget (Slurm kills a
//! `HealthCheckProgram` after 60 s).

use crate::bench::{cpus_of_node, working_set_for};
use crate::topology::{cpu_nodes, memory_nodes, Machine};
use serde::{Deserialize, Serialize};

/// What one check item measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// Read bandwidth of every CPU given (GB/s, fastest repetition).
    ReadBandwidth,
    /// STREAM triad bandwidth of every CPU given (GB/s, fastest repetition).
    TriadBandwidth,
    /// Idle load-to-use latency from the first CPU given (ns, fastest sample).
    Latency,
}

impl Quantity {
    /// True for bandwidths (higher is better), false for latency.
    pub fn higher_is_better(self) -> bool {
        !matches!(self, Quantity::Latency)
    }

    /// The unit its figures are in.
    pub fn unit(self) -> &'static str {
        if self.higher_is_better() {
            "GB/s"
        } else {
            "ns"
        }
    }
}

/// One measurement of the check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckItem {
    /// The metric's key in baselines and records: `node1.triad_bandwidth`,
    /// `node0.latency_local`, `node0.latency_to_node3`.
    pub key: String,
    pub quantity: Quantity,
    /// The node whose CPUs measure.
    pub cpu_node: u32,
    /// The node whose memory is measured.
    pub memory_node: u32,
    /// The measuring CPUs (all of `cpu_node`'s usable CPUs for a
    /// bandwidth, its first for a latency).
    pub cpus: Vec<u32>,
    /// Working set, bytes.
    pub size: u64,
    /// The working set is under twice the caches in front of the memory
    /// (a memory-side cache too large for the budget): the figure is
    /// partly that cache's.
    #[serde(default)]
    pub cache_affected: bool,
}

impl CheckItem {
    /// The item in words, as the problem lines name it.
    pub fn label(&self) -> String {
        let what = match self.quantity {
            Quantity::ReadBandwidth => "read bandwidth",
            Quantity::TriadBandwidth => "triad bandwidth",
            Quantity::Latency => "latency",
        };
        match self.quantity {
            Quantity::Latency if self.cpu_node == self.memory_node => {
                format!("node {} latency local", self.cpu_node)
            }
            Quantity::Latency => format!(
                "node {} latency to node {}",
                self.cpu_node, self.memory_node
            ),
            _ if self.cpu_node == self.memory_node => format!("node {} {what}", self.memory_node),
            _ => format!(
                "node {} {what} from node {}'s CPUs",
                self.memory_node, self.cpu_node
            ),
        }
    }
}

/// The check's plan: every item, the repetitions, the estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckPlan {
    pub items: Vec<CheckItem>,
    /// Timed repetitions per bandwidth item.
    pub repeat: usize,
    /// Samples per latency item.
    pub latency_samples: usize,
    /// Estimated seconds at assumed rates ([`item_seconds`]).
    pub estimated_seconds: f64,
    /// The budget the sizes were fitted to, seconds.
    pub budget_seconds: f64,
}

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
        Quantity::Latency => {
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
    let mut add = |quantity: Quantity, cpu_node: u32, memory_node: u32, cpus: Vec<u32>| {
        let key = match quantity {
            Quantity::ReadBandwidth => format!("node{memory_node}.read_bandwidth"),
            Quantity::TriadBandwidth => format!("node{memory_node}.triad_bandwidth"),
            Quantity::Latency if cpu_node == memory_node => format!("node{cpu_node}.latency_local"),
            Quantity::Latency => format!("node{cpu_node}.latency_to_node{memory_node}"),
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
            add(Quantity::ReadBandwidth, node, node, cpus.clone());
            add(Quantity::TriadBandwidth, node, node, cpus.clone());
            add(Quantity::Latency, node, node, cpus[..1].to_vec());
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
            add(Quantity::Latency, node, target, cpus[..1].to_vec());
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
            add(Quantity::ReadBandwidth, from, node, cpus.clone());
            add(Quantity::Latency, from, node, cpus[..1].to_vec());
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

impl CheckPlan {
    /// The estimate again, after the sizes or the repetitions changed.
    fn reestimate(&mut self) {
        self.estimated_seconds = self
            .items
            .iter()
            .map(|item| item_seconds(item, self.repeat))
            .sum();
    }

    /// The plan with `repeat` repetitions per bandwidth item and at most
    /// [`LATENCY_SAMPLES`] samples per latency item, its estimate redone.
    pub fn with_repeat(mut self, repeat: usize) -> CheckPlan {
        self.repeat = repeat.max(1);
        self.latency_samples = LATENCY_SAMPLES.min(self.repeat);
        self.reestimate();
        self
    }

    /// The plan with every working set `size` bytes instead (`check
    /// --write-baseline --size`: a small machine, an emulated one), its
    /// estimate and cache marks redone.
    pub fn with_size(mut self, topology: &Machine, size: u64) -> CheckPlan {
        for item in &mut self.items {
            item.size = size;
            let in_front = topology.cache_bytes_in_front(&item.cpus, &[item.memory_node]);
            item.cache_affected = size < 2 * in_front;
        }
        self.reestimate();
        self
    }
}
