//! `numabench cluster --per numa` in the emulated four-node VM: every node
//! with CPUs is a unit of its own, measured on its local memory and on the
//! others' at their firmware distances; the CPU-less node is a memory
//! target only. (Built only with the `mpi` feature: numabench runs as an
//! MPI singleton there.)

use super::boot::Part;
use super::FIRST_EXTRA_COMMAND;
use crate::mpi_guest::GUEST_HOSTNAME;
use serde_json::Value;

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
    let records: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("jsonl record"))
        .collect();
    let context = || format!("{text}\n{}", run.transcript());
    let has = |unit: &str, key: &str, memory: Option<&str>| {
        records.iter().any(|r| {
            r["params"]["unit"] == unit
                && r["params"]["cluster_key"] == key
                && memory.is_none_or(|m| r["placement"]["requested"]["memory"] == m)
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
    assert!(!records
        .iter()
        .any(|r| r["params"]["unit"] == format!("{GUEST_HOSTNAME}/node 3").as_str()));
    let verdict = records.last().expect("records");
    assert_eq!(verdict["metric"], "verdict", "{}", context());
    assert_eq!(verdict["params"]["units"], 3);
}
