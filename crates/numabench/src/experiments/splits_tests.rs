//! Node split enumeration and its SLIT-symmetry deduplication.

use super::*;
use crate::topology::{fixture_tests::load, synthetic};

fn texts(enumeration: &SplitEnumeration) -> Vec<String> {
    enumeration.splits.iter().map(NodeSplit::text).collect()
}

fn two_sockets(distances: Option<Vec<Vec<u64>>>) -> Machine {
    let mut topology = synthetic("pack:2 [numa(memory=1GiB)] core:2 pu:1");
    topology.distances = distances;
    topology
}

#[test]
fn a_symmetric_two_socket_slit_makes_2_0_and_0_2_one_split() {
    let topology = two_sockets(Some(vec![vec![10, 20], vec![20, 10]]));
    let found = enumerate_node_splits(&topology, 2, 16);
    assert!(found.symmetry_used);
    assert_eq!(texts(&found), ["2/0", "1/1"]);
    assert_eq!(found.splits[0].equivalent, [vec![0, 2]]);
    assert_eq!(found.splits[0].equivalent_count, 1);
    assert_eq!(found.splits[0].cpus.len(), 2);
    assert!(found.splits[0]
        .cpus
        .iter()
        .all(|&cpu| topology.node_of_cpu(cpu) == Some(0)));
    assert!(found.skipped.is_empty());
    assert!(!found.truncated);
}

#[test]
fn without_a_slit_no_two_splits_are_assumed_alike() {
    let found = enumerate_node_splits(&two_sockets(None), 2, 16);
    assert!(!found.symmetry_used);
    assert_eq!(texts(&found), ["2/0", "0/2", "1/1"]);
}

#[test]
fn splits_that_do_not_fit_are_skipped_and_say_why() {
    let topology = two_sockets(Some(vec![vec![10, 20], vec![20, 10]]));
    let found = enumerate_node_splits(&topology, 3, 16);
    assert_eq!(texts(&found), ["2/1"]);
    assert_eq!(found.skipped.len(), 1);
    assert_eq!(found.skipped[0].threads_per_node, [3, 0]);
    assert_eq!(
        found.skipped[0].reason,
        "node 0 has 2 allowed CPU(s) for 3 threads"
    );
}

/// The VM's four_nodes_cpuless_hmat: nodes 0-2 with 2 CPUs each, node 3
/// CPU-less, an asymmetric SLIT: no two splits are alike.
#[test]
fn the_asymmetric_slit_of_the_four_node_vm_keeps_every_split() {
    let mut topology = synthetic("pack:4 [numa(memory=1GiB)] core:2 pu:1");
    let gone = topology.nodes[3].cpus.clone();
    topology.nodes[3].cpus.clear();
    topology.nodes[3].cpuless = true;
    topology.allowed.cpus.retain(|cpu| !gone.contains(cpu));
    topology.distances = Some(vec![
        vec![10, 21, 31, 32],
        vec![24, 10, 21, 17],
        vec![31, 24, 10, 28],
        vec![32, 17, 28, 10],
    ]);
    let found = enumerate_node_splits(&topology, 2, 16);
    assert_eq!(
        texts(&found),
        ["2/0/0/0", "0/2/0/0", "0/0/2/0", "1/1/0/0", "1/0/1/0", "0/1/1/0"]
    );
    assert!(found.splits.iter().all(|split| split.equivalent_count == 0));
    // With a limit, the enumeration stops there and says so.
    let limited = enumerate_node_splits(&topology, 2, 4);
    assert_eq!(limited.splits.len(), 4);
    assert!(limited.truncated);
}

