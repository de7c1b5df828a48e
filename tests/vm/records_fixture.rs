//! Makes the records fixture `compare`'s two-machine test reads
//! (`crates/numabench/tests/fixtures/records/four-node-vm.jsonl`): a real
//! `characterize` in the emulated four-node VM (nodes 0-2 with CPUs, node 3
//! CPU-less, asymmetric SLIT, HMAT), its JSON Lines brought back as written.
//! Ignored: it is a fixture maker, not a check (several minutes under TCG).
//! Run it with
//! `NUMABENCH_VM_RECORDS_OUT=FILE NUMABENCH_VM_TIMEOUT_SECS=1800 cargo test -p numabench-cli --test vm records_fixture -- --ignored --nocapture`.

use super::{harness, numabench, topologies};
use std::fs;

/// NUMA balancing off (it would move pages during the matrices), then
/// characterize with a one-minute budget; the terminal output goes to
/// stderr so the results port carries only the records.
const CHARACTERIZE: &str = "echo 0 > /proc/sys/kernel/numa_balancing && \
    numabench characterize --budget 1m --jsonl /tmp/c.jsonl >&2 && cat /tmp/c.jsonl";

#[test]
#[ignore = "fixture maker: writes NUMABENCH_VM_RECORDS_OUT; minutes under TCG"]
fn records_fixture_four_node_characterize() {
    let out = std::env::var_os("NUMABENCH_VM_RECORDS_OUT")
        .expect("NUMABENCH_VM_RECORDS_OUT=FILE names where the records go");
    let topo = topologies::four_nodes_cpuless_hmat();
    let run = harness::run_in_vm(&topo, &[numabench()], &[CHARACTERIZE])
        .unwrap_or_else(|e| panic!("{e}"));
    let records = run.stdout_ok(0);
    eprintln!("{}", run.commands[0].stderr);
    for line in records.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("not a record ({e}): {line}"));
    }
    fs::write(&out, records).unwrap();
}
