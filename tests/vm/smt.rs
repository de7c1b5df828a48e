//! `cache` on a guest with SMT (one socket, cores {0,1} {2,3} {4,5}): the
//! Shared state's sharer is never an SMT sibling of the owner or of the
//! measurer. A sibling shares the owner's L1 and L2, so its reads leave
//! the lines Exclusive; in compact order it comes right after the owner,
//! which is what the sharer used to be.

use super::records::params_of;
use super::{harness, numabench, records, topologies};
use numabench_schema::params::CacheStateParams;
use std::collections::BTreeMap;

/// Each CPU's `thread_siblings_list`, as the guest's kernel shows it.
const SIBLINGS: &str = "for c in 0 1 2 3 4 5; do echo $c $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list); done";
const CACHE: &str = "numabench cache --owner 0 --states S --levels L1 --repeat 2";

#[test]
fn smt_cache_sharer_is_not_a_sibling() {
    let topo = topologies::one_socket_smt();
    let json = format!("{CACHE} --json");
    let commands = [SIBLINGS, CACHE, json.as_str()];
    let run =
        harness::run_in_vm(&topo, &[numabench()], &commands).unwrap_or_else(|e| panic!("{e}"));
    let mut siblings: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for line in run.stdout_ok(0).lines() {
        let (cpu, list) = line.split_once(' ').expect("cpu and list");
        siblings.insert(cpu.parse().unwrap(), harness::parse_cpulist(list).unwrap());
    }
    assert_eq!(
        siblings.get(&0),
        Some(&vec![0, 1]),
        "the guest shows no SMT: {siblings:?}\n{}",
        run.qemu_command
    );
    let table = run.stdout_ok(1);
    eprintln!("[{}] cache table:\n{table}", topo.name);
    assert!(table.contains("sharer for"), "{table}");
    let shared = records(&run, 2, "cache");
    assert!(!shared.is_empty(), "{}", run.transcript());
    let mut measurers = Vec::new();
    for record in &shared {
        let params: CacheStateParams = params_of(record);
        assert_eq!(params.state.as_deref(), Some("shared"), "{record:?}");
        let owner = params.owner_cpu.expect("owner_cpu");
        let measurer = params.measurer_cpu.expect("measurer_cpu");
        let sharer = params.sharer_cpu.expect("sharer_cpu");
        assert_eq!(params.sharer_cpu_seen, Some(sharer), "{record:?}");
        for other in [owner, measurer] {
            assert!(
                !siblings[&u64::from(sharer)].contains(&other),
                "sharer CPU {sharer} is a sibling of CPU {other}: {record:?}"
            );
        }
        assert!(params.sharer_reason.is_some(), "{record:?}");
        measurers.push(measurer);
    }
    // The sibling measures too (so the old choice, CPU 1, is excluded by rule, not by chance).
    assert!(measurers.contains(&1), "{measurers:?}");
}
