//! Run policies: how `numabench run` places a program's threads and memory
//! without touching its source. A policy is one or two parts joined by
//! `+`: at most one CPU part (`pin-compact`, `pin-scatter` — threads in
//! [`CpuOrder::Compact`] or [`CpuOrder::Scatter`] order —, `pin-k-per-core:K`
//! — K threads on each core, cores in [`CpuOrder::CoresFirst`] order — or
//! `bind:N`, which
//! also binds memory) and at most one memory part (`membind:LIST`,
//! `interleave:LIST|all`, `preferred:N`, `preferred-many:LIST`); `as-is`
//! changes nothing.

use super::rank_blocks::{for_this_process, k_per_core, RankBlocks};
use crate::memory::weighted::{self, NoKernelWeights, WeightedMode};
use crate::memory::{MemoryPolicy, NotOneNode, PolicyMode, PolicyTextError};
use crate::parse::format_id_list;
use crate::threads::CpuOrder;
use crate::topology::Machine;
use thiserror::Error;

/// A validated policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunPolicy {
    /// As the user wrote it.
    pub label: String,
    /// CPUs in the order threads get them (thread n -> n-th), when pinning.
    pub pin_order: Option<Vec<u32>>,
    /// The order `pin_order` follows (compact for pin-compact, scatter for
    /// pin-scatter), when pinning.
    pub cpu_order: Option<CpuOrder>,
    /// How MPI ranks started by the command get their own blocks of CPUs
    /// (pinning policies only).
    pub rank_blocks: Option<RankBlocks>,
    /// The process's CPU affinity set (bind:N), when restricted.
    pub affinity: Option<Vec<u32>>,
    pub memory: Option<MemoryPolicy>,
}

/// A policy that cannot be used here.
///
/// Always the user's fault (the `--policy` text, or a node it names).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PolicyError {
    /// A part that is no policy.
    #[error("unknown policy '{policy}' (valid: as-is, pin-compact, pin-scatter, pin-k-per-core:K, bind:N, membind:LIST, interleave:LIST|all, preferred:N, preferred-many:LIST, joined with '+')")]
    Unknown { policy: String },
    /// A policy that cannot be used here, and why.
    #[error("policy '{policy}': {reason}")]
    Invalid {
        policy: String,
        reason: PolicyProblem,
    },
}

