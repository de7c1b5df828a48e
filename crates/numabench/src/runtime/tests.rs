//! The team runtime: partition, reductions, placement schemes, next-touch.

use super::*;
use crate::topology::discover_this_system;

fn team(scheme: PlacementScheme, threads: usize, pinned: bool) -> Team {
    let topology = discover_this_system().unwrap();
    let thread_scheme = if pinned {
        ThreadScheme::Compact
    } else {
        ThreadScheme::Unpinned
    };
    Team::new(
        &topology,
        plan_cpus(&topology, thread_scheme, threads, 1),
        scheme,
    )
    .unwrap()
}

#[test]
fn blocks_partition_the_range() {
    let team = team(PlacementScheme::FirstTouch, 3, false);
    let blocks: Vec<_> = (0..3).map(|worker| team.block(10, worker)).collect();
    assert_eq!(blocks, vec![0..4, 4..7, 7..10]);
    assert_eq!(team.block(2, 2), 2..2);
}

#[test]
fn every_worker_runs_and_sums_are_exact() {
    for threads in [1, 2, 3] {
        let team = team(PlacementScheme::FirstTouch, threads, true);
        let total = team.sum(|worker| (worker + 1) as f64);
        assert_eq!(total, (threads * (threads + 1) / 2) as f64);
        for _ in 0..1000 {
            // Many small regions back to back: the dispatch must never lose a worker.
            assert_eq!(team.sum(|_| 1.0), threads as f64);
        }
    }
}

#[test]
fn arrays_are_zeroed_written_in_blocks_and_placed() {
    for scheme in PlacementScheme::study_set() {
        let team = team(scheme.clone(), 2, true);
        let array = team.alloc::<f64>(100_000, 1).unwrap();
        assert!(array.as_slice().iter().all(|&value| value == 0.0));
        team.start_compute().unwrap();
        team.run(|worker| {
            let range = team.block(array.len(), worker);
            // SAFETY: blocks of different workers are disjoint.
            let block = unsafe { array.slice_mut(range.clone()) };
            for (offset, value) in block.iter_mut().enumerate() {
                *value = (range.start + offset) as f64;
            }
        });
        team.finish_compute();
        assert!(
            array
                .as_slice()
                .iter()
                .enumerate()
                .all(|(index, &value)| value == index as f64),
            "{scheme}"
        );
        let report = team.page_report().unwrap();
        assert_eq!(
            report.pages_per_node.values().sum::<u64>(),
            100_000 * 8 / 4096 + 1,
            "{scheme}"
        );
        let topology = discover_this_system().unwrap();
        let mut worker_nodes: Vec<Option<u32>> = team
            .cpus()
            .iter()
            .map(|cpu| cpu.and_then(|cpu| topology.node_of_cpu(cpu)))
            .collect();
        worker_nodes.dedup();
        if worker_nodes.len() == 1 {
            assert_eq!(
                report.remote_share,
                Some(0.0),
                "workers on one node: nothing is remote ({scheme})"
            );
        } else {
            // Workers on two nodes (a node with one CPU): the schemes that put each block on
            // its user's node leave at most the boundary pages remote; the others are judged in
            // the VM tests, where the split is known.
            let share = report.remote_share.expect("pinned workers");
            if matches!(
                scheme,
                PlacementScheme::FirstTouch
                    | PlacementScheme::SerialMigrate
                    | PlacementScheme::NextTouch
            ) {
                assert!(share < 0.05, "{scheme}: remote share {share}");
            } else {
                assert!((0.0..=1.0).contains(&share), "{scheme}");
            }
        }
    }
}

#[test]
fn next_touch_migrates_on_first_access() {
    let team = team(PlacementScheme::NextTouch, 2, true);
    let array = team.alloc::<u64>(64 * 512, 512).unwrap();
    team.start_compute().unwrap();
    team.run(|worker| {
        let range = team.block(array.len(), worker);
        // SAFETY: disjoint blocks.
        let block = unsafe { array.slice_mut(range) };
        block.iter_mut().for_each(|value| *value += 1);
    });
    let migrated = team.finish_compute().migrated_pages;
    assert!(array.as_slice().iter().all(|&value| value == 1));
    if memory_nodes() == 1 {
        assert_eq!(migrated, 0, "one node: every page was already there");
    } else {
        assert!(migrated <= 64, "at most each page moved once: {migrated}");
    }
}

/// Nodes with memory this process may use.
fn memory_nodes() -> usize {
    crate::topology::memory_nodes(&discover_this_system().unwrap()).len()
}

/// serial+migrate counts the pages that changed node, not those found on
/// the worker's node afterwards.
#[test]
fn serial_migrate_counts_only_pages_that_moved() {
    let team = team(PlacementScheme::SerialMigrate, 2, true);
    let _array = team.alloc::<u64>(64 * 512, 512).unwrap();
    let migrated = team.start_compute().unwrap();
    if memory_nodes() == 1 {
        assert_eq!(migrated, 0, "one node: every page was already there");
    } else {
        assert!(migrated <= 64, "at most each page moved once: {migrated}");
    }
}

/// Team compact and scatter take CPUs in the tree orders `run`'s
/// pin-compact and pin-scatter use: with siblings numbered 64 apart,
/// compact keeps them together, scatter alternates nodes then L3 domains;
/// over-decomposition repeats each CPU.
#[test]
fn team_schemes_follow_the_tree_orders() {
    use crate::threads::{smt_server, CpuOrder};
    let topology = smt_server(2, 8, 4);
    let planned = |scheme, threads, per_cpu| -> Vec<Option<u32>> {
        plan_cpus(&topology, scheme, threads, per_cpu)
    };
    let expected = |order: CpuOrder, threads: usize| -> Vec<Option<u32>> {
        order.all_allowed(&topology)[..threads]
            .iter()
            .copied()
            .map(Some)
            .collect()
    };
    assert_eq!(
        planned(ThreadScheme::Compact, 4, 1),
        [Some(0), Some(64), Some(1), Some(65)]
    );
    assert_eq!(
        planned(ThreadScheme::Compact, 16, 1),
        expected(CpuOrder::Compact, 16)
    );
    assert_eq!(
        planned(ThreadScheme::Scatter, 4, 1),
        [Some(0), Some(32), Some(4), Some(36)]
    );
    assert_eq!(
        planned(ThreadScheme::Scatter, 16, 1),
        expected(CpuOrder::Scatter, 16)
    );
    assert_eq!(
        planned(ThreadScheme::Scatter, 4, 2),
        [Some(0), Some(0), Some(32), Some(32)]
    );
    assert_eq!(planned(ThreadScheme::Unpinned, 2, 1), [None, None]);
}
