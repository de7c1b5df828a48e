//! What `tiers advise` sweeps: for each source socket (a node with CPUs),
//! its DRAM and the slower memory nodes near it, the weight ratios between
//! the two, the read/write mixes and the thread counts.

use crate::kernels::{kernel_by_name, KernelSpec};
use crate::memory::{weighted, MemoryPlacement, MemoryPolicy};
use crate::parse::format_id_list;
use crate::topology::Machine;

/// Why `tiers advise` (or `scan --threads`) cannot run as asked.
///
/// Fault: always the user's (the flags given, the nodes they name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TiersError {
    /// A `--threads` value that is no thread count.
    #[error("--threads '{text}' is not a thread count (1, half, all or a number)")]
    ThreadCount { text: String },
    /// A `--mix` value that is no bandwidth kernel.
    #[error("--mix '{name}' is not a bandwidth kernel (read, write, copy, triad, write-nt, copy-nt, triad-nt)")]
    Mix { name: String },
    /// A socket node that does not exist.
    #[error("node {node} does not exist")]
    NoSuchNode { node: u32 },
    /// A socket node without CPUs this process may use.
    #[error("node {node} has no CPUs this process may use")]
    NoCpus { node: u32 },
    /// A `--memory` node without memory this process may use.
    #[error("node {node} has no memory this process may use")]
    NoMemory { node: u32 },
    /// A socket with no other memory node to weigh its DRAM against.
    #[error("node {node} has no other memory node to interleave with: tiers advise needs two nodes with memory")]
    NoOtherNode { node: u32 },
    /// No socket has a second node with memory.
    #[error(
        "no socket to advise: tiers advise needs a node with CPUs and a second node with memory"
    )]
    NoSocket,
}

crate::error::all_faulty!(Usage: TiersError);

/// DRAM:tier ratios swept by default: DRAM only, then more and more of the
/// tier, to the tier only.
pub const DEFAULT_RATIOS: [(u32, u32); 11] = [
    (1, 0),
    (9, 1),
    (4, 1),
    (3, 1),
    (2, 1),
    (1, 1),
    (1, 2),
    (1, 3),
    (1, 4),
    (1, 9),
    (0, 1),
];

/// The read/write mixes, as bandwidth kernels: all reads (`read`), two
/// reads a write (`triad`), one of each (`copy`), and one of each with
/// non-temporal writes (`copy-nt`).
pub const DEFAULT_MIXES: [&str; 4] = ["read", "triad", "copy", "copy-nt"];

/// One source socket: its CPUs, its own memory and the tier's nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierSocket {
    /// The node whose CPUs run the threads.
    pub node: u32,
    /// Its allowed CPUs.
    pub cpus: Vec<u32>,
    /// Its DRAM: the node itself.
    pub dram: Vec<u32>,
    /// The slower nodes the ratio puts pages on.
    pub tier: Vec<u32>,
    /// How the tier was chosen, for the record.
    pub tier_source: &'static str,
}

/// The weights one measurement places pages by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Weights {
    /// DRAM:tier, each side's weight shared equally by its nodes.
    Ratio(u32, u32),
    /// The kernel's own weights over DRAM and tier (`weighted:LIST`).
    Kernel,
    /// Weights per node (the measured vector).
    Nodes(Vec<(u32, u32)>),
    /// The weights the kernel's `auto` mode writes from the firmware's
    /// bandwidth figures, over the socket's nodes ([`crate::memory::auto_weights`]).
    Auto(Vec<(u32, u32)>),
}

impl Weights {
    /// `3:1`, `kernel`, `0=5,2=2`: the label records and tables use.
    pub fn label(&self) -> String {
        match self {
            Weights::Ratio(dram, tier) => format!("{dram}:{tier}"),
            Weights::Kernel => "kernel".into(),
            Weights::Auto(_) => "auto".into(),
            Weights::Nodes(pairs) => pairs
                .iter()
                .map(|(node, weight)| format!("{node}={weight}"))
                .collect::<Vec<_>>()
                .join(","),
        }
    }

