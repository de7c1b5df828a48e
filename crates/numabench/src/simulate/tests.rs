//! The simulator on the fixtures: its answers follow the topology and the
//! faults; a simulated characterize names a planted slow node and nothing
//! on a healthy machine, on the real plan and findings.

use super::*;
use crate::bench::{Budget, DEFAULT_BUDGET_SECONDS};
use crate::topology::fixture_tests::load;

/// Remote memory is slower and narrower than local by SLIT distance; a
/// planted fault changes exactly its node, CPU or pair.
#[test]
fn the_model_follows_the_topology_and_its_faults() {
    let topology = load("amd-nps4");
    let healthy = MachineModel::new(&topology, &[], 1);
    let cpu = topology.nodes[0].cpus[0];
    let local = healthy.memory_latency(cpu, 0);
    let same_socket = healthy.memory_latency(cpu, 1);
    let other_socket = healthy.memory_latency(cpu, 7);
    assert!(local < same_socket && same_socket < other_socket);
    let faults = [
        Fault::SlowNodeLatency { node: 0 },
        Fault::SlowPairLatency {
            cpu_node: 0,
            mem_node: 7,
        },
    ];
    let faulty = MachineModel::new(&topology, &faults, 1);
    assert!((faulty.memory_latency(cpu, 0) / local - 1.08).abs() < 1e-9);
    assert!((faulty.memory_latency(cpu, 7) / other_socket - 1.15).abs() < 1e-9);
    assert_eq!(faulty.memory_latency(cpu, 1), same_socket);
    let dimm = MachineModel::new(&topology, &[Fault::MissingDimm { node: 3 }], 1);
    assert_eq!(
        dimm.topology().nodes[3].memory_total_bytes,
        topology.nodes[3].memory_total_bytes / 12 * 11
    );
}

/// On the 8-node NPS4 server at the default budget, the real plan run on
/// the model names a node whose memory is 8% slower (every seed here),
/// and a healthy machine gets no fault finding; each run is reproduced by
/// its seed.
#[test]
fn a_simulated_characterize_names_a_slow_node_and_nothing_else() {
    let topology = load("amd-nps4");
    let metadata = simulation_metadata(&topology);
    for seed in 0..3 {
        let plan = simulated_plan(&topology, Budget::Seconds(DEFAULT_BUDGET_SECONDS), seed);
        let healthy = simulate_run(&plan, &[], seed, &metadata).unwrap();
        assert!(
            !names_any_fault(&healthy.sentences),
            "seed {seed}: {:?}",
            healthy
                .sentences
                .iter()
                .map(|s| &s.text)
                .collect::<Vec<_>>()
        );
        let fault = Fault::plant(FaultKind::SlowNodeLatency, &topology, seed).unwrap();
        let run = simulate_run(&plan, &[fault], seed, &metadata).unwrap();
        assert!(fault.named_by(&run.sentences), "seed {seed}: {fault:?}");
        let again = simulate_run(&plan, &[fault], seed, &metadata).unwrap();
        assert_eq!(
            run.records.iter().map(|r| r.value).collect::<Vec<_>>(),
            again.records.iter().map(|r| r.value).collect::<Vec<_>>()
        );
    }
}

/// The report's shape (what `scripts/simulate-findings --json` prints):
/// a rate per fault kind, the false alarms, and the plan's blind spots.
#[test]
fn the_findings_report_has_a_rate_per_fault() {
    let topology = load("two-socket-smt");
    let report = simulate_findings(&topology, 1, Budget::Seconds(DEFAULT_BUDGET_SECONDS)).unwrap();
    assert_eq!(report.faults.len(), FaultKind::ALL.len());
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["faults"][0]["detected"].is_number() || json["faults"][0]["detected"].is_null());
    assert!(json["false_alarm"].is_number());
}
