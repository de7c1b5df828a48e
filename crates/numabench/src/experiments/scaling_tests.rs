//! Thread lists, the sweep rule, the scaling order and its node counts.

use super::*;
use crate::runtime::PlacementScheme;
use crate::threads::smt_server;

#[test]
fn thread_lists_are_read_ascending() {
    assert_eq!(parse_thread_counts("4").unwrap(), vec![4]);
    assert_eq!(parse_thread_counts("4,1, 2").unwrap(), vec![1, 2, 4]);
}

#[test]
fn bad_thread_lists_name_the_bad_value() {
    for (text, expected) in [
        ("0", "thread count 0 in '0'"),
        ("1,0,2", "thread count 0 in '1,0,2'"),
        ("1,2,2", "thread count 2 is listed twice in '1,2,2'"),
        ("1,,2", "thread count '' in '1,,2'"),
        ("1,x", "thread count 'x' in '1,x'"),
        ("-1", "thread count '-1'"),
    ] {
        let error = parse_thread_counts(text).unwrap_err().to_string();
        assert!(error.contains(expected), "{text}: {error}");
    }
}

/// Powers of two up to the allowed CPUs, and all of them when that is no
/// power of two.
#[test]
fn the_sweep_doubles_and_ends_at_every_allowed_cpu() {
    assert_eq!(sweep_counts(1), vec![1]);
    assert_eq!(sweep_counts(2), vec![1, 2]);
    assert_eq!(sweep_counts(6), vec![1, 2, 4, 6]);
    assert_eq!(sweep_counts(8), vec![1, 2, 4, 8]);
    assert_eq!(sweep_counts(12), vec![1, 2, 4, 8, 12]);
    assert_eq!(sweep_counts(0), Vec::<usize>::new());
}

fn core_of(topology: &Machine, cpu: u32) -> usize {
    topology.core_of_cpu(cpu).unwrap()
}

/// Compact: node 0's cores, then node 1's, then the second threads; so
/// the first 16 threads are on 16 cores of node 0, the next 16 add node
/// 1, and only then does a core get its second thread.
#[test]
fn compact_scaling_fills_cores_node_by_node_before_siblings() {
    let topology = smt_server(2, 4, 4);
    let order = scaling_cpus(&topology, ThreadScheme::Compact).unwrap();
    assert_eq!(order.len(), topology.allowed.cpus.len());
    let mut sorted = order.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), order.len(), "a CPU twice: {order:?}");
    let node_of = |cpu: u32| topology.node_of_cpu(cpu).unwrap();
    assert!(
        order[..16].iter().all(|&cpu| node_of(cpu) == 0),
        "{order:?}"
    );
    assert!(
        order[16..32].iter().all(|&cpu| node_of(cpu) == 1),
        "{order:?}"
    );
    let mut cores: Vec<usize> = order[..32]
        .iter()
        .map(|&cpu| core_of(&topology, cpu))
        .collect();
    cores.sort_unstable();
    cores.dedup();
    assert_eq!(cores.len(), 32, "a sibling before every core had a thread");
    // Within node 0, the first four threads spread over its four L3 domains.
    assert_eq!(
        order[..4].to_vec(),
        CpuOrder::CoresFirst.arrange(&topology, &topology.nodes[0].cpus)[..4].to_vec()
    );
    let cpus =
        |count: usize| -> Vec<Option<u32>> { order[..count].iter().copied().map(Some).collect() };
    assert_eq!(nodes_used(&topology, &cpus(1)), Some(1));
    assert_eq!(nodes_used(&topology, &cpus(16)), Some(1));
    assert_eq!(nodes_used(&topology, &cpus(17)), Some(2));
    assert_eq!(nodes_used(&topology, &[None, Some(0)]), None);
}

