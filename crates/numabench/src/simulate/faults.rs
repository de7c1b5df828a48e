//! The faults a simulated machine can carry, where a seed plants each,
//! and whether a run's findings name it: the right node, CPU or pair.

use crate::findings::{FindingKind, Sentence};
use crate::kernels::{mix, SplitMix64};
use crate::topology::Machine;
use numabench_schema::params::findings::{SlowCpuParams, SlowNodePairParams, SlowNodeParams};
use serde::Serialize;

/// A kind of fault, each the defect an administrator runs `characterize`
/// to find.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// One node's memory latency +8% (from every CPU).
    SlowNodeLatency,
    /// One node's memory bandwidth -10% (a missing channel).
    SlowNodeBandwidth,
    /// One CPU's bandwidth -20%.
    SlowCpuBandwidth,
    /// One remote pair's latency +15% (node A's CPUs reading node B).
    SlowPairLatency,
    /// One node with one DIMM of 12 missing: 11/12 of its peers' memory,
    /// bandwidth -8%.
    MissingDimm,
}

impl FaultKind {
    /// Every kind, in the order the tables list them.
    pub const ALL: [FaultKind; 5] = [
        FaultKind::SlowNodeLatency,
        FaultKind::SlowNodeBandwidth,
        FaultKind::SlowCpuBandwidth,
        FaultKind::SlowPairLatency,
        FaultKind::MissingDimm,
    ];

    /// The name tables and `--json` use.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::SlowNodeLatency => "node latency +8%",
            FaultKind::SlowNodeBandwidth => "node bandwidth -10%",
            FaultKind::SlowCpuBandwidth => "CPU bandwidth -20%",
            FaultKind::SlowPairLatency => "pair latency +15%",
            FaultKind::MissingDimm => "1 of 12 DIMMs missing",
        }
    }
}

/// A fault planted at a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "fault")]
pub enum Fault {
    SlowNodeLatency { node: u32 },
    SlowNodeBandwidth { node: u32 },
    SlowCpuBandwidth { cpu: u32 },
    SlowPairLatency { cpu_node: u32, mem_node: u32 },
    MissingDimm { node: u32 },
}

/// The nodes a node fault may be planted on: those with CPUs and memory
/// (a CPU-less node has no local figure to stand out in; see
/// docs/benchmarks.md).
fn fault_nodes(topology: &Machine) -> Vec<u32> {
    topology
        .nodes
        .iter()
        .filter(|node| !node.cpuless && !node.cpus.is_empty() && node.memory_total_bytes > 0)
        .map(|node| node.index)
        .collect()
}

