//! `report_from_hwloc` on an hwloc XML topology carrying what synthetic
//! topologies cannot: a SLIT distance matrix, CPU-less nodes (HBM beside each
//! socket's DRAM, CXL at machine level) and HMAT-like memory attributes.
//!
//! The fixture is `tests/fixtures/two-sockets-hbm-cxl.xml`, made by
//! `tests/fixtures/make-xml.sh` (its header describes the machine).

use super::{
    report_from_hwloc, Allowed, CacheLevel, Machine, MemoryAttributeValue, NodeInfo, PackageInfo,
};
use hwlocality::Topology;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/two-sockets-hbm-cxl.xml"
);

const GIB: u64 = 1 << 30;

fn report() -> Machine {
    let topology = Topology::builder()
        .from_xml_file(FIXTURE)
        .unwrap_or_else(|error| panic!("cannot read {FIXTURE}: {error}"))
        .build()
        .unwrap_or_else(|error| panic!("cannot build the topology of {FIXTURE}: {error}"));
    assert!(!topology.is_this_system());
    report_from_hwloc(&topology)
}

fn range(from: u32, to: u32) -> Vec<u32> {
    (from..=to).collect()
}

fn node(
    index: u32,
    cpus: Vec<u32>,
    locality_cpus: Vec<u32>,
    memory_total_bytes: u64,
    package: Option<u32>,
    kind: &str,
) -> NodeInfo {
    NodeInfo {
        index,
        cpuless: cpus.is_empty(),
        cpus,
        locality_cpus,
        memory_total_bytes,
        memory_free_bytes: None,
        package,
        kind: Some(kind.to_string()),
    }
}

fn attribute(
    name: &str,
    initiator_cpus: Vec<u32>,
    initiator_node: Option<u32>,
    target_node: u32,
    value: u64,
) -> MemoryAttributeValue {
    MemoryAttributeValue {
        name: name.to_string(),
        unit: if name.ends_with("latency") {
            "ns"
        } else {
            "MiB/s"
        }
        .to_string(),
        initiator_cpus,
        initiator_node,
        target_node,
        value,
    }
}

#[test]
fn xml_counts_and_packages() {
    let report = report();
    assert_eq!(report.cpu_count, 8);
    assert_eq!(report.core_count, 4);
    assert_eq!(report.node_count, 5);
    assert_eq!(report.threads_per_core(), 2);
    let cpus: Vec<(u32, Vec<u32>)> = report
        .packages
        .iter()
        .map(|package| (package.index, package.cpus.clone()))
        .collect();
    assert_eq!(cpus, vec![(0, range(0, 3)), (1, range(4, 7))]);
    // Each socket holds its DRAM and HBM node (whatever else is listed: see
    // `xml_machine_level_node_is_in_no_package`).
    assert!(
        report.packages[0].nodes.starts_with(&[0, 2]),
        "{:?}",
        report.packages
    );
    assert!(
        report.packages[1].nodes.starts_with(&[1, 3]),
        "{:?}",
        report.packages
    );
    assert_eq!(
        report.caches,
        vec![CacheLevel {
            level: 3,
            cache_type: "unified".to_string(),
            size_bytes: 8 << 20,
            line_bytes: 64,
            count: 2,
            cpus_per_cache: 4,
            cpu_groups: vec![range(0, 3), range(4, 7)],
        }]
    );
    assert_eq!(
        report.allowed,
        Allowed {
            cpus: range(0, 7),
            nodes: range(0, 4),
            cgroup_cpus: range(0, 7),
            affinity_cpus: range(0, 7),
            slurm_job: None,
            memory_limits: Vec::new(),
        }
    );
}

/// `packages[].nodes` is documented as "the nodes inside them", and node 4
/// (CXL, attached at machine level) has `package: null`; but discover.rs
/// lists a package's hwloc *nodeset*, which also holds the nodes attached
/// above it, so node 4 shows up in both packages (`[0, 2, 4]`, `[1, 3, 4]`).
#[test]
fn xml_machine_level_node_is_in_no_package() {
    let report = report();
    assert_eq!(
        report.packages,
        vec![
            PackageInfo {
                index: 0,
                cpus: range(0, 3),
                nodes: vec![0, 2],
            },
            PackageInfo {
                index: 1,
                cpus: range(4, 7),
                nodes: vec![1, 3],
            },
        ]
    );
    // Consistent with nodes[].package.
    for package in &report.packages {
        for &index in &package.nodes {
            let node = report.node(index).expect("listed node exists");
            assert_eq!(node.package, Some(package.index), "node {index}");
        }
    }
}

