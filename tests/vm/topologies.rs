//! NUMA machines the VM tests boot. Each is plain data (see `harness.rs` for
//! the conventions); to test a new shape, add a function here and a `#[test]`
//! in `main.rs` calling `check_topology` with it.

use crate::harness::{HmatEntry, VmNode, VmTopology};

/// Two sockets, two CPUs each, SLIT distance 21, no HMAT. The nodes get
/// different memory sizes so a node mix-up shows (node 0 also holds the
/// ~45 MiB kernel image, hence the larger size there in every topology).
///
/// ```text
/// node 0: cpus 0-1, 512 MiB   package 0
/// node 1: cpus 2-3, 256 MiB   package 1
/// distances: [[10, 21], [21, 10]]
/// ```
pub fn two_sockets() -> VmTopology {
    VmTopology {
        name: "two_sockets",
        nodes: vec![VmNode::new([0, 1], 512), VmNode::new([2, 3], 256)],
        sockets: Some(2),
        threads: 1,
        distances: Some(vec![vec![10, 21], vec![21, 10]]),
        hmat: Vec::new(),
    }
}

/// Four nodes, one of them CPU-less, an asymmetric SLIT and an HMAT.
///
/// ```text
/// node 0: cpus 0-1, 512 MiB   package 0
/// node 1: cpus 2-3, 256 MiB   package 1
/// node 2: cpus 4-5, 384 MiB   package 2
/// node 3: no CPU,   512 MiB   attached initiator: node 1 (e.g. CXL memory behind socket 1)
/// ```
///
/// The CPU-less node has to be last: Linux numbers the nodes in SRAT order,
/// processor entries first, so a CPU-less QEMU node 2 would become Linux node
/// 3 (checked by `VmTopology::validate`).
///
/// Distances (row = from, column = to) are asymmetric on purpose: 0->1 = 21
/// but 1->0 = 24, and 1->2 = 21 but 2->1 = 24. QEMU 7.2 takes every ordered
/// pair with `-numa dist` and Linux 6.1 keeps the matrix as given (it only
/// demands 10 on the diagonal and > 10 elsewhere); hwloc keeps it too.
///
/// ```text
///        0   1   2   3
///   0 [ 10, 21, 31, 32 ]
///   1 [ 24, 10, 21, 17 ]
///   2 [ 31, 24, 10, 28 ]
///   3 [ 32, 17, 28, 10 ]
/// ```
///
/// HMAT: latency and bandwidth for every (initiator in {0, 1, 2}) x (target in
/// {0, 1, 2, 3}) pair (QEMU itself does not require them all, but a real
/// firmware table would be complete). Only the pair of each target's attached
/// initiator reaches user space (see `HmatEntry`); they get distinct values so
/// a mix-up shows:
///
/// ```text
/// 0 -> 0:  90 ns, 20480 MiB/s
/// 1 -> 1: 100 ns, 19456 MiB/s
/// 2 -> 2: 110 ns, 18432 MiB/s
/// 1 -> 3: 250 ns,  8192 MiB/s   (the CPU-less node, from its initiator)
/// ```
/// Other pairs: latency = 10 ns x SLIT distance, bandwidth 10240 MiB/s
/// (4096 MiB/s towards the CPU-less node).
pub fn four_nodes_cpuless_hmat() -> VmTopology {
    let distances: Vec<Vec<u8>> = vec![
        vec![10, 21, 31, 32],
        vec![24, 10, 21, 17],
        vec![31, 24, 10, 28],
        vec![32, 17, 28, 10],
    ];
    let entry = |i: u32, t: u32, lat: u64, bw: u64| HmatEntry {
        initiator: i,
        target: t,
        latency_ns: Some(lat),
        bandwidth_mib_s: Some(bw),
    };
    let mut hmat = vec![
        entry(0, 0, 90, 20480),
        entry(1, 1, 100, 19456),
        entry(2, 2, 110, 18432),
        entry(1, 3, 250, 8192),
    ];
    for i in 0u32..3 {
        for t in 0u32..4 {
            if hmat.iter().any(|e| e.initiator == i && e.target == t) {
                continue;
            }
            let bw = if t == 3 { 4096 } else { 10240 };
            hmat.push(entry(
                i,
                t,
                10 * u64::from(distances[i as usize][t as usize]),
                bw,
            ));
        }
    }
    hmat.sort_by_key(|e| (e.initiator, e.target));
    VmTopology {
        name: "four_nodes_cpuless_hmat",
        nodes: vec![
            VmNode::new([0, 1], 512),
            VmNode::new([2, 3], 256),
            VmNode::new([4, 5], 384),
            VmNode::cpuless(512, 1),
        ],
        sockets: Some(3),
        threads: 1,
        distances: Some(distances),
        hmat,
    }
}

