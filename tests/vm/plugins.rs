//! A benchmark plugin in the two_sockets VM: the example plugin (built on
//! the host with its Makefile) runs on one thread per node, each thread's
//! buffer placed by its first touch on its own node and verified there.

use super::boot::Part;
use super::FIRST_EXTRA_COMMAND;
use std::path::Path;
use std::process::Command;

const PLUGIN: &str = "numabench plugin --plugin /usr/local/bin/libnumabench_read_bandwidth.so \
                      --cpus 0,2 --size 4M --param passes=2 --repeat 2 --json";

/// This test's part of the two-socket boot: the example plugin, built here.
pub fn part() -> Part {
    let directory = tempfile::tempdir().unwrap();
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let status = Command::new("make")
        .arg("-C")
        .arg(repository.join("examples/plugins"))
        .arg(format!("OUT={}", directory.path().display()))
        .status()
        .expect("make");
    assert!(status.success());
    let plugin = directory.path().join("libnumabench_read_bandwidth.so");
    Part {
        binaries: vec![plugin],
        keep: vec![directory],
        ..Part::new("plugin", &[PLUGIN], 300)
    }
}

#[test]
fn the_example_plugin_runs_in_the_two_socket_vm() {
    let run = super::two_sockets::boot().part("plugin");
    let records = super::placement_checks::all_records(&run, FIRST_EXTRA_COMMAND);
    assert_eq!(records.len(), 1, "{}", run.transcript());
    let record = &records[0];
    assert_eq!(record.benchmark, "read-bandwidth");
    assert_eq!(record.stats.n, 4, "2 threads x 2 repetitions: {record:?}");
    assert_eq!(
        super::placement_state(record),
        Ok("verified".to_string()),
        "{record:?}"
    );
    let verified = record
        .placement
        .verified
        .as_ref()
        .expect("a placement check");
    // 4 MiB on each node: each thread's buffer on its own CPU's node.
    assert_eq!(verified.pages_per_node.get(&0), Some(&1024), "{record:?}");
    assert_eq!(verified.pages_per_node.get(&1), Some(&1024), "{record:?}");
}
