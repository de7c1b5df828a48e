//! The four-node VM (nodes 0-2 with CPUs, node 3 CPU-less, HMAT
//! attributes): placements on the CPU-less node, impossible placements
//! refused, the matrices beside the firmware's figures, core-to-core pairs;
//! and the boot every four-node test shares ([`boot`]).

use super::boot::{Part, SharedBoot};
use super::harness::VmOptions;
use super::placement_checks::requested_cpus;
use super::placement_checks::{
    expect_bad_input, expect_fraction, expect_requested, expect_split, records, verified,
};
use super::records::params_of;
use super::{topologies, FIRST_EXTRA_COMMAND};
use numabench_schema::params::{BandwidthParams, C2cParams, LatencyParams, MatrixCellParams};
use numabench_schema::Unit;
use std::sync::OnceLock;

/// Commands run in the four-node VM (nodes 0-2 with CPUs, node 3 CPU-less,
/// attached to node 1), in this order after the standard ones.
const FOUR_NODE_PLACEMENT: [&str; 7] = [
    // The memory-only node as a memory target, from its initiator's node.
    "numabench latency --size 8M --repeat 2 --cpu-node 1 --mem-node 3 --json",
    // Bad input: a CPU-less node as the CPU node.
    "numabench latency --size 1M --repeat 2 --cpu-node 3 --json",
    // Bad input: a node that does not exist.
    "numabench latency --size 1M --repeat 2 --cpu-node 0 --mem-node 9 --json",
    // The N x M matrices: 3 CPU nodes x 4 memory nodes, the CPU-less node 3 as a target.
    "numabench matrix latency --size 4M --repeat 1 --json",
    "numabench matrix bandwidth --mode parallel --size 4M --repeat 1 --json",
    // Bad input: NPB MG class B (about 0.5 GB) bound to a 256 MiB node.
    "numabench mg --class B --placement bind:1 --repeat 1",
    // characterize plans for this machine (4 nodes, one CPU-less) and runs one of its steps.
    "numabench characterize --only c2c --repeat 1 --json",
];

/// The four-node machine's one boot: every part of every test that needs
/// it, in this order. MPI's runtime is in the guest when numabench is built
/// with MPI (for `cluster`).
pub fn boot() -> &'static SharedBoot {
    static BOOT: OnceLock<SharedBoot> = OnceLock::new();
    BOOT.get_or_init(|| {
        #[allow(unused_mut)]
        let mut parts = vec![
            Part::new("placement", &FOUR_NODE_PLACEMENT, 600),
            super::splits::part(),
            super::report::part(),
        ];
        #[cfg(feature = "mpi")]
        parts.push(super::cluster::part());
        let options = VmOptions {
            mpi: cfg!(feature = "mpi"),
            ..VmOptions::default()
        };
        SharedBoot::run(&topologies::four_nodes_cpuless_hmat(), options, parts)
    })
}

#[test]
fn four_nodes_cpuless_hmat() {
    let run = boot().part("placement");
    let cmd = |k: usize| FIRST_EXTRA_COMMAND + k;

    for r in records(&run, cmd(0), "latency") {
        expect_requested(&run, cmd(0), &r, "bind:3", None);
        let cpus = requested_cpus(&r);
        assert!(
            cpus == [2] || cpus == [3],
            "{}: requested cpus {cpus:?}, want one CPU of node 1\n{}",
            run.commands[cmd(0)].command,
            run.transcript()
        );
        let v = verified(&run, cmd(0), &r);
        expect_split(&run, cmd(0), &v, &[(3, 1.0, 1.0)]);
        expect_fraction(&run, cmd(0), &v, 1.0);
    }

    expect_bad_input(&run, cmd(1), &["node 3", "no CPUs"]);
    expect_bad_input(&run, cmd(2), &["node 9", "does not exist"]);

    for (k, benchmark) in [(3, "matrix-latency"), (4, "matrix-bandwidth")] {
        let cells: Vec<(u32, u32)> = records(&run, cmd(k), benchmark)
            .iter()
            .filter(|r| r.unit != Unit::Cycles)
            .map(|r| {
                let v = verified(&run, cmd(k), r);
                expect_fraction(&run, cmd(k), &v, 1.0);
                let cell: MatrixCellParams = params_of(r);
                let (cpu_node, mem_node) = (
                    cell.cpu_node.expect("a cpu_node"),
                    cell.mem_node.expect("a mem_node"),
                );
                // HMAT beside the cell: only each target's attached initiator reaches user
                // space (topologies.rs), the other pairs carry no declared figure.
                let (declared, measured_over_declared) = if k == 3 {
                    let measured: LatencyParams = params_of(r);
                    (
                        cell.declared.declared_latency_ns,
                        measured.measured_over_declared,
                    )
                } else {
                    let measured: BandwidthParams = params_of(r);
                    (
                        cell.declared.declared_bandwidth_mib_s,
                        measured.measured_over_declared,
                    )
                };
                let want = match (cpu_node, mem_node, k) {
                    (0, 0, 3) => Some(90),
                    (1, 1, 3) => Some(100),
                    (2, 2, 3) => Some(110),
                    (1, 3, 3) => Some(250),
                    (0, 0, _) => Some(20480),
                    (1, 1, _) => Some(19456),
                    (2, 2, _) => Some(18432),
                    (1, 3, _) => Some(8192),
                    _ => None,
                };
                assert_eq!(declared, want, "{r:?}");
                assert_eq!(measured_over_declared.is_some(), want.is_some(), "{r:?}");
                (cpu_node, mem_node)
            })
            .collect();
        let want: Vec<(u32, u32)> = (0..3)
            .flat_map(|cpu| (0..4).map(move |mem| (cpu, mem)))
            .collect();
        assert_eq!(
            cells,
            want,
            "{benchmark}: one cell per CPU node x memory node\n{}",
            run.transcript()
        );
    }
    expect_bad_input(&run, cmd(5), &["needs", "free"]);

    // characterize --only c2c: every pair of the 6 CPUs, related by node.
    let node_of = |cpu: u32| cpu / 2;
    let pairs = records(&run, cmd(6), "c2c");
    assert_eq!(pairs.len(), 15, "{}", run.transcript());
    for r in pairs {
        let params: C2cParams = params_of(&r);
        let (a, b) = (params.cpu_a.expect("cpu_a"), params.cpu_b.expect("cpu_b"));
        let want = if node_of(a) == node_of(b) {
            "same-node"
        } else {
            "other-node"
        };
        assert_eq!(params.relation.as_deref(), Some(want), "{r:?}");
        assert!(r.value > 0.0, "{r:?}");
    }
    // Its findings: core-to-core latency by relation.
    let findings = records(&run, cmd(6), "summary");
    let c2c = findings
        .iter()
        .find(|r| r.metric == "c2c")
        .unwrap_or_else(|| panic!("no c2c finding: {findings:?}"));
    let sentence = c2c.typed_params().sentence().expect("a sentence");
    assert!(
        sentence.contains("same-node") && sentence.contains("other-node"),
        "{sentence}"
    );
}