    /// The memory policy of these weights on `socket`.
    pub fn policy(&self, socket: &TierSocket) -> MemoryPolicy {
        let nodes: Vec<u32> = socket.dram.iter().chain(&socket.tier).copied().collect();
        let weighted_over = |pairs: Vec<(u32, u32)>| {
            let text: Vec<String> = pairs.iter().map(|(n, w)| format!("{n}={w}")).collect();
            MemoryPolicy::parse(&format!("weighted:{}", text.join(",")))
                .expect("a weighted form")
                .expect("weights from 1 to 255")
        };
        match self {
            Weights::Ratio(_, 0) => spread(&socket.dram),
            Weights::Ratio(0, _) => spread(&socket.tier),
            Weights::Ratio(dram, tier) => {
                // Per node, so that the sides' totals are dram:tier.
                let (d, t) = (socket.dram.len() as u32, socket.tier.len() as u32);
                let pairs = socket
                    .dram
                    .iter()
                    .map(|&node| (node, dram * t))
                    .chain(socket.tier.iter().map(|&node| (node, tier * d)))
                    .collect();
                weighted_over(reduce(pairs))
            }
            Weights::Kernel => MemoryPolicy::parse(&format!("weighted:{}", format_id_list(&nodes)))
                .expect("a weighted form")
                .expect("a node list"),
            Weights::Nodes(pairs) | Weights::Auto(pairs) => weighted_over(reduce(pairs.clone())),
        }
    }
}

/// Bound to one node, or interleaved evenly over several.
fn spread(nodes: &[u32]) -> MemoryPolicy {
    match nodes {
        [node] => MemoryPolicy::bind(*node),
        _ => MemoryPolicy::interleave(nodes.to_vec()),
    }
}

/// Weights divided by their greatest common divisor, each at most
/// [`weighted::MAX_WEIGHT`] (scaled down where needed, never below 1).
pub fn reduce(pairs: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let divisor = weighted::common_divisor(pairs.iter().map(|&(_, w)| u64::from(w))) as u32;
    let largest = pairs.iter().map(|(_, w)| w / divisor).max().unwrap_or(1);
    let scale = (largest as f64 / weighted::MAX_WEIGHT as f64).max(1.0);
    pairs
        .into_iter()
        .map(|(node, w)| (node, (((w / divisor) as f64 / scale).round() as u32).max(1)))
        .collect()
}

/// How many threads of a socket's CPUs a measurement uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadCount {
    One,
    Half,
    All,
    Exactly(usize),
}

impl ThreadCount {
    /// The count on a socket of `cpus` CPUs (at least 1, at most `cpus`).
    pub fn of(self, cpus: usize) -> usize {
        match self {
            ThreadCount::One => 1,
            ThreadCount::Half => cpus / 2,
            ThreadCount::All => cpus,
            ThreadCount::Exactly(count) => count,
        }
        .clamp(1, cpus.max(1))
    }

    /// `1`, `half`, `all` or a number.
    pub fn parse(text: &str) -> Result<Self, TiersError> {
        match text {
            "1" => Ok(ThreadCount::One),
            "half" => Ok(ThreadCount::Half),
            "all" => Ok(ThreadCount::All),
            number => number
                .parse::<usize>()
                .ok()
                .filter(|count| *count >= 1)
                .map(ThreadCount::Exactly)
                .ok_or_else(|| TiersError::ThreadCount {
                    text: text.to_string(),
                }),
        }
    }
}

/// A validated `tiers advise`.
#[derive(Debug, Clone)]
pub struct TiersConfig {
    pub sockets: Vec<TierSocket>,
    /// DRAM:tier ratios, `(1, 0)` and `(1, 1)` among them (the baselines).
    pub ratios: Vec<(u32, u32)>,
    pub kernels: Vec<&'static KernelSpec>,
    pub threads: Vec<ThreadCount>,
    /// The whole working set of one measurement, bytes.
    pub size: u64,
    /// Interleaved rounds: each measures every configuration once.
    pub rounds: usize,
    /// Whether the kernel's own weights are measured too (it has weighted
    /// interleave).
    pub kernel_weights: bool,
    /// The weights `auto` mode writes from the firmware's figures, for
    /// every memory node, and where the figures came from; measured against
    /// the measured weights where known.
    pub auto_weights: Option<(Vec<(u32, u32)>, &'static str)>,
}

impl TiersConfig {
    /// The thread counts of `socket`, distinct, ascending.
    pub fn thread_counts(&self, socket: &TierSocket) -> Vec<usize> {
        let mut counts: Vec<usize> = self
            .threads
            .iter()
            .map(|count| count.of(socket.cpus.len()))
            .collect();
        counts.sort_unstable();
        counts.dedup();
        counts
    }

