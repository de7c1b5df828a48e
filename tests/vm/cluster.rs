//! `numabench cluster --per numa` in the emulated four-node VM: every node
//! with CPUs is a unit of its own, measured on its local memory and on the
//! others' at their firmware distances; the CPU-less node is a memory
//! target only. (Built only with the `mpi` feature: numabench runs as an
//! MPI singleton there.)

use super::boot::Part;
use super::placement_checks::all_records;
use super::records::params_of;
use super::FIRST_EXTRA_COMMAND;
use crate::mpi_guest::GUEST_HOSTNAME;
use numabench_schema::params::{ClusterLabels, ClusterVerdictParams};

const CLUSTER: &str = "numabench cluster --per numa --sequential --only stream,latency \
                       --size 4M --repeat 1 --jsonl /tmp/cluster.jsonl > /dev/null; \
                       cat /tmp/cluster.jsonl";

/// This test's part of the four-node boot (which then carries MPI).
pub fn part() -> Part {
    Part::new("cluster", &[CLUSTER], 600)
}

#[test]
fn cluster_per_numa_covers_each_node() {
    let run = super::four_nodes::boot().part("cluster");
    let text = run.stdout_ok(FIRST_EXTRA_COMMAND);
    let records = all_records(&run, FIRST_EXTRA_COMMAND);
    let labels: Vec<(ClusterLabels, Option<String>)> = records
        .iter()
        .map(|r| {
            let memory = r
                .placement
                .requested_as()
                .and_then(|requested| requested.memory_label().map(str::to_string));
            (params_of(r), memory)
        })
        .collect();
    let context = || format!("{text}\n{}", run.transcript());
    let has = |unit: &str, key: &str, memory: Option<&str>| {
        labels.iter().any(|(labels, requested)| {
            labels.unit.as_deref() == Some(unit)
                && labels.cluster_key.as_deref() == Some(key)
                && memory.is_none_or(|m| requested.as_deref() == Some(m))
        })
    };
    for node in 0..3 {
        let unit = format!("{GUEST_HOSTNAME}/node {node}");
        assert!(
            has(&unit, "triad_bandwidth local", None),
            "{unit}\n{}",
            context()
        );
        assert!(has(&unit, "latency local", None), "{unit}\n{}", context());
    }
    // Remote figures are filed under the firmware's distance (row = from).
    assert!(
        has(
            &format!("{GUEST_HOSTNAME}/node 1"),
            "latency remote, distance 17",
            Some("bind:3")
        ),
        "{}",
        context()
    );
    assert!(
        has(
            &format!("{GUEST_HOSTNAME}/node 0"),
            "latency remote, distance 21",
            Some("bind:1")
        ),
        "{}",
        context()
    );
    assert!(
        has(
            &format!("{GUEST_HOSTNAME}/node 2"),
            "latency remote, distance 24",
            Some("bind:1")
        ),
        "{}",
        context()
    );
    // The CPU-less node is never a unit.
    let cpuless = format!("{GUEST_HOSTNAME}/node 3");
    assert!(!labels
        .iter()
        .any(|(labels, _)| labels.unit.as_deref() == Some(cpuless.as_str())));
    let verdict = records.last().expect("records");
    assert_eq!(verdict.metric, "verdict", "{}", context());
    assert_eq!(params_of::<ClusterVerdictParams>(verdict).units, Some(3));
}