impl Fault {
    /// A fault of `kind` at a place drawn with `seed` (uniformly among the
    /// places the kind can have); `None` where no measurement could tell
    /// it on this machine at any budget: a slow node needs 3 nodes with
    /// CPUs and memory to compare (of two, neither is the odd one), a slow
    /// pair 3 pairs at its SLIT distance, a slow CPU another CPU on its
    /// node.
    pub fn plant(kind: FaultKind, topology: &Machine, seed: u64) -> Option<Fault> {
        let mut rng = SplitMix64::new(mix(seed ^ mix(kind as u64 + 1)));
        let nodes = fault_nodes(topology);
        let nodes = match kind {
            FaultKind::SlowNodeLatency | FaultKind::SlowNodeBandwidth | FaultKind::MissingDimm
                if nodes.len() < 3 =>
            {
                Vec::new()
            }
            _ => nodes,
        };
        let node =
            |rng: &mut SplitMix64| (!nodes.is_empty()).then(|| nodes[rng.below(nodes.len())]);
        Some(match kind {
            FaultKind::SlowNodeLatency => Fault::SlowNodeLatency {
                node: node(&mut rng)?,
            },
            FaultKind::SlowNodeBandwidth => Fault::SlowNodeBandwidth {
                node: node(&mut rng)?,
            },
            FaultKind::MissingDimm => Fault::MissingDimm {
                node: node(&mut rng)?,
            },
            FaultKind::SlowCpuBandwidth => {
                let allowed = &topology.allowed.cpus;
                let cpus: Vec<u32> = allowed
                    .iter()
                    .copied()
                    .filter(|&cpu| {
                        let node = topology.node_of_cpu(cpu);
                        allowed
                            .iter()
                            .filter(|&&other| topology.node_of_cpu(other) == node)
                            .count()
                            >= 2
                    })
                    .collect();
                if cpus.is_empty() {
                    return None;
                }
                Fault::SlowCpuBandwidth {
                    cpu: cpus[rng.below(cpus.len())],
                }
            }
            FaultKind::SlowPairLatency => {
                let all: Vec<(u32, u32)> = nodes
                    .iter()
                    .flat_map(|&a| nodes.iter().map(move |&b| (a, b)))
                    .filter(|(a, b)| a != b)
                    .collect();
                let distance = |&(a, b): &(u32, u32)| topology.distance(a, b);
                let pairs: Vec<(u32, u32)> = all
                    .iter()
                    .copied()
                    .filter(|pair| {
                        all.iter()
                            .filter(|other| distance(other) == distance(pair))
                            .count()
                            >= 3
                    })
                    .collect();
                if pairs.is_empty() {
                    return None;
                }
                let (cpu_node, mem_node) = pairs[rng.below(pairs.len())];
                Fault::SlowPairLatency { cpu_node, mem_node }
            }
        })
    }

    /// Its kind.
    pub fn kind(&self) -> FaultKind {
        match self {
            Fault::SlowNodeLatency { .. } => FaultKind::SlowNodeLatency,
            Fault::SlowNodeBandwidth { .. } => FaultKind::SlowNodeBandwidth,
            Fault::SlowCpuBandwidth { .. } => FaultKind::SlowCpuBandwidth,
            Fault::SlowPairLatency { .. } => FaultKind::SlowPairLatency,
            Fault::MissingDimm { .. } => FaultKind::MissingDimm,
        }
    }

    /// Whether `sentences` name this fault: a `slow_node` finding of its
    /// node (node faults), a `slow_cpu` finding of its CPU, a
    /// `slow_node_pair` finding of its pair.
    pub fn named_by(&self, sentences: &[Sentence]) -> bool {
        sentences.iter().any(|sentence| match *self {
            Fault::SlowNodeLatency { node }
            | Fault::SlowNodeBandwidth { node }
            | Fault::MissingDimm { node } => {
                sentence.kind == FindingKind::SlowNode
                    && sentence
                        .params_as::<SlowNodeParams>()
                        .is_some_and(|params| params.node.mem_node == Some(node.into()))
            }
            Fault::SlowCpuBandwidth { cpu } => {
                sentence.kind == FindingKind::SlowCpu
                    && sentence
                        .params_as::<SlowCpuParams>()
                        .is_some_and(|params| params.cpu == Some(cpu.into()))
            }
            Fault::SlowPairLatency { cpu_node, mem_node } => {
                sentence.kind == FindingKind::SlowNodePair
                    && sentence
                        .params_as::<SlowNodePairParams>()
                        .is_some_and(|params| {
                            (params.cpu_node, params.mem_node)
                                == (Some(cpu_node.into()), Some(mem_node.into()))
                        })
            }
        })
    }
}

/// The finding kinds that name a fault: any of them in a run with no
/// fault planted is a false alarm.
pub const FAULT_FINDINGS: [FindingKind; 3] = [
    FindingKind::SlowNode,
    FindingKind::SlowCpu,
    FindingKind::SlowNodePair,
];

/// Whether `sentences` name any fault at all.
pub fn names_any_fault(sentences: &[Sentence]) -> bool {
    sentences
        .iter()
        .any(|sentence| FAULT_FINDINGS.contains(&sentence.kind))
}