/// AMD NPS4 (2 sockets x 4 nodes; 12 within a socket, 32 across): 4
/// threads give 1 one-node split, 2 even two-node ones (same socket or
/// not), 3 even four-node ones, then 3/1 twice and 2/1/1 three times.
#[test]
fn a_two_socket_eight_node_fixture_dedups_by_socket_symmetry() {
    let topology = load("amd-nps4");
    assert_eq!(topology.nodes.len(), 8);
    let found = enumerate_node_splits(&topology, 4, 64);
    assert_eq!(
        texts(&found),
        [
            "4/0/0/0/0/0/0/0",
            "2/2/0/0/0/0/0/0",
            "2/0/0/0/2/0/0/0",
            "1/1/1/1/0/0/0/0",
            "1/1/1/0/1/0/0/0",
            "1/1/0/0/1/1/0/0",
            "3/1/0/0/0/0/0/0",
            "3/0/0/0/1/0/0/0",
            "2/1/1/0/0/0/0/0",
            "2/1/0/0/1/0/0/0",
            "2/0/0/0/1/1/0/0",
        ]
    );
    // Every one-node placement is the same experiment: 7 equivalents.
    assert_eq!(found.splits[0].equivalent_count, 7);
    // Cores first: four different cores of node 0.
    let cores: std::collections::BTreeSet<usize> = found.splits[0]
        .cpus
        .iter()
        .map(|&cpu| topology.core_of_cpu(cpu).unwrap())
        .collect();
    assert_eq!(cores.len(), 4);
}

#[test]
fn the_split_of_worker_cpus_counts_threads_per_node() {
    let topology = two_sockets(None);
    let cpus: Vec<Option<u32>> = topology.nodes[1]
        .cpus
        .iter()
        .chain(&topology.nodes[0].cpus[..1])
        .map(|&cpu| Some(cpu))
        .collect();
    assert_eq!(node_split_of_cpus(&topology, &cpus).as_deref(), Some("1/2"));
    assert_eq!(node_split_of_cpus(&topology, &[None]), None);
}

#[test]
fn one_node_cpus_fit_or_say_the_most_the_node_takes() {
    let topology = two_sockets(None);
    let first = topology.nodes[1].cpus[0];
    let (node, cpus) = one_node_cpus(&topology, first, 2).unwrap();
    assert_eq!(node, 1);
    assert_eq!(cpus.len(), 2);
    assert_eq!(one_node_cpus(&topology, first, 3), Err(2));
}

/// A 2-socket, 16-node, 256-thread shape (8 nodes a socket: 10 local, 12
/// within a socket, 32 across): wide thread counts enumerate within the
/// candidate bound, equivalent placements fold into one split, and the
/// even spreads come first.
#[test]
fn sixteen_symmetric_nodes_fold_wide_thread_counts() {
    let mut topology = synthetic("pack:2 group:8 [numa(memory=1GiB)] core:8 pu:2");
    assert_eq!(topology.nodes.len(), 16);
    topology.distances = Some(
        (0..16)
            .map(|i: u64| {
                (0..16)
                    .map(|j: u64| match (i == j, i / 8 == j / 8) {
                        (true, _) => 10,
                        (false, true) => 12,
                        (false, false) => 32,
                    })
                    .collect()
            })
            .collect(),
    );
    for threads in [2, 64, 256] {
        let enumeration = enumerate_node_splits(&topology, threads, 16);
        assert!(!enumeration.splits.is_empty(), "{threads} threads");
        let first = &enumeration.splits[0].threads_per_node;
        // 16 CPUs a node: the first split kept is the even one over the
        // fewest nodes that hold the threads.
        assert_eq!(
            first.iter().filter(|&&t| t > 0).count(),
            threads.div_ceil(16),
            "{threads}: {:?}",
            texts(&enumeration)
        );
        let texts = texts(&enumeration);
        let distinct: std::collections::BTreeSet<_> = texts.iter().collect();
        assert_eq!(distinct.len(), texts.len(), "{threads}: a split kept twice");
    }
    // Two threads: one node, two nodes of a socket, two nodes across the
    // sockets — exactly three distinct splits, every other placement folded.
    let two = enumerate_node_splits(&topology, 2, 16);
    assert_eq!(two.splits.len(), 3, "{:?}", texts(&two));
    assert_eq!(
        two.splits.iter().map(|s| s.equivalent_count).sum::<usize>(),
        (16 - 1) + (16 * 7 / 2 - 1) + (8 * 8 - 1),
        "every placement of 2 threads is one of the three"
    );
}