/// Scatter deals over the nodes; unpinned has no order.
#[test]
fn scatter_scaling_alternates_nodes_and_unpinned_has_no_cpus() {
    let topology = smt_server(2, 4, 4);
    let order = scaling_cpus(&topology, ThreadScheme::Scatter).unwrap();
    let node_of = |cpu: u32| topology.node_of_cpu(cpu).unwrap();
    assert_eq!((node_of(order[0]), node_of(order[1])), (0, 1));
    assert!(scaling_cpus(&topology, ThreadScheme::Unpinned).is_none());
    assert_eq!(
        scaling_order_name(ThreadScheme::Compact),
        Some(CORES_FIRST_BY_NODE)
    );
}

/// Each count takes the first CPUs of the order, over-decomposition kept.
#[test]
fn scaling_configs_take_the_first_cpus_of_the_order() {
    let topology = smt_server(2, 4, 4);
    let base = AppRunConfig {
        threads_per_cpu: 2,
        repeat: 3,
        ..AppRunConfig::new(1, ThreadScheme::Compact, PlacementScheme::FirstTouch)
    };
    let configs = scaling_configs(&topology, &base, &[1, 4]);
    let order = scaling_cpus(&topology, ThreadScheme::Compact).unwrap();
    assert_eq!(configs[1].threads, 8);
    assert_eq!(configs[1].cpus.as_deref(), Some(&order[..4]));
    let workers = configs[1].worker_cpus(&topology);
    assert_eq!(workers.len(), 8);
    assert_eq!(workers[0], workers[1]);
    assert_eq!(workers[7], Some(order[3]));
}

/// Real runs of a small STREAM at 1 and 2 threads (1 only on a one-CPU
/// machine): the counts run interleaved, rotated, each count's records (time, then
/// speedup and parallel efficiency against the smallest count) come after
/// its last run, and the derived values follow from the time records.
#[test]
fn counts_run_interleaved_and_derive_from_their_medians() {
    let topology = crate::topology::discover_this_system().unwrap();
    let counts = sweep_counts(topology.allowed.cpus.len().min(2));
    let base = AppRunConfig {
        repeat: 3,
        ..AppRunConfig::new(1, ThreadScheme::Compact, PlacementScheme::FirstTouch)
    };
    let configs = scaling_configs(&topology, &base, &counts);
    let choice = AppChoice::Stream {
        elements: 1 << 12,
        iterations: 2,
        simd: None,
    };
    let (mut pipeline, collected) = crate::output::CollectSink::pipeline(&topology);
    let mut started = Vec::new();
    let rows = run_thread_scaling(
        &topology,
        &choice,
        &configs,
        3,
        &mut pipeline,
        &mut |repetition, config| {
            started.push((repetition, config.threads, collected.records().len()));
        },
    )
    .unwrap();
    // Rotated: repetition r starts with count r mod n.
    let n = counts.len();
    let expected: Vec<(usize, usize)> = (0..3)
        .flat_map(|repetition| {
            let counts = &counts;
            (0..n).map(move |position| (repetition, counts[(position + repetition) % n]))
        })
        .collect();
    let order: Vec<(usize, usize)> = started.iter().map(|&(r, t, _)| (r, t)).collect();
    assert_eq!(order, expected);
    let last_round = started.len() - counts.len();
    assert!(started[..=last_round]
        .iter()
        .all(|&(_, _, emitted)| emitted == 0));
    assert_eq!(rows.len(), counts.len());
    let records = collected.records();
    let value = |metric: &str, threads: usize| {
        records
            .iter()
            .find(|record| record.metric == metric && record.params["threads"] == threads)
            .unwrap_or_else(|| panic!("no {metric} for {threads}"))
            .value
    };
    let reference = value("time", counts[0]);
    for &count in &counts {
        let speedup = value("speedup", count);
        assert!((speedup - reference / value("time", count)).abs() < 1e-12);
        let efficiency = value("parallel_efficiency", count);
        assert!((efficiency - speedup * counts[0] as f64 / count as f64).abs() < 1e-12);
    }
    assert_eq!(value("speedup", counts[0]), 1.0);
}
