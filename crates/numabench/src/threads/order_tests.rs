//! CPU orders on hwloc synthetic machines numbered as Linux numbers real
//! ones: the first thread of every core, then all second threads.

use super::*;
use crate::topology::synthetic;

/// `packages` x `l3s` L3 domains x `cores` cores x 2 threads, one node per
/// package; thread t of core k has OS index k + t * (all cores), so SMT
/// siblings are numbered that far apart.
pub(crate) fn smt_server(packages: usize, l3s: usize, cores: usize) -> Machine {
    let all_cores = packages * l3s * cores;
    let indexes: Vec<String> = (0..all_cores)
        .flat_map(|core| [core, core + all_cores])
        .map(|index| index.to_string())
        .collect();
    synthetic(&format!(
        "pack:{packages} [numa(memory=8GiB)] l3:{l3s}(size=32MiB) core:{cores} pu:2(indexes={})",
        indexes.join(",")
    ))
}

/// The core (index into `topology.cores`) of `cpu`.
fn core_of(topology: &Machine, cpu: u32) -> usize {
    topology.core_of_cpu(cpu).expect("every CPU is in a core")
}

/// The L3 domain (index into the L3's groups) of `cpu`.
fn l3_of(topology: &Machine, cpu: u32) -> usize {
    let l3 = topology
        .caches
        .iter()
        .find(|cache| cache.level == 3)
        .expect("an L3");
    l3.cpu_groups
        .iter()
        .position(|group| group.contains(&cpu))
        .expect("every CPU is under an L3")
}

/// Asserts no CPU of `order` is a second thread of its core before every
/// core of the set has a thread.
fn assert_cores_before_siblings(topology: &Machine, order: &[u32]) {
    let mut cores: Vec<usize> = order.iter().map(|&cpu| core_of(topology, cpu)).collect();
    let first_sibling = cores
        .iter()
        .enumerate()
        .position(|(index, core)| cores[..index].contains(core))
        .unwrap_or(order.len());
    cores.sort_unstable();
    cores.dedup();
    assert_eq!(first_sibling, cores.len(), "{order:?}");
}

#[test]
fn the_machine_is_numbered_with_siblings_far_apart() {
    let topology = smt_server(2, 2, 2);
    assert_eq!(topology.cores.len(), 8);
    assert_eq!(topology.cores[0], vec![0, 8]);
    assert_eq!(topology.cores[7], vec![7, 15]);
    assert_eq!(topology.nodes[0].cpus, vec![0, 1, 2, 3, 8, 9, 10, 11]);
}

/// Every CPU of the small SMT server (2 packages x 2 L3s x 2 cores, two
/// threads each) in `order`.
fn small_server_in(order: CpuOrder) -> Vec<u32> {
    order.all_allowed(&smt_server(2, 2, 2))
}

#[test]
fn compact_is_tree_order_with_siblings_together() {
    let expected = vec![0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15];
    assert_eq!(small_server_in(CpuOrder::Compact), expected);
}

#[test]
fn cores_first_spreads_over_l3_domains_before_any_sibling() {
    let topology = smt_server(2, 2, 2);
    let node0 = topology.nodes[0].cpus.clone();
    assert_eq!(
        CpuOrder::CoresFirst.arrange(&topology, &node0),
        vec![0, 2, 1, 3, 8, 10, 9, 11]
    );
}

#[test]
fn scatter_round_robins_nodes_then_l3_domains() {
    let expected = vec![0, 4, 2, 6, 1, 5, 3, 7, 8, 12, 10, 14, 9, 13, 11, 15];
    assert_eq!(small_server_in(CpuOrder::Scatter), expected);
}

/// The shape of the issue: 2 sockets, 8 L3 domains each, siblings 64 apart.
#[test]
fn two_socket_server_with_eight_l3s_per_socket() {
    let topology = smt_server(2, 8, 4);
    assert_eq!(topology.cpu_count, 128);
    assert_eq!(topology.cores[0], vec![0, 64]);
    for node in &topology.nodes {
        let order = CpuOrder::CoresFirst.arrange(&topology, &node.cpus);
        assert_cores_before_siblings(&topology, &order);
        // The first 8 threads take one core of each of the node's 8 L3s.
        let mut l3s: Vec<usize> = order[..8]
            .iter()
            .map(|&cpu| l3_of(&topology, cpu))
            .collect();
        l3s.sort_unstable();
        l3s.dedup();
        assert_eq!(l3s.len(), 8, "{order:?}");
        // The 7th thread is not CPU 0's sibling (every 2nd CPU of the list was).
        assert_ne!(core_of(&topology, order[6]), core_of(&topology, order[0]));
    }
    let scatter = CpuOrder::Scatter.all_allowed(&topology);
    for (index, &cpu) in scatter.iter().enumerate() {
        assert_eq!(topology.node_of_cpu(cpu), Some(index as u32 % 2), "{index}");
    }
    let node0: Vec<u32> = scatter.iter().copied().step_by(2).collect();
    assert_cores_before_siblings(&topology, &node0);
    let mut l3s: Vec<usize> = node0[..8]
        .iter()
        .map(|&cpu| l3_of(&topology, cpu))
        .collect();
    l3s.sort_unstable();
    l3s.dedup();
    assert_eq!(l3s.len(), 8, "{node0:?}");
    let compact = CpuOrder::Compact.all_allowed(&topology);
    for pair in compact.chunks(2) {
        assert_eq!(core_of(&topology, pair[0]), core_of(&topology, pair[1]));
    }
}

#[test]
fn every_order_is_a_permutation_of_the_allowed_cpus_asked_for() {
    let mut topology = smt_server(2, 2, 3);
    topology.allowed.cpus.retain(|&cpu| cpu != 1 && cpu != 13);
    let asked: Vec<u32> = (0..24).filter(|cpu| cpu % 3 != 2).collect();
    let mut expected: Vec<u32> = asked
        .iter()
        .copied()
        .filter(|cpu| topology.allowed.cpus.contains(cpu))
        .collect();
    expected.sort_unstable();
    for order in [CpuOrder::Compact, CpuOrder::CoresFirst, CpuOrder::Scatter] {
        let mut arranged = order.arrange(&topology, &asked);
        arranged.sort_unstable();
        assert_eq!(arranged, expected, "{}", order.name());
    }
}

#[test]
fn cpus_of_no_known_core_count_as_their_own_cores() {
    let mut topology = synthetic("numa:1 core:2 pu:2");
    topology.cores.clear();
    for order in [CpuOrder::Compact, CpuOrder::CoresFirst, CpuOrder::Scatter] {
        assert_eq!(order.all_allowed(&topology), vec![0, 1, 2, 3]);
    }
}
