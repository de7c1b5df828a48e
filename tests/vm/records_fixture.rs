//! Makes the records fixtures `compare`'s two-machine tests read
//! (`crates/numabench/tests/fixtures/records/`, see its README.md): a real
//! `characterize` in an emulated VM, its JSON Lines brought back as written.
//! Ignored: it is a fixture maker, not a check (many minutes under TCG).
//!
//! - `NUMABENCH_VM_RECORDS_OUT=FILE`: where the records go (required);
//! - `NUMABENCH_VM_RECORDS_TOPOLOGY`: `four_nodes` (default: nodes 0-2 with
//!   CPUs, node 3 CPU-less, asymmetric SLIT, HMAT) or `two_sockets`;
//! - `NUMABENCH_VM_RECORDS_ARGS`: more arguments for characterize, e.g.
//!   `--only latency,bandwidth,matrix-latency,matrix-bandwidth --repeat 1`.
//!
//! `NUMABENCH_VM_RECORDS_OUT=FILE NUMABENCH_VM_TIMEOUT_SECS=2400 cargo test -p numabench-cli --test vm records_fixture -- --ignored --nocapture`

use super::{harness, numabench, topologies};
use std::fs;

#[test]
#[ignore = "fixture maker: writes NUMABENCH_VM_RECORDS_OUT; many minutes under TCG"]
fn records_fixture_characterize() {
    let out = std::env::var_os("NUMABENCH_VM_RECORDS_OUT")
        .expect("NUMABENCH_VM_RECORDS_OUT=FILE names where the records go");
    let topo = match std::env::var("NUMABENCH_VM_RECORDS_TOPOLOGY").as_deref() {
        Ok("two_sockets") => topologies::two_sockets(),
        Ok("four_nodes") | Err(_) => topologies::four_nodes_cpuless_hmat(),
        Ok(other) => panic!("NUMABENCH_VM_RECORDS_TOPOLOGY: no topology '{other}'"),
    };
    let more = std::env::var("NUMABENCH_VM_RECORDS_ARGS")
        .map(|args| format!(" {args}"))
        .unwrap_or_default();
    // NUMA balancing is off (the harness's default; it would move pages
    // during the matrices). characterize with a one-minute budget; its
    // terminal output goes to stderr so the results port carries only the
    // records.
    let characterize = format!(
        "numabench characterize --budget 1m{more} --jsonl /tmp/c.jsonl >&2 && cat /tmp/c.jsonl"
    );
    let run = harness::run_in_vm(&topo, &[numabench()], &[&characterize])
        .unwrap_or_else(|e| panic!("{e}"));
    let records = run.stdout_ok(0);
    eprintln!("{}", run.commands[0].stderr);
    for line in records.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("not a record ({e}): {line}"));
    }
    fs::write(&out, records).unwrap();
}