/// What is wrong with a policy ([`PolicyError::Invalid`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PolicyProblem {
    #[error("more than one CPU placement")]
    TwoCpuParts,
    #[error("more than one memory policy")]
    TwoMemoryParts,
    #[error("K must be a whole number from 1 to 64")]
    BadK,
    #[error(transparent)]
    Text(#[from] PolicyTextError),
    #[error(transparent)]
    OneNode(#[from] NotOneNode),
    #[error("node {node} does not exist (this machine has nodes {known})")]
    NoSuchNode { node: u32, known: String },
    #[error("node {node} is not allowed to this process")]
    NotAllowed { node: u32 },
    #[error("node {node} has no CPUs this process may use; use membind:{node} for its memory")]
    NoCpus { node: u32 },
    #[error(transparent)]
    NoKernelWeights(#[from] NoKernelWeights),
    #[error("this kernel refuses MPOL_WEIGHTED_INTERLEAVE")]
    WeightedRefused,
    #[error("this kernel has no weighted interleave (Linux 6.9 or later, {dir}), and a program numabench starts cannot be given an emulated one", dir = weighted::WEIGHTS_DIR)]
    NoWeightedInterleave,
    #[error("the kernel's weights for nodes {nodes} are {held} ({dir}/nodeN), not {wanted}: add --set-weights to write them for the run (root), or use weighted:{nodes} for the kernel's own", dir = weighted::WEIGHTS_DIR)]
    KernelWeights {
        nodes: String,
        held: String,
        wanted: String,
    },
    #[error("this kernel does not support MPOL_PREFERRED_MANY (Linux 5.15 or later)")]
    NoPreferredMany,
}

crate::error::all_faulty!(Usage: PolicyError, PolicyProblem);

/// `nodes` checked against the machine: each must exist and be allowed to
/// this process; none stands for every allowed node (`all`).
fn nodes_of(policy: &str, nodes: &[u32], topology: &Machine) -> Result<Vec<u32>, PolicyError> {
    let invalid = |reason: PolicyProblem| PolicyError::Invalid {
        policy: policy.to_string(),
        reason,
    };
    if nodes.is_empty() {
        return Ok(topology.allowed.nodes.clone());
    }
    for node in nodes {
        if topology.node(*node).is_none() {
            let known: Vec<u32> = topology.nodes.iter().map(|node| node.index).collect();
            return Err(invalid(PolicyProblem::NoSuchNode {
                node: *node,
                known: format_id_list(&known),
            }));
        }
        if !topology.allowed.nodes.contains(node) {
            return Err(invalid(PolicyProblem::NotAllowed { node: *node }));
        }
    }
    Ok(nodes.to_vec())
}

/// Parses and validates a policy against the topology.
pub fn parse_policy(text: &str, topology: &Machine) -> Result<RunPolicy, PolicyError> {
    let mut policy = RunPolicy {
        label: text.to_string(),
        pin_order: None,
        cpu_order: None,
        rank_blocks: None,
        affinity: None,
        memory: None,
    };
    let invalid = |reason: PolicyProblem| PolicyError::Invalid {
        policy: text.to_string(),
        reason,
    };
    for part in text.split('+') {
        let (name, argument) = part
            .split_once(':')
            .map_or((part, None), |(name, argument)| (name, Some(argument)));
        let cpu_part = matches!(
            name,
            "pin-compact" | "pin-scatter" | "pin-k-per-core" | "bind"
        );
        if cpu_part && (policy.pin_order.is_some() || policy.affinity.is_some()) {
            return Err(invalid(PolicyProblem::TwoCpuParts));
        }
        let memory_part = matches!(
            name,
            "bind" | "membind" | "interleave" | "preferred" | "preferred-many" | "weighted"
        );
        if memory_part && policy.memory.is_some() {
            return Err(invalid(PolicyProblem::TwoMemoryParts));
        }
        match (name, argument) {
            ("as-is", None) => {}
            ("pin-compact" | "pin-scatter", None) => {
                let order = match name {
                    "pin-compact" => CpuOrder::Compact,
                    _ => CpuOrder::Scatter,
                };
                policy.pin_order = Some(order.all_allowed(topology));
                policy.cpu_order = Some(order);
                policy.rank_blocks = for_this_process(topology, RankBlocks::of_order(order));
            }
            ("pin-k-per-core", Some(k)) => {
                let k = k
                    .parse::<usize>()
                    .ok()
                    .filter(|k| (1..=64).contains(k))
                    .ok_or_else(|| invalid(PolicyProblem::BadK))?;
                let (order, blocks) = k_per_core(topology, k);
                policy.pin_order = Some(order);
                policy.cpu_order = Some(CpuOrder::CoresFirst);
                policy.rank_blocks = for_this_process(topology, blocks);
            }
            (_, Some(_)) if memory_part => {
                let memory = match MemoryPolicy::parse(part) {
                    Some(parsed) => parsed.map_err(|reason| invalid(reason.into()))?,
                    None => {
                        return Err(PolicyError::Unknown {
                            policy: text.to_string(),
                        })
                    }
                };
                let memory = MemoryPolicy {
                    nodes: nodes_of(text, &memory.nodes, topology)?,
                    ..memory
                };
                if matches!(name, "bind" | "preferred") {
                    memory
                        .single_node()
                        .map_err(|reason| invalid(reason.into()))?;
                }
                if name == "bind" {
                    policy.affinity = Some(cpus_of(&memory, topology).map_err(invalid)?);
                }
                // This kernel's weights say nothing of another machine's (a plan for a file).
                if let (Some(mode), true) = (memory.weighted_mode(), topology.this_system) {
                    weighted_in_kernel(&memory, mode).map_err(invalid)?;
                }
                if memory.mode == PolicyMode::PreferredMany && !kernel_accepts(&memory) {
                    return Err(invalid(PolicyProblem::NoPreferredMany));
                }
                policy.memory = Some(memory);
            }
            _ => {
                return Err(PolicyError::Unknown {
                    policy: text.to_string(),
                })
            }
        }
    }
    Ok(policy)
}

/// The allowed CPUs of a `bind:N` policy's node, or why there are none.
fn cpus_of(memory: &MemoryPolicy, topology: &Machine) -> Result<Vec<u32>, PolicyProblem> {
    let node = memory.single_node()?;
    let cpus = topology.allowed_cpus_of_node(node);
    if cpus.is_empty() {
        return Err(PolicyProblem::NoCpus { node });
    }
    Ok(cpus)
}

/// A weighted interleave for a program numabench starts: the kernel's
/// only (nothing can bind that program's buffers chunk by chunk), so its
/// weights must be the policy's, or `--set-weights` writes them.
fn weighted_in_kernel(
    memory: &MemoryPolicy,
    mode: Result<WeightedMode, NoKernelWeights>,
) -> Result<(), PolicyProblem> {
    match mode? {
        WeightedMode::Kernel if kernel_accepts(memory) => Ok(()),
        WeightedMode::Kernel => Err(PolicyProblem::WeightedRefused),
        WeightedMode::Emulated => {
            let held = weighted::kernel_weights()
                .and_then(|kernel| weighted::kernel_weights_of(&memory.nodes, &kernel));
            let joined = |weights: &[u32]| {
                weights
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            };
            Err(match held {
                None => PolicyProblem::NoWeightedInterleave,
                Some(held) => PolicyProblem::KernelWeights {
                    nodes: format_id_list(&memory.nodes),
                    held: joined(&held),
                    wanted: joined(&memory.weights),
                },
            })
        }
    }
}

/// Whether set_mempolicy accepts `policy`, tried on a throwaway thread (a
/// memory policy is per thread, so ours is untouched).
fn kernel_accepts(policy: &MemoryPolicy) -> bool {
    let policy = policy.clone();
    std::thread::spawn(move || policy.set_for_this_thread().is_ok())
        .join()
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_nodes() -> Machine {
        crate::topology::synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1")
    }

    #[test]
    fn parses_every_policy_and_combination() {
        let topology = two_nodes();
        assert_eq!(parse_policy("as-is", &topology).unwrap().pin_order, None);
        assert_eq!(
            parse_policy("pin-compact", &topology).unwrap().pin_order,
            Some(vec![0, 1, 2, 3])
        );
        assert_eq!(
            parse_policy("pin-scatter", &topology).unwrap().pin_order,
            Some(vec![0, 2, 1, 3])
        );
        let per_core = parse_policy("pin-k-per-core:2", &topology).unwrap();
        assert_eq!(per_core.pin_order, Some(vec![0, 0, 1, 1, 2, 2, 3, 3]));
        assert_eq!(per_core.cpu_order, Some(CpuOrder::CoresFirst));
        assert_eq!(
            per_core.rank_blocks.unwrap().cores,
            vec![vec![0], vec![1], vec![2], vec![3]]
        );
        assert_eq!(
            parse_policy("pin-scatter", &topology)
                .unwrap()
                .rank_blocks
                .unwrap()
                .rule,
            "scatter"
        );
        let bind = parse_policy("bind:1", &topology).unwrap();
        assert_eq!(bind.affinity, Some(vec![2, 3]));
        assert_eq!(bind.memory, Some(MemoryPolicy::bind(1)));
        assert_eq!(
            parse_policy("interleave:all", &topology)
                .unwrap()
                .memory
                .unwrap()
                .nodes,
            vec![0, 1]
        );
        assert_eq!(
            parse_policy("membind:0-1", &topology)
                .unwrap()
                .memory
                .unwrap()
                .mode,
            PolicyMode::Bind
        );
        assert_eq!(
            parse_policy("preferred:1", &topology)
                .unwrap()
                .memory
                .unwrap()
                .mode,
            PolicyMode::Preferred
        );
        let both = parse_policy("pin-scatter+interleave:all", &topology).unwrap();
        assert_eq!(both.pin_order, Some(vec![0, 2, 1, 3]));
        assert_eq!(both.memory.unwrap().mode, PolicyMode::Interleave);
    }

    /// `bind:N` and `interleave:LIST` mean the same memory policy to
    /// `stream --placement` (and cg, mg) and to `run --policy`.
    #[test]
    fn apps_and_run_read_the_shared_forms_as_one_policy() {
        let topology = two_nodes();
        for text in ["bind:1", "interleave:0-1", "interleave:1"] {
            let placement = crate::runtime::PlacementScheme::parse(text).unwrap();
            let run = parse_policy(text, &topology).unwrap();
            assert_eq!(placement.memory_policy(), run.memory.as_ref(), "{text}");
            assert_eq!(placement.to_string(), run.label);
        }
        assert_eq!(
            parse_policy("bind:1", &topology).unwrap().memory,
            Some(MemoryPolicy::bind(1))
        );
        assert_eq!(
            parse_policy("membind:1", &topology).unwrap().memory,
            parse_policy("bind:1", &topology).unwrap().memory
        );
    }

    /// pin-compact and pin-scatter follow the orders of the object tree:
    /// with siblings numbered 64 apart, compact puts them together (not
    /// ascending OS index), scatter alternates nodes and L3 domains.
    #[test]
    fn pin_policies_follow_the_tree_orders() {
        let topology = crate::threads::smt_server(2, 8, 4);
        let compact = parse_policy("pin-compact", &topology).unwrap();
        assert_eq!(compact.cpu_order, Some(CpuOrder::Compact));
        let order = compact.pin_order.unwrap();
        assert_eq!(order, CpuOrder::Compact.all_allowed(&topology));
        assert_eq!(order[..4], [0, 64, 1, 65]);
        let scatter = parse_policy("pin-scatter+interleave:all", &topology).unwrap();
        assert_eq!(scatter.cpu_order, Some(CpuOrder::Scatter));
        let order = scatter.pin_order.unwrap();
        assert_eq!(order, CpuOrder::Scatter.all_allowed(&topology));
        // Node 0, node 1, then node 0's next L3 domain (4 cores per L3).
        assert_eq!(order[..4], [0, 32, 4, 36]);
        assert_eq!(parse_policy("bind:1", &topology).unwrap().cpu_order, None);
    }

    #[test]
    fn rejects_bad_policies_naming_them() {
        let topology = two_nodes();
        for (text, expected) in [
            ("bind:7", "node 7 does not exist"),
            ("interleave:0,9", "node 9 does not exist"),
            ("pin-sideways", "unknown policy 'pin-sideways'"),
            ("pin-compact+pin-scatter", "more than one CPU placement"),
            ("pin-k-per-core:0", "K must be a whole number from 1 to 64"),
            ("pin-k-per-core:x", "K must be a whole number from 1 to 64"),
            ("pin-k-per-core", "unknown policy 'pin-k-per-core'"),
            ("membind:0+interleave:1", "more than one memory policy"),
            ("preferred:0-1", "preferred takes one node"),
            ("interleave:x", "malformed list"),
        ] {
            let error = parse_policy(text, &topology).unwrap_err().to_string();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
