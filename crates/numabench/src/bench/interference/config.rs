//! What `interference` measures: the victims (a memory node and the CPU
//! that measures it), the aggressors (a memory node and the CPUs that load
//! it), the pairs between them, the loads and the working set.

use crate::bench::cell_classes::{cell_classes, sample_of, CLASS_DRAWS};
use crate::kernels::traffic::TrafficMix;
use crate::topology::{memory_nodes, Machine};

/// Why the victims and aggressors asked for cannot be measured.
///
/// Fault: always the user's (the nodes and thread count given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairsError {
    /// `--victim` or `--aggressor` names a node without usable memory.
    #[error(
        "{flag} {node}: not a node with memory this process may use (nodes with memory: {nodes})"
    )]
    NoMemory {
        flag: &'static str,
        node: u32,
        nodes: String,
    },
    /// A victim node with no usable CPU near it.
    #[error("--victim {node}: no CPU this process may use is near node {node}")]
    NoVictimCpu { node: u32 },
    /// An aggressor node left without a CPU once the victim's core is taken.
    #[error("node {aggressor} has no CPU left to load it once CPU {cpu} and its core measure node {victim} (interference needs two cores)")]
    NoAggressorCpu {
        aggressor: u32,
        cpu: u32,
        victim: u32,
    },
}

crate::error::all_faulty!(Usage: PairsError);

/// Up to this many memory nodes, every victim is paired with every
/// aggressor by default; above it, by the topology's symmetry classes
/// ([`default_pairs`]), so that a 24-node machine measures a few dozen
/// pairs, not 576.
pub const EVERY_PAIR_UP_TO: usize = 8;

/// The seed of the members drawn from each class (stable across runs and
/// machines, as the matrices' samples are).
const PAIR_SEED: u64 = 0x1f7e_12fe;

/// A node whose latency and read bandwidth are measured, and the CPU
/// that measures them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Victim {
    pub node: u32,
    pub cpu: u32,
}

/// A node loaded by traffic, and the CPUs whose threads generate it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aggressor {
    pub node: u32,
    pub cpus: Vec<u32>,
}

/// One victim against one aggressor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// Index into [`InterferenceConfig::victims`].
    pub victim: usize,
    pub aggressor: Aggressor,
}

/// A validated `interference` run.
#[derive(Debug, Clone)]
pub struct InterferenceConfig {
    pub victims: Vec<Victim>,
    pub pairs: Vec<Pair>,
    /// The aggressors' traffic, one measurement per pair and load.
    pub loads: Vec<TrafficMix>,
    /// The victim's buffer, bytes; each aggressor thread's is its share
    /// of it ([`aggressor_bytes`]), so a budget's cut of it cuts both.
    pub size: u64,
    /// Interleaved rounds: each measures every victim alone and under
    /// every pair's every load once, in a rotated order.
    pub rounds: usize,
}

impl InterferenceConfig {
    /// Measurements per round: each victim alone, each pair under each load.
    pub fn measurements_per_round(&self) -> usize {
        self.victims.len() + self.pairs.len() * self.loads.len()
    }

    /// Every aggressor buffer of `aggressor`'s threads together, bytes.
    pub fn aggressors_bytes(&self, aggressor: &Aggressor) -> u64 {
        aggressor_bytes(self.size, aggressor.cpus.len()) * aggressor.cpus.len() as u64
    }

    /// The most aggressor threads of any pair.
    pub fn most_aggressors(&self) -> usize {
        self.pairs
            .iter()
            .map(|pair| pair.aggressor.cpus.len())
            .max()
            .unwrap_or(0)
    }
}

/// The smallest buffer an aggressor thread streams through.
pub const MIN_AGGRESSOR_BYTES: u64 = 32 << 20;

/// Each aggressor thread's buffer: its share of the victim's working set
/// (which is sized to miss the caches in front), so that the threads
/// together stream that much and miss the caches too, at least
/// [`MIN_AGGRESSOR_BYTES`].
pub fn aggressor_bytes(size: u64, threads: usize) -> u64 {
    (size / threads.max(1) as u64).max(MIN_AGGRESSOR_BYTES)
}

