//! Which nodes this process can use, as the topology says: the nodes its
//! threads can run on and the nodes its memory can be placed on. Every
//! measuring module asks these two questions of the same report.

use super::Machine;

/// Nodes this process can run threads on (nodes with allowed CPUs).
pub fn cpu_nodes(topology: &Machine) -> Vec<u32> {
    topology
        .nodes
        .iter()
        .filter(|node| {
            node.cpus
                .iter()
                .any(|cpu| topology.allowed.cpus.contains(cpu))
        })
        .map(|node| node.index)
        .collect()
}

/// Nodes this process can place memory on (allowed nodes with memory),
/// CPU-less ones included.
pub fn memory_nodes(topology: &Machine) -> Vec<u32> {
    topology
        .nodes
        .iter()
        .filter(|node| node.memory_total_bytes > 0 && topology.allowed.nodes.contains(&node.index))
        .map(|node| node.index)
        .collect()
}