    /// Every weighting measured on a socket: the ratios, then the kernel's.
    pub fn weightings(&self) -> Vec<Weights> {
        let mut all: Vec<Weights> = self
            .ratios
            .iter()
            .map(|&(dram, tier)| Weights::Ratio(dram, tier))
            .collect();
        if self.kernel_weights {
            all.push(Weights::Kernel);
        }
        all
    }

    /// `auto`'s weights over `socket`'s nodes (DRAM then tier), reduced.
    pub fn auto_weights_of(&self, socket: &TierSocket) -> Option<Vec<(u32, u32)>> {
        let (all, _) = self.auto_weights.as_ref()?;
        let pairs: Option<Vec<(u32, u32)>> = socket
            .dram
            .iter()
            .chain(&socket.tier)
            .map(|node| all.iter().find(|(n, _)| n == node).copied())
            .collect();
        Some(reduce(pairs?))
    }

    /// Weightings the second phase measures against the measured weights:
    /// the kernel's (where it has weighted interleave), `auto`'s (where the
    /// firmware gives figures).
    pub fn checked_weightings(&self, socket: &TierSocket) -> Vec<Weights> {
        let mut all = Vec::new();
        if self.kernel_weights {
            all.push(Weights::Kernel);
        }
        if let Some(auto) = self.auto_weights_of(socket) {
            all.push(Weights::Auto(auto));
        }
        all
    }

    /// Measurements of one round, every socket.
    pub fn measurements_per_round(&self) -> usize {
        self.sockets
            .iter()
            .map(|socket| self.thread_counts(socket).len())
            .sum::<usize>()
            * self.kernels.len()
            * self.weightings().len()
    }
}

/// The mixes' kernels by name.
pub fn mix_kernels(names: &[String]) -> Result<Vec<&'static KernelSpec>, TiersError> {
    names
        .iter()
        .map(|name| kernel_by_name(name).ok_or_else(|| TiersError::Mix { name: name.clone() }))
        .collect()
}

/// The sockets to advise, each with its tier. Given `memory`, every
/// socket (`cpu_nodes`, default every node with allowed CPUs and memory)
/// with those nodes. Otherwise, on a machine with CPU-less nodes, every
/// socket some CPU-less node is nearest (by distance) with those nodes;
/// on one without, the first socket (or each named one) with every other
/// node: local against remote DRAM, which on a symmetric machine every
/// socket would repeat.
pub fn sockets_of(
    topology: &Machine,
    cpu_nodes: Option<&[u32]>,
    memory: Option<&[u32]>,
) -> Result<Vec<TierSocket>, TiersError> {
    let with_memory = |node: u32| {
        topology.node(node).is_some_and(|info| {
            info.memory_total_bytes > 0 && topology.allowed.nodes.contains(&node)
        })
    };
    let allowed_cpus = |node: u32| topology.allowed_cpus_of_node(node);
    let cpu_nodes_given = cpu_nodes.is_some();
    let cpu_nodes: Vec<u32> = match cpu_nodes {
        Some(nodes) => {
            for &node in nodes {
                if topology.node(node).is_none() {
                    return Err(TiersError::NoSuchNode { node });
                }
                if allowed_cpus(node).is_empty() {
                    return Err(TiersError::NoCpus { node });
                }
            }
            nodes.to_vec()
        }
        None => topology
            .nodes
            .iter()
            .map(|info| info.index)
            .filter(|&node| !allowed_cpus(node).is_empty() && with_memory(node))
            .collect(),
    };
    if let Some(memory) = memory {
        for &node in memory {
            if !with_memory(node) {
                return Err(TiersError::NoMemory { node });
            }
        }
    }
    // Nearest among every node with CPUs, not only the sockets asked for.
    let all_cpu_nodes: Vec<u32> = topology
        .nodes
        .iter()
        .map(|info| info.index)
        .filter(|&node| !allowed_cpus(node).is_empty())
        .collect();
    let nearest_cpu_node = |target: u32| {
        all_cpu_nodes.iter().copied().min_by_key(|&cpu_node| {
            (
                topology.distance(cpu_node, target).unwrap_or(u64::MAX),
                cpu_node,
            )
        })
    };
    let cpuless: Vec<u32> = topology
        .nodes
        .iter()
        .filter(|info| info.cpus.is_empty() && with_memory(info.index))
        .map(|info| info.index)
        .collect();
    let given_sockets = cpu_nodes_given;
    let mut sockets = Vec::new();
    for (position, &node) in cpu_nodes.iter().enumerate() {
        let (tier, source): (Vec<u32>, &'static str) = match memory {
            Some(memory) => (
                memory
                    .iter()
                    .copied()
                    .filter(|&other| other != node)
                    .collect(),
                "given",
            ),
            // A tiered machine: each socket with the CPU-less nodes nearest it.
            None if !cpuless.is_empty() => (
                cpuless
                    .iter()
                    .copied()
                    .filter(|&target| nearest_cpu_node(target) == Some(node))
                    .collect(),
                "CPU-less nodes nearest this socket",
            ),
            // No tier: local against remote DRAM, from the first socket
            // only unless sockets were named (the others would repeat it
            // on a symmetric machine).
            None if given_sockets || position == 0 => (
                topology
                    .nodes
                    .iter()
                    .map(|info| info.index)
                    .filter(|&other| other != node && with_memory(other))
                    .collect(),
                "every other node with memory (no CPU-less node here)",
            ),
            None => continue,
        };
        if tier.is_empty() {
            // A socket no CPU-less node is near: nothing to advise it on.
            if memory.is_none() && !given_sockets {
                continue;
            }
            return Err(TiersError::NoOtherNode { node });
        }
        sockets.push(TierSocket {
            node,
            cpus: allowed_cpus(node),
            dram: vec![node],
            tier,
            tier_source: source,
        });
    }
    if sockets.is_empty() {
        return Err(TiersError::NoSocket);
    }
    Ok(sockets)
}