/// The CPUs this process may use nearest to `node`: its own, or, for a
/// CPU-less node, those of the nearest node that has some (by SLIT
/// distance, the lowest-numbered on a tie).
pub fn cpus_near(topology: &Machine, node: u32) -> Vec<u32> {
    let own = topology.allowed_cpus_of_node(node);
    if !own.is_empty() {
        return own;
    }
    topology
        .nodes
        .iter()
        .map(|other| other.index)
        .filter(|&other| other != node && !topology.allowed_cpus_of_node(other).is_empty())
        .min_by_key(|&other| (topology.distance(node, other).unwrap_or(u64::MAX), other))
        .map(|other| topology.allowed_cpus_of_node(other))
        .unwrap_or_default()
}

/// The default pairs (victim, aggressor) of `victims` x `aggressors`:
/// every pair when there are at most [`EVERY_PAIR_UP_TO`] nodes of each;
/// above, every node against itself (a slow node shows there) and, of
/// each class of pairs the topology cannot tell apart (same distances,
/// package relation, HMAT figures and node kinds: [`cell_classes`]), the
/// representative and [`CLASS_DRAWS`] members drawn at random.
pub fn default_pairs(topology: &Machine, victims: &[u32], aggressors: &[u32]) -> Vec<(u32, u32)> {
    let every = || {
        victims
            .iter()
            .flat_map(|&victim| aggressors.iter().map(move |&aggressor| (victim, aggressor)))
            .collect()
    };
    if victims.len() <= EVERY_PAIR_UP_TO && aggressors.len() <= EVERY_PAIR_UP_TO {
        return every();
    }
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for class in cell_classes(topology, victims, aggressors) {
        if class
            .cells
            .iter()
            .all(|(victim, aggressor)| victim == aggressor)
        {
            pairs.extend(&class.cells);
        } else {
            pairs.extend(sample_of(&class, PAIR_SEED, CLASS_DRAWS));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// Validates victims, aggressors and thread counts into the pairs.
/// `victims` `None`: every memory node; `aggressors` `None`: every memory
/// node, paired by [`default_pairs`] (given, every victim meets every
/// aggressor); `aggressor_threads` `None`: every CPU near the aggressor
/// but the victim's.
pub fn pairs_of(
    topology: &Machine,
    victims: Option<&[u32]>,
    aggressors: Option<&[u32]>,
    aggressor_threads: Option<usize>,
) -> Result<(Vec<Victim>, Vec<Pair>), PairsError> {
    let nodes = memory_nodes(topology);
    let check = |node: u32, flag: &'static str| {
        if nodes.contains(&node) {
            Ok(node)
        } else {
            Err(PairsError::NoMemory {
                flag,
                node,
                nodes: crate::parse::format_id_list(&nodes),
            })
        }
    };
    let victim_nodes: Vec<u32> = match victims {
        Some(list) => list
            .iter()
            .map(|&node| check(node, "--victim"))
            .collect::<Result<_, _>>()?,
        None => nodes.clone(),
    };
    if let Some(list) = aggressors {
        for &node in list {
            check(node, "--aggressor")?;
        }
    }
    let aggressor_nodes = aggressors.map_or_else(|| nodes.clone(), <[u32]>::to_vec);
    let chosen: Vec<(u32, u32)> = match aggressors {
        Some(_) => victim_nodes
            .iter()
            .flat_map(|&victim| {
                aggressor_nodes
                    .iter()
                    .map(move |&aggressor| (victim, aggressor))
            })
            .collect(),
        None => default_pairs(topology, &victim_nodes, &aggressor_nodes),
    };
    let mut found_victims: Vec<Victim> = Vec::new();
    for &victim_node in &victim_nodes {
        let Some(&cpu) = cpus_near(topology, victim_node).first() else {
            return Err(PairsError::NoVictimCpu { node: victim_node });
        };
        found_victims.push(Victim {
            node: victim_node,
            cpu,
        });
    }
    let mut pairs = Vec::new();
    for (victim_node, aggressor_node) in chosen {
        let victim = found_victims
            .iter()
            .position(|found| found.node == victim_node)
            .expect("every pair's victim is a victim");
        let cpu = found_victims[victim].cpu;
        // Never the victim's core: an SMT sibling would slow the victim's
        // core, not its memory.
        let victim_core = topology.core_of_cpu(cpu);
        let mut cpus: Vec<u32> = cpus_near(topology, aggressor_node)
            .into_iter()
            .filter(|&other| {
                other != cpu
                    && (victim_core.is_none() || topology.core_of_cpu(other) != victim_core)
            })
            .collect();
        if let Some(count) = aggressor_threads {
            cpus.truncate(count);
        }
        if cpus.is_empty() {
            return Err(PairsError::NoAggressorCpu {
                aggressor: aggressor_node,
                cpu,
                victim: victim_node,
            });
        }
        pairs.push(Pair {
            victim,
            aggressor: Aggressor {
                node: aggressor_node,
                cpus,
            },
        });
    }
    Ok((found_victims, pairs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::fixture_tests::load;

    #[test]
    fn small_machines_pair_every_node() {
        let topology = load("two-sockets-hbm-cxl");
        let nodes = memory_nodes(&topology);
        assert!(nodes.len() >= 4 && nodes.len() <= EVERY_PAIR_UP_TO);
        let (victims, pairs) = pairs_of(&topology, None, None, None).unwrap();
        assert_eq!(victims.len(), nodes.len());
        assert_eq!(pairs.len(), nodes.len() * nodes.len());
        // A CPU-less victim is measured from a CPU of the nearest node that has CPUs.
        for victim in &victims {
            let node = topology.node(victim.node).unwrap();
            if node.cpuless {
                let near = topology.node_of_cpu(victim.cpu).unwrap();
                let best = nodes
                    .iter()
                    .filter(|&&other| !topology.allowed_cpus_of_node(other).is_empty())
                    .map(|&other| topology.distance(victim.node, other).unwrap())
                    .min()
                    .unwrap();
                assert_eq!(topology.distance(victim.node, near), Some(best));
            }
        }
        // The aggressor never runs on the victim's CPU.
        for pair in &pairs {
            assert!(!pair.aggressor.cpus.contains(&victims[pair.victim].cpu));
        }
    }

    #[test]
    fn large_machines_pair_each_node_with_itself_and_sample_each_class() {
        let topology = load("twenty-four-nodes");
        let nodes = memory_nodes(&topology);
        assert_eq!(nodes.len(), 24);
        let (victims, pairs) = pairs_of(&topology, None, None, Some(2)).unwrap();
        assert_eq!(victims.len(), 24);
        let chosen: Vec<(u32, u32)> = pairs
            .iter()
            .map(|pair| (victims[pair.victim].node, pair.aggressor.node))
            .collect();
        // Every node against itself.
        for &node in &nodes {
            assert!(chosen.contains(&(node, node)), "{node}");
        }
        // Every class of pairs, at least once; far fewer than every pair.
        for class in cell_classes(&topology, &nodes, &nodes) {
            assert!(class.cells.iter().any(|cell| chosen.contains(cell)));
        }
        assert!(chosen.len() < 24 * 4, "{}", chosen.len());
        assert!(pairs.iter().all(|pair| pair.aggressor.cpus.len() <= 2));
        // Aggressors given: every victim meets each.
        let (_, given) = pairs_of(&topology, None, Some(&[0, 7]), None).unwrap();
        assert_eq!(given.len(), 48);
    }

    #[test]
    fn aggressors_never_share_the_victims_core() {
        // Two sockets with SMT siblings numbered 64 apart.
        let topology = load("two-socket-smt");
        let (victims, pairs) = pairs_of(&topology, None, None, None).unwrap();
        for pair in &pairs {
            let victim = victims[pair.victim].cpu;
            let core = topology.core_of_cpu(victim);
            assert!(core.is_some());
            for &cpu in &pair.aggressor.cpus {
                assert_ne!(
                    topology.core_of_cpu(cpu),
                    core,
                    "CPU {cpu} shares CPU {victim}'s core"
                );
            }
            assert!(!pair.aggressor.cpus.is_empty());
        }
    }

    #[test]
    fn a_node_without_memory_is_refused_by_name() {
        let topology = load("two-sockets-hbm-cxl");
        let error = pairs_of(&topology, Some(&[9]), None, None)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("--victim 9:"), "{error}");
        let error = pairs_of(&topology, None, Some(&[7]), None)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("--aggressor 7:"), "{error}");
    }
}
