//! `report_from_hwloc`, the table and the DRAM working sets on realistic
//! machine shapes: the hwloc XML fixtures `tests/fixtures/*.xml`, made by
//! `tests/fixtures/make-fixtures.sh` (its header describes every machine
//! and the values asserted here).

use super::{keep_memory_side_caches, render_table, report_from_hwloc, Machine, MemorySideCache};
use crate::bench::{working_set_for, CACHE_MULTIPLE};
use hwlocality::Topology;

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// The report of fixture `name` (`tests/fixtures/<name>.xml`), loaded as
/// another machine: nothing is asked of this one's kernel.
pub(crate) fn load(name: &str) -> Machine {
    let path = format!("{}/tests/fixtures/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    let topology = keep_memory_side_caches(Topology::builder())
        .unwrap()
        .from_xml_file(&path)
        .unwrap_or_else(|error| panic!("cannot read {path}: {error}"))
        .build()
        .unwrap_or_else(|error| panic!("cannot build the topology of {path}: {error}"));
    assert!(!topology.is_this_system());
    report_from_hwloc(&topology)
}

/// CPUs of `cores` cores numbered from `first`, with `threads` threads each
/// `stride` apart (Linux numbers every core's first thread, then the second
/// ones), sorted.
fn smt_cpus(first: u32, cores: u32, threads: u32, stride: u32) -> Vec<u32> {
    let mut cpus: Vec<u32> = (0..threads)
        .flat_map(|thread| (first..first + cores).map(move |core| core + thread * stride))
        .collect();
    cpus.sort_unstable();
    cpus
}

/// `(level, type, size, count, cpus per cache)` of each CPU cache entry.
fn cache_shapes(report: &Machine) -> Vec<(u32, &str, u64, usize, usize)> {
    report
        .caches
        .iter()
        .map(|cache| {
            (
                cache.level,
                cache.cache_type.as_str(),
                cache.size_bytes,
                cache.count,
                cache.cpus_per_cache,
            )
        })
        .collect()
}

fn cpuless(report: &Machine) -> Vec<u32> {
    report
        .nodes
        .iter()
        .filter(|node| node.cpuless)
        .map(|node| node.index)
        .collect()
}

/// The DRAM working sets of every node's CPUs on their node, of every node's
/// CPUs on every CPU-less node, and of all CPUs on all nodes: sized against
/// every cache in front, at least 4x them unless the nodes cannot hold it
/// (then as much as is safe, and marked). Returns the working set of all.
fn check_working_sets(report: &Machine) -> crate::bench::WorkingSet {
    let all_nodes: Vec<u32> = report.nodes.iter().map(|node| node.index).collect();
    let mut cases: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
    for node in report.nodes.iter().filter(|node| !node.cpuless) {
        cases.push((node.cpus.clone(), vec![node.index]));
        for target in report.nodes.iter().filter(|node| node.cpuless) {
            cases.push((node.cpus.clone(), vec![target.index]));
        }
    }
    cases.push((report.allowed.cpus.clone(), all_nodes.clone()));
    for (cpus, nodes) in &cases {
        let set = working_set_for(report, cpus, nodes);
        let in_front = report.cache_bytes_in_front(cpus, nodes);
        assert_eq!(set.cache_bytes_in_front, in_front, "{nodes:?}");
        assert!(in_front > 0, "{nodes:?}");
        let smallest = nodes
            .iter()
            .map(|node| report.node(*node).unwrap().memory_total_bytes)
            .min()
            .unwrap();
        if set.cache_affected {
            assert_eq!(set.bytes, smallest / 4, "{nodes:?}: as much as is safe");
            assert!(set.bytes < CACHE_MULTIPLE * in_front, "{nodes:?}");
        } else {
            assert!(
                set.bytes >= CACHE_MULTIPLE * in_front,
                "{nodes:?}: {} < 4 x {in_front}",
                set.bytes
            );
            assert!(set.bytes <= smallest / 4, "{nodes:?}");
        }
    }
    working_set_for(report, &report.allowed.cpus, &all_nodes)
}

#[test]
fn two_socket_smt_server() {
    let report = load("two-socket-smt");
    assert_eq!(
        (report.cpu_count, report.core_count, report.node_count),
        (128, 64, 2)
    );
    assert_eq!(report.threads_per_core(), 2);
    assert_eq!(report.packages[0].cpus, smt_cpus(0, 32, 2, 64));
    assert_eq!(report.nodes[0].cpus, smt_cpus(0, 32, 2, 64));
    assert_eq!(report.nodes[1].cpus, smt_cpus(32, 32, 2, 64));
    assert!(cpuless(&report).is_empty());
    assert_eq!(
        cache_shapes(&report),
        vec![
            (1, "data", 32 * KIB, 64, 2),
            (2, "unified", MIB, 64, 2),
            (3, "unified", 32 * MIB, 16, 8),
        ]
    );
    // SMT siblings are 64 apart and share their L1 and L2.
    assert_eq!(report.caches[0].cpu_groups[5], vec![5, 69]);
    assert_eq!(report.shared_cache_level(5, 69), Some(1));
    // The L3 domain of core 0: cores 0-3 and their siblings.
    assert_eq!(
        report.caches[2].cpu_groups[0],
        vec![0, 1, 2, 3, 64, 65, 66, 67]
    );
    assert_eq!(report.distances, Some(vec![vec![10, 32], vec![32, 10]]));
    assert!(report.memory_side_caches.is_empty());
    // Distinct caches: two siblings use one L1, one L2 and one L3.
    assert_eq!(report.cpu_cache_bytes(&[5, 69]), 32 * KIB + MIB + 32 * MIB);
    // A socket: 32 L1s, 32 L2s and all 8 L3s; not just one L3.
    let socket = 32 * (32 * KIB + MIB) + 8 * 32 * MIB;
    assert_eq!(
        report.cache_bytes_in_front(&report.nodes[0].cpus, &[0]),
        socket
    );
    let node = working_set_for(&report, &report.nodes[0].cpus, &[0]);
    assert!(node.bytes >= 4 * socket && !node.cache_affected);
    let all = check_working_sets(&report);
    assert_eq!(all.cache_bytes_in_front, 2 * socket);
}

#[test]
fn amd_nps4_has_four_nodes_per_socket() {
    let report = load("amd-nps4");
    assert_eq!(
        (report.cpu_count, report.core_count, report.node_count),
        (256, 128, 8)
    );
    for node in 0..8u32 {
        assert_eq!(
            report.nodes[node as usize].cpus,
            smt_cpus(16 * node, 16, 2, 128),
            "node {node}"
        );
        assert_eq!(report.nodes[node as usize].package, Some(node / 4));
    }
    assert_eq!(report.packages[1].nodes, vec![4, 5, 6, 7]);
    for from in 0..8u32 {
        for to in 0..8u32 {
            let want = if from == to {
                10
            } else if from / 4 == to / 4 {
                12
            } else {
                32
            };
            assert_eq!(report.distance(from, to), Some(want), "{from} -> {to}");
        }
    }
    // Two CCDs (L3s) per node.
    let in_front = report.cache_bytes_in_front(&report.nodes[2].cpus, &[2]);
    assert_eq!(in_front, 16 * (32 * KIB + 512 * KIB) + 2 * 32 * MIB);
    check_working_sets(&report);
}

#[test]
fn intel_snc2_with_a_cpuless_hbm_node_per_socket() {
    let report = load("intel-snc2-hbm");
    assert_eq!(
        (report.cpu_count, report.core_count, report.node_count),
        (224, 112, 6)
    );
    for node in 0..4u32 {
        let info = &report.nodes[node as usize];
        assert_eq!(info.cpus, smt_cpus(28 * node, 28, 2, 112), "node {node}");
        assert_eq!(info.kind.as_deref(), Some("DRAM"));
        assert_eq!(info.package, Some(node / 2));
    }
    assert_eq!(cpuless(&report), vec![4, 5]);
    for (hbm, package) in [(4u32, 0u32), (5, 1)] {
        let info = report.node(hbm).unwrap();
        assert_eq!(info.kind.as_deref(), Some("HBM"));
        assert_eq!(info.package, Some(package));
        assert_eq!(info.locality_cpus, smt_cpus(56 * package, 56, 2, 112));
        assert_eq!(info.memory_total_bytes, 64 * GIB);
    }
    assert_eq!(report.packages[0].nodes, vec![0, 1, 4]);
    assert_eq!(
        report.distances,
        Some(vec![
            vec![10, 12, 21, 21, 13, 23],
            vec![12, 10, 21, 21, 13, 23],
            vec![21, 21, 10, 12, 23, 13],
            vec![21, 21, 12, 10, 23, 13],
            vec![13, 13, 23, 23, 10, 23],
            vec![23, 23, 13, 13, 23, 10],
        ])
    );
    // A cluster's CPUs use its 28 L1s and L2s and the socket's one L3.
    let in_front = report.cache_bytes_in_front(&report.nodes[0].cpus, &[4]);
    assert_eq!(in_front, 28 * (48 * KIB + 2 * MIB) + 112 * MIB);
    check_working_sets(&report);
}

#[test]
fn four_socket_ladder_keeps_an_asymmetric_slit() {
    let report = load("four-socket-ladder");
    assert_eq!(
        (report.cpu_count, report.core_count, report.node_count),
        (128, 64, 4)
    );
    assert_eq!(report.nodes[3].cpus, smt_cpus(48, 16, 2, 64));
    assert_eq!(
        report.distances,
        Some(vec![
            vec![10, 20, 21, 31],
            vec![20, 10, 30, 21],
            vec![21, 31, 10, 20],
            vec![30, 21, 20, 10],
        ])
    );
    assert_eq!(report.distance(0, 3), Some(31));
    assert_eq!(report.distance(3, 0), Some(30));
    assert_eq!(report.distance(1, 2), Some(30));
    assert_eq!(report.distance(2, 1), Some(31));
    check_working_sets(&report);
}

/// The bandwidth matrix (added before the SLIT) is not shown as distances.
#[test]
fn cxl_node_with_hmat_and_only_the_slit_as_distances() {
    let report = load("cxl-hmat");
    assert_eq!(
        (report.cpu_count, report.core_count, report.node_count),
        (64, 32, 2)
    );
    assert_eq!(report.nodes[0].cpus, smt_cpus(0, 32, 2, 32));
    assert_eq!(cpuless(&report), vec![1]);
    let cxl = report.node(1).unwrap();
    assert_eq!(cxl.kind.as_deref(), Some("CXL-DRAM"));
    assert_eq!(cxl.memory_total_bytes, 512 * GIB);
    assert_eq!(cxl.locality_cpus, report.nodes[0].cpus);
    assert_eq!(report.distances, Some(vec![vec![10, 20], vec![20, 10]]));
    let values: Vec<(&str, u32, u64, Option<u32>)> = report
        .memory_attributes
        .iter()
        .map(|value| {
            (
                value.name.as_str(),
                value.target_node,
                value.value,
                value.initiator_node,
            )
        })
        .collect();
    assert_eq!(
        values,
        vec![
            ("bandwidth", 0, 204800, Some(0)),
            ("latency", 0, 110, Some(0)),
            ("bandwidth", 1, 65536, Some(0)),
            ("latency", 1, 290, Some(0)),
        ]
    );
    let table = render_table(&report);
    let distances = table
        .split("Distances")
        .nth(1)
        .and_then(|rest| rest.split("CPU caches").next())
        .unwrap();
    assert!(distances.contains("  0         10   20\n"), "{table}");
    assert!(!distances.contains("65536"), "{table}");
    check_working_sets(&report);
}

/// KNL with MCDRAM as a memory-side cache in front of each node's DDR: the
/// caches are reported as such, are no CPU cache level, and push the DRAM
/// working set past what a node can safely hold: cache-affected.
#[test]
fn knl_memory_side_caches_are_not_cpu_caches() {
    let report = load("knl-snc4-cache");
    assert_eq!(
        (report.cpu_count, report.core_count, report.node_count),
        (256, 64, 4)
    );
    assert_eq!(report.threads_per_core(), 4);
    assert_eq!(report.nodes[1].cpus, smt_cpus(16, 16, 4, 64));
    let want: Vec<MemorySideCache> = (0..4)
        .map(|node| MemorySideCache {
            level: 1,
            size_bytes: 4 * GIB,
            line_bytes: 64,
            nodes: vec![node],
        })
        .collect();
    assert_eq!(report.memory_side_caches, want);
    assert_eq!(
        cache_shapes(&report),
        vec![(1, "data", 32 * KIB, 64, 4), (2, "unified", MIB, 32, 8)]
    );
    assert_eq!(report.last_level_cache_bytes(), MIB);
    assert_eq!(report.memory_side_cache_bytes(&[1, 2]), 8 * GIB);
    // No SLIT: the bandwidth matrix is not one.
    assert_eq!(report.distances, None);
    let table = render_table(&report);
    assert!(
        table.contains("none: the firmware declares no node latency matrix"),
        "{table}"
    );
    assert!(table.contains("4 GiB in front of node(s) 1"), "{table}");
    let node = working_set_for(&report, &report.nodes[1].cpus, &[1]);
    assert_eq!(node.cache_bytes_in_front, 16 * 32 * KIB + 8 * MIB + 4 * GIB);
    assert!(node.cache_affected);
    assert_eq!(node.bytes, 24 * GIB / 4);
    assert!(check_working_sets(&report).cache_affected);
    let json: serde_json::Value = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["memory_side_caches"][3]["nodes"],
        serde_json::json!([3])
    );
    assert_eq!(json["distances"], serde_json::Value::Null);
}