/// The placement of `weights` on `socket`.
pub fn placement(weights: &Weights, socket: &TierSocket) -> MemoryPlacement {
    MemoryPlacement::Policy(weights.policy(socket))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn socket() -> TierSocket {
        TierSocket {
            node: 0,
            cpus: vec![0, 1],
            dram: vec![0],
            tier: vec![2, 3],
            tier_source: "given",
        }
    }

    #[test]
    fn ratios_become_policies_whose_sides_add_up() {
        let socket = socket();
        assert_eq!(Weights::Ratio(1, 0).policy(&socket).label(), "bind:0");
        assert_eq!(
            Weights::Ratio(0, 1).policy(&socket).label(),
            "interleave:2-3"
        );
        // 3:1 between node 0 and nodes 2 and 3 together: 6, 1, 1.
        assert_eq!(
            Weights::Ratio(3, 1).policy(&socket).label(),
            "weighted:0=6,2=1,3=1"
        );
        assert_eq!(Weights::Kernel.policy(&socket).label(), "weighted:0,2-3");
        assert_eq!(
            Weights::Nodes(vec![(0, 10), (2, 4)])
                .policy(&socket)
                .label(),
            "weighted:0=5,2=2"
        );
        assert_eq!(Weights::Ratio(9, 1).label(), "9:1");
        assert_eq!(reduce(vec![(0, 1000), (1, 10)]), [(0, 100), (1, 1)]);
        assert_eq!(reduce(vec![(0, 1000), (1, 3)]), [(0, 255), (1, 1)]);
    }

    #[test]
    fn thread_counts_are_one_half_all_deduplicated() {
        assert_eq!(ThreadCount::Half.of(1), 1);
        assert_eq!(ThreadCount::Half.of(8), 4);
        assert_eq!(ThreadCount::Exactly(99).of(8), 8);
        assert!(ThreadCount::parse("x")
            .unwrap_err()
            .to_string()
            .contains("'x'"));
        let config = TiersConfig {
            sockets: vec![socket()],
            ratios: DEFAULT_RATIOS.to_vec(),
            kernels: mix_kernels(&["read".into()]).unwrap(),
            threads: vec![ThreadCount::One, ThreadCount::Half, ThreadCount::All],
            size: 1 << 20,
            rounds: 2,
            kernel_weights: true,
            auto_weights: None,
        };
        assert_eq!(config.thread_counts(&socket()), [1, 2]);
        assert_eq!(config.measurements_per_round(), 2 * 12);
    }
}