/// The CPU-less nodes share their locality with a node that has CPUs (HBM
/// beside DRAM) or span the machine (CXL): by the tie-break of `owned_cpus`
/// (smallest cpuset, then lowest OS index) they own no CPU.
#[test]
fn xml_nodes_cpuless_ones_own_no_cpus() {
    let report = report();
    let want = vec![
        node(0, range(0, 3), range(0, 3), GIB, Some(0), "DRAM"),
        node(1, range(4, 7), range(4, 7), GIB, Some(1), "DRAM"),
        node(2, vec![], range(0, 3), GIB / 2, Some(0), "HBM"),
        node(3, vec![], range(4, 7), GIB / 2, Some(1), "HBM"),
        node(4, vec![], range(0, 7), 2 * GIB, None, "CXL-DRAM"),
    ];
    for (got, want) in report.nodes.iter().zip(&want) {
        assert_eq!(got, want, "node {}", want.index);
    }
    assert_eq!(report.nodes.len(), want.len());
    let cpuless: Vec<u32> = report
        .nodes
        .iter()
        .filter(|node| node.cpuless)
        .map(|node| node.index)
        .collect();
    assert_eq!(cpuless, vec![2, 3, 4]);
    for cpu in 0..8 {
        assert_eq!(report.node_of_cpu(cpu), Some(cpu / 4), "CPU {cpu}");
    }
    // Ascending, each node once, a CPU of no node (99) left out.
    assert_eq!(report.nodes_of_cpus(&[7, 1, 5, 0, 99]), vec![0, 1]);
    assert_eq!(report.nodes_of_cpus(&[]), Vec::<u32>::new());
}

#[test]
fn xml_distance_matrix_is_exact_and_not_transposed() {
    let report = report();
    let want: Vec<Vec<u64>> = vec![
        vec![10, 21, 14, 28, 40],
        vec![22, 10, 29, 15, 41],
        vec![14, 30, 10, 33, 45],
        vec![27, 15, 34, 10, 46],
        vec![42, 43, 47, 48, 10],
    ];
    assert_eq!(report.distances.as_ref(), Some(&want));
    // Row = from, column = to.
    assert_eq!(report.distance(0, 1), Some(21));
    assert_eq!(report.distance(1, 0), Some(22));
    assert_eq!(report.distance(4, 3), Some(48));
    assert_eq!(report.distance(3, 4), Some(46));
}

#[test]
fn xml_memory_attributes_with_initiator_nodes() {
    let report = report();
    let (cpus0, cpus1, all) = (range(0, 3), range(4, 7), range(0, 7));
    // Sorted as report_from_hwloc sorts: target node, name, initiator CPUs.
    let want = vec![
        attribute("bandwidth", cpus0.clone(), Some(0), 0, 20480),
        attribute("latency", cpus0.clone(), Some(0), 0, 90),
        attribute("latency", cpus1.clone(), Some(1), 0, 180),
        attribute("bandwidth", cpus1.clone(), Some(1), 1, 19456),
        attribute("latency", cpus1.clone(), Some(1), 1, 95),
        attribute("bandwidth", cpus0.clone(), Some(0), 2, 65536),
        attribute("latency", cpus0.clone(), Some(0), 2, 120),
        attribute("bandwidth", cpus1.clone(), Some(1), 3, 61440),
        attribute("latency", cpus1, Some(1), 3, 125),
        // No node has exactly CPUs 0-7 (node 4's locality is not its CPUs).
        attribute("bandwidth", all.clone(), None, 4, 8192),
        attribute("latency", all.clone(), None, 4, 250),
        attribute("read_bandwidth", all.clone(), None, 4, 16384),
        attribute("write_bandwidth", all, None, 4, 12288),
    ];
    let show = |values: &[MemoryAttributeValue]| {
        values
            .iter()
            .map(|v| {
                format!(
                    "{} {:?}/{:?} -> {} = {} {}",
                    v.name, v.initiator_cpus, v.initiator_node, v.target_node, v.value, v.unit
                )
            })
            .collect::<Vec<_>>()
            .join("\n  ")
    };
    assert!(
        report.memory_attributes == want,
        "memory_attributes:\n  {}\nwant:\n  {}",
        show(&report.memory_attributes),
        show(&want)
    );
}

#[test]
fn xml_report_round_trips_through_json() {
    let report = report();
    let text = serde_json::to_string(&report).expect("serialisable");
    let back: Machine = serde_json::from_str(&text).expect("parses back");
    assert_eq!(back, report);
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(json["nodes"][4]["cpuless"], true);
    assert_eq!(json["nodes"][4]["package"], serde_json::Value::Null);
    assert_eq!(
        json["nodes"][2]["memory_free_bytes"],
        serde_json::Value::Null
    );
}