/// P-cores and E-cores have caches of different sizes: each size is its
/// own entry and counts in the capacity in front of the CPUs that use it.
#[test]
fn hybrid_laptop_caches_of_each_size() {
    let report = load("hybrid-laptop");
    assert_eq!(
        (report.cpu_count, report.core_count, report.node_count),
        (20, 14, 1)
    );
    assert_eq!(report.nodes[0].cpus, (0..20).collect::<Vec<u32>>());
    assert_eq!(
        cache_shapes(&report),
        vec![
            (1, "data", 48 * KIB, 6, 2),
            (1, "data", 32 * KIB, 8, 1),
            (2, "unified", 1280 * KIB, 6, 2),
            (2, "unified", 2 * MIB, 2, 4),
            (3, "unified", 24 * MIB, 1, 20),
        ]
    );
    assert_eq!(
        report.caches[3].cpu_groups,
        vec![vec![12, 13, 14, 15], vec![16, 17, 18, 19]]
    );
    assert_eq!(
        report.cpu_cache_bytes(&[0, 1]),
        48 * KIB + 1280 * KIB + 24 * MIB
    );
    assert_eq!(
        report.cpu_cache_bytes(&[12, 16]),
        2 * 32 * KIB + 2 * 2 * MIB + 24 * MIB
    );
    assert_eq!(report.distances, None);
    assert!(report.memory_side_caches.is_empty());
    let all = check_working_sets(&report);
    assert_eq!(
        all.cache_bytes_in_front,
        6 * 48 * KIB + 8 * 32 * KIB + 6 * 1280 * KIB + 2 * 2 * MIB + 24 * MIB
    );
}