/// Tiered memory: two sockets with DRAM, and behind each a CPU-less node
/// slower by declaration (HMAT), as CXL expanders appear.
///
/// ```text
/// node 0: cpus 0-1, 384 MiB   package 0 (DRAM)
/// node 1: cpus 2-3, 256 MiB   package 1 (DRAM)
/// node 2: no CPU,   256 MiB   attached initiator: node 0 (CXL-like)
/// node 3: no CPU,   256 MiB   attached initiator: node 1 (CXL-like)
///        0   1   2   3
///   0 [ 10, 21, 17, 28 ]
///   1 [ 21, 10, 28, 17 ]
///   2 [ 17, 28, 10, 28 ]
///   3 [ 28, 17, 28, 10 ]
/// ```
///
/// HMAT: 90 ns and 20480 MiB/s from each socket to its DRAM, 250 ns and
/// 8192 MiB/s to its CPU-less node; other pairs 10 ns x SLIT distance and
/// 10240 MiB/s (4096 MiB/s towards a CPU-less node). Under TCG the nodes
/// are equally fast whatever the table says: tests check placement and
/// what the kernel made of the table (memory tiers), never speed.
pub fn two_sockets_two_cxl() -> VmTopology {
    let distances: Vec<Vec<u8>> = vec![
        vec![10, 21, 17, 28],
        vec![21, 10, 28, 17],
        vec![17, 28, 10, 28],
        vec![28, 17, 28, 10],
    ];
    let mut hmat = Vec::new();
    for initiator in 0u32..2 {
        for target in 0u32..4 {
            let local = target % 2 == initiator;
            let cxl = target >= 2;
            let (latency, bandwidth) = match (local, cxl) {
                (true, false) => (90, 20480),
                (true, true) => (250, 8192),
                (false, cxl) => (
                    10 * u64::from(distances[initiator as usize][target as usize]),
                    if cxl { 4096 } else { 10240 },
                ),
            };
            hmat.push(HmatEntry {
                initiator,
                target,
                latency_ns: Some(latency),
                bandwidth_mib_s: Some(bandwidth),
            });
        }
    }
    VmTopology {
        name: "two_sockets_two_cxl",
        nodes: vec![
            VmNode::new([0, 1], 384),
            VmNode::new([2, 3], 256),
            VmNode::cpuless(256, 0),
            VmNode::cpuless(256, 1),
        ],
        sockets: Some(2),
        threads: 1,
        distances: Some(distances),
        hmat,
    }
}

/// One socket of three cores with two hardware threads each (SMT), one
/// node: siblings 0-1, 2-3, 4-5 (L1 per thread, L2 per core, one L3), as
/// QEMU TCG shows them with `-cpu Skylake-Server`.
///
/// ```text
/// node 0: cpus 0-5, 512 MiB   package 0, cores {0,1} {2,3} {4,5}
/// ```
pub fn one_socket_smt() -> VmTopology {
    VmTopology {
        name: "one_socket_smt",
        nodes: vec![VmNode::new(0..6, 512)],
        sockets: Some(1),
        threads: 2,
        distances: None,
        hmat: Vec::new(),
    }
}

/// Four sockets of one CPU each, equal memory, SLIT 10 local and 20
/// between any two: a symmetric machine whose node matrix has two classes
/// of cells (4 local, 12 remote), for the budget's matrix sampling.
pub fn four_symmetric_nodes() -> VmTopology {
    let distances: Vec<Vec<u8>> = (0..4)
        .map(|i| (0..4).map(|j| if i == j { 10 } else { 20 }).collect())
        .collect();
    VmTopology {
        name: "four_symmetric_nodes",
        nodes: (0..4).map(|node| VmNode::new([node], 512)).collect(),
        sockets: Some(4),
        threads: 1,
        distances: Some(distances),
        hmat: Vec::new(),
    }
}
