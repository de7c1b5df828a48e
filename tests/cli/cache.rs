//! `numabench cache`: every state and level asked for, from every relation
//! the topology has, on the intended CPUs, the buffer on the owner's node;
//! a table per state; Shared said to be unmeasured without a third CPU.

use super::records::params_of;
use super::{numabench, typed_records, verified};
use numabench_schema::params::CacheStateParams;

#[test]
fn every_state_level_and_relation_ran_on_the_intended_cpus() {
    let records = typed_records(&["cache", "--levels", "L1,DRAM", "--repeat", "2"]);
    let allowed = super::run::allowed_cpus();
    let mut states = std::collections::BTreeSet::new();
    let mut levels = std::collections::BTreeSet::new();
    for record in &records {
        assert_eq!(record.benchmark, "cache");
        let params: CacheStateParams = params_of(record);
        assert_eq!(params.owner_cpu_seen, params.owner_cpu, "{record:?}");
        assert_eq!(params.measurer_cpu_seen, params.measurer_cpu, "{record:?}");
        assert_ne!(params.owner_cpu, params.measurer_cpu, "{record:?}");
        assert_eq!(record.stats.n, 2, "{record:?}");
        assert!(record.value > 0.0, "{record:?}");
        assert!(
            verified(record).achieved,
            "the buffer is on the owner's node: {record:?}"
        );
        let state = params.state.clone().expect("a state");
        let level = params.level.clone().expect("a level");
        if state == "shared" {
            assert!(params.sharer_cpu.is_some(), "{record:?}");
            assert_eq!(params.sharer_cpu_seen, params.sharer_cpu, "{record:?}");
        }
        // `latency`'s tlb-block order: random within the L1 data TLB's
        // reach, so the DRAM row is no page-walk figure (the chase was one
        // block as large as the buffer, with no order recorded).
        assert_eq!(
            params.chase.order.as_deref(),
            Some("tlb-block"),
            "{record:?}"
        );
        let block = params.chase.block_bytes.expect("block_bytes");
        let size = params.size_bytes.expect("size_bytes");
        assert!(block <= size && block <= 1 << 20, "{record:?}");
        if level == "DRAM" {
            assert!(block < size, "{record:?}");
        }
        states.insert(state);
        levels.insert(level);
    }
    let mut expected: Vec<&str> = vec!["exclusive", "flushed", "modified"];
    if allowed.len() >= 3 {
        expected.push("shared");
        expected.sort_unstable();
    }
    assert_eq!(
        states.iter().map(String::as_str).collect::<Vec<_>>(),
        expected
    );
    assert!(
        levels.contains("L1") && levels.contains("DRAM"),
        "{levels:?}"
    );
    for metric in ["latency", "read_bandwidth"] {
        assert!(records.iter().any(|r| r.metric == metric));
    }
}

#[test]
fn a_table_per_state_and_the_unmeasured_shared_state_said() {
    let output = numabench()
        .args(["cache", "--levels", "L1,DRAM", "--repeat", "1"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    for state in ["State modified", "State exclusive", "local / remote DRAM"] {
        assert!(stdout.contains(state), "{stdout}");
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if super::run::allowed_cpus().len() < 3 {
        assert!(stderr.contains("shared state from CPU"), "{stderr}");
    } else {
        assert!(stdout.contains("State shared"), "{stdout}");
    }
}