/// Every fixture's name, for checks that hold on every machine shape.
pub(crate) const FIXTURES: [&str; 7] = [
    "two-socket-smt",
    "amd-nps4",
    "intel-snc2-hbm",
    "four-socket-ladder",
    "cxl-hmat",
    "knl-snc4-cache",
    "hybrid-laptop",
];

/// On every fixture, for the whole machine and for each node's CPUs: each
/// order is a permutation of the CPUs asked for, and `cores-first` gives
/// every core of the set a thread before any core gets a second one;
/// `compact` keeps each core's threads together.
#[test]
fn cpu_orders_on_every_machine_shape() {
    use crate::threads::CpuOrder;
    for name in FIXTURES {
        let report = load(name);
        assert!(!report.cores.is_empty(), "{name}: cores");
        let core_of = |cpu: u32| {
            report
                .core_of_cpu(cpu)
                .unwrap_or_else(|| panic!("{name}: CPU {cpu} in no core"))
        };
        let mut sets: Vec<Vec<u32>> = vec![report.allowed.cpus.clone()];
        sets.extend(
            report
                .nodes
                .iter()
                .filter(|node| !node.cpus.is_empty())
                .map(|node| node.cpus.clone()),
        );
        for set in sets {
            let mut sorted = set.clone();
            sorted.sort_unstable();
            for order in [CpuOrder::Compact, CpuOrder::CoresFirst, CpuOrder::Scatter] {
                let mut arranged = order.arrange(&report, &set);
                arranged.sort_unstable();
                assert_eq!(arranged, sorted, "{name}: {} permutes", order.name());
            }
            let cores_first = CpuOrder::CoresFirst.arrange(&report, &set);
            let cores: std::collections::BTreeSet<usize> =
                set.iter().map(|&cpu| core_of(cpu)).collect();
            let first_threads: Vec<usize> = cores_first[..cores.len()]
                .iter()
                .map(|&cpu| core_of(cpu))
                .collect();
            let distinct: std::collections::BTreeSet<usize> =
                first_threads.iter().copied().collect();
            assert_eq!(
                distinct.len(),
                cores.len(),
                "{name}: cores-first gives a second thread before every core has one: {cores_first:?}"
            );
            let compact = CpuOrder::Compact.arrange(&report, &set);
            let runs = compact
                .windows(2)
                .filter(|pair| core_of(pair[0]) != core_of(pair[1]))
                .count();
            assert_eq!(
                runs + 1,
                cores.len(),
                "{name}: compact keeps siblings together"
            );
        }
    }
}
