//! Run policies: how `numabench run` places a program's threads and memory
//! without touching its source. A policy is one or two parts joined by
//! `+`: at most one CPU part (`pin-compact`, `pin-scatter`, `bind:N` — which
//! also binds memory) and at most one memory part (`membind:LIST`,
//! `interleave:LIST|all`, `preferred:N`, `preferred-many:LIST`); `as-is`
//! changes nothing.

use crate::parse::{format_id_list, parse_id_list};
use crate::topology::TopologyReport;
use thiserror::Error;

/// A kernel memory policy for set_mempolicy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryPolicy {
    /// MPOL_* mode.
    pub mode: i32,
    pub nodes: Vec<u32>,
}

pub use crate::memory::syscalls::MPOL_PREFERRED_MANY;
pub use libc::{MPOL_BIND, MPOL_INTERLEAVE, MPOL_PREFERRED};

/// A validated policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunPolicy {
    /// As the user wrote it.
    pub label: String,
    /// CPUs in the order threads get them (thread n -> n-th), when pinning.
    pub pin_order: Option<Vec<u32>>,
    /// The process's CPU affinity set (bind:N), when restricted.
    pub affinity: Option<Vec<u32>>,
    pub memory: Option<MemoryPolicy>,
}

/// A policy that cannot be used here.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PolicyError {
    #[error("unknown policy '{0}' (valid: as-is, pin-compact, pin-scatter, bind:N, membind:LIST, interleave:LIST|all, preferred:N, preferred-many:LIST, joined with '+')")]
    Unknown(String),
    #[error("policy '{policy}': {reason}")]
    Invalid { policy: String, reason: String },
}

fn nodes_of(policy: &str, text: &str, topology: &TopologyReport) -> Result<Vec<u32>, PolicyError> {
    let invalid = |reason: String| PolicyError::Invalid {
        policy: policy.to_string(),
        reason,
    };
    let nodes = if text == "all" {
        topology.allowed.nodes.clone()
    } else {
        parse_id_list(text).map_err(|error| invalid(error.to_string()))?
    };
    for node in &nodes {
        if topology.node(*node).is_none() {
            let known: Vec<u32> = topology.nodes.iter().map(|node| node.index).collect();
            return Err(invalid(format!(
                "node {node} does not exist (this machine has nodes {})",
                format_id_list(&known)
            )));
        }
        if !topology.allowed.nodes.contains(node) {
            return Err(invalid(format!(
                "node {node} is not allowed to this process"
            )));
        }
    }
    Ok(nodes)
}

/// Allowed CPUs in compact order (ascending) or scatter order (round-robin
/// over nodes: node 0's first CPU, node 1's first CPU, ...).
pub fn pin_order(topology: &TopologyReport, scatter: bool) -> Vec<u32> {
    let allowed = &topology.allowed.cpus;
    if !scatter {
        return allowed.clone();
    }
    let per_node: Vec<Vec<u32>> = topology
        .nodes
        .iter()
        .map(|node| {
            node.cpus
                .iter()
                .copied()
                .filter(|cpu| allowed.contains(cpu))
                .collect::<Vec<u32>>()
        })
        .filter(|cpus| !cpus.is_empty())
        .collect();
    let longest = per_node.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|index| {
            per_node
                .iter()
                .filter_map(move |cpus| cpus.get(index).copied())
        })
        .collect()
}

/// Parses and validates a policy against the topology.
pub fn parse_policy(text: &str, topology: &TopologyReport) -> Result<RunPolicy, PolicyError> {
    let mut policy = RunPolicy {
        label: text.to_string(),
        pin_order: None,
        affinity: None,
        memory: None,
    };
    let invalid = |reason: &str| PolicyError::Invalid {
        policy: text.to_string(),
        reason: reason.to_string(),
    };
    for part in text.split('+') {
        let (name, argument) = part
            .split_once(':')
            .map_or((part, None), |(name, argument)| (name, Some(argument)));
        let cpu_part = matches!(name, "pin-compact" | "pin-scatter" | "bind");
        if cpu_part && (policy.pin_order.is_some() || policy.affinity.is_some()) {
            return Err(invalid("more than one CPU placement"));
        }
        let memory_part = matches!(
            name,
            "bind" | "membind" | "interleave" | "preferred" | "preferred-many"
        );
        if memory_part && policy.memory.is_some() {
            return Err(invalid("more than one memory policy"));
        }
        match (name, argument) {
            ("as-is", None) => {}
            ("pin-compact", None) => policy.pin_order = Some(pin_order(topology, false)),
            ("pin-scatter", None) => policy.pin_order = Some(pin_order(topology, true)),
            ("bind", Some(node)) => {
                let nodes = nodes_of(text, node, topology)?;
                let [node] = nodes[..] else {
                    return Err(invalid("bind takes one node"));
                };
                let cpus: Vec<u32> = topology
                    .node(node)
                    .map(|info| {
                        info.cpus
                            .iter()
                            .copied()
                            .filter(|cpu| topology.allowed.cpus.contains(cpu))
                            .collect()
                    })
                    .unwrap_or_default();
                if cpus.is_empty() {
                    return Err(invalid(&format!("node {node} has no CPUs this process may use; use membind:{node} for its memory")));
                }
                policy.affinity = Some(cpus);
                policy.memory = Some(MemoryPolicy {
                    mode: MPOL_BIND,
                    nodes: vec![node],
                });
            }
            ("membind", Some(list)) => {
                policy.memory = Some(MemoryPolicy {
                    mode: MPOL_BIND,
                    nodes: nodes_of(text, list, topology)?,
                })
            }
            ("interleave", Some(list)) => {
                policy.memory = Some(MemoryPolicy {
                    mode: MPOL_INTERLEAVE,
                    nodes: nodes_of(text, list, topology)?,
                })
            }
            ("preferred", Some(node)) => {
                let nodes = nodes_of(text, node, topology)?;
                if nodes.len() != 1 {
                    return Err(invalid(
                        "preferred takes one node (preferred-many takes a list)",
                    ));
                }
                policy.memory = Some(MemoryPolicy {
                    mode: MPOL_PREFERRED,
                    nodes,
                });
            }
            ("preferred-many", Some(list)) => {
                let nodes = nodes_of(text, list, topology)?;
                if !kernel_accepts(MPOL_PREFERRED_MANY, &nodes) {
                    return Err(invalid(
                        "this kernel does not support MPOL_PREFERRED_MANY (Linux 5.15 or later)",
                    ));
                }
                policy.memory = Some(MemoryPolicy {
                    mode: MPOL_PREFERRED_MANY,
                    nodes,
                });
            }
            _ => return Err(PolicyError::Unknown(text.to_string())),
        }
    }
    Ok(policy)
}

/// Whether set_mempolicy accepts `mode`, tried on a throwaway thread (a
/// memory policy is per thread, so ours is untouched).
fn kernel_accepts(mode: i32, nodes: &[u32]) -> bool {
    let nodes = nodes.to_vec();
    std::thread::spawn(move || set_mempolicy(&MemoryPolicy { mode, nodes }).is_ok())
        .join()
        .unwrap_or(false)
}

/// set_mempolicy(2) for the calling thread. Async-signal-safe (one system
/// call, no allocation), so it can run between fork and exec.
pub fn set_mempolicy(policy: &MemoryPolicy) -> std::io::Result<()> {
    crate::memory::syscalls::set_mempolicy(policy.mode, &policy.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_nodes() -> TopologyReport {
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
        let bind = parse_policy("bind:1", &topology).unwrap();
        assert_eq!(bind.affinity, Some(vec![2, 3]));
        assert_eq!(
            bind.memory,
            Some(MemoryPolicy {
                mode: MPOL_BIND,
                nodes: vec![1]
            })
        );
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
            MPOL_BIND
        );
        assert_eq!(
            parse_policy("preferred:1", &topology)
                .unwrap()
                .memory
                .unwrap()
                .mode,
            MPOL_PREFERRED
        );
        let both = parse_policy("pin-scatter+interleave:all", &topology).unwrap();
        assert_eq!(both.pin_order, Some(vec![0, 2, 1, 3]));
        assert_eq!(both.memory.unwrap().mode, MPOL_INTERLEAVE);
    }

    #[test]
    fn rejects_bad_policies_naming_them() {
        let topology = two_nodes();
        for (text, expected) in [
            ("bind:7", "node 7 does not exist"),
            ("interleave:0,9", "node 9 does not exist"),
            ("pin-sideways", "unknown policy 'pin-sideways'"),
            ("pin-compact+pin-scatter", "more than one CPU placement"),
            ("membind:0+interleave:1", "more than one memory policy"),
            ("preferred:0-1", "preferred takes one node"),
            ("interleave:x", "malformed list"),
        ] {
            let error = parse_policy(text, &topology).unwrap_err().to_string();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
