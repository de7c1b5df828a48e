//! The kernel's numastat deltas in app records reflect a remote placement
//! (two_sockets: node 0 = CPUs 0-1, node 1 = CPUs 2-3). The kernel counts
//! `other_node` on the node a page was allocated on when the allocating
//! task ran on another node (mm: zone_statistics), so STREAM's workers on
//! node 0 (compact) with `bind:1` raise node 1's other_node by at least the
//! arrays' pages; under first-touch they allocate locally and node 1's
//! other_node barely moves (the counters are system-wide: the guest's few
//! other tasks may add a little).

use super::applications::time_record;
use super::boot::Part;
use super::records::params_part;
use super::FIRST_EXTRA_COMMAND;
use numabench_schema::params::CountsParams;

/// STREAM's three arrays of 8 MiB, in 4 KiB pages (no huge pages by default).
const ARRAY_PAGES: u64 = 3 * 8 * 1024 * 1024 / 4096;

const COMMANDS: [&str; 2] = [
    "numabench stream --size 8M --iterations 2 --repeat 1 --threads 2 --threads-placement compact --placement bind:1 --json",
    "numabench stream --size 8M --iterations 2 --repeat 1 --threads 2 --threads-placement compact --placement first-touch --json",
];

fn delta(counts: &CountsParams, node: u32, counter: &str) -> u64 {
    counts
        .numastat_delta
        .get(&node)
        .and_then(|counters| counters.get(counter))
        .copied()
        .unwrap_or_else(|| panic!("numastat_delta.{node}.{counter}: {counts:?}"))
}

/// What an application's run observed (`numastat_delta`, `threads_usage`,
/// ...), read from its `time` record's params.
fn counts(run: &super::harness::VmRun, i: usize) -> CountsParams {
    params_part(&time_record(run, i, "stream"))
}

/// This test's part of the two-socket boot.
pub fn part() -> Part {
    Part::new("numastat", &COMMANDS, 300)
}

#[test]
fn two_sockets_numastat_shows_a_remote_bind() {
    let run = super::two_sockets::boot().part("numastat");
    let bind = counts(&run, FIRST_EXTRA_COMMAND);
    let local = counts(&run, FIRST_EXTRA_COMMAND + 1);
    assert_eq!(bind.numastat_scope, "system");
    // Workers on node 0, pages on node 1: every array page counts as other_node on node 1
    // (and as numa_hit or numa_miss there, depending on the node the allocation preferred).
    let remote = delta(&bind, 1, "other_node");
    assert!(
        remote >= ARRAY_PAGES,
        "bind:1 from node 0: node 1 other_node +{remote}, want >= {ARRAY_PAGES}\n{}",
        run.transcript()
    );
    assert!(
        delta(&bind, 1, "numa_hit") + delta(&bind, 1, "numa_miss") >= ARRAY_PAGES,
        "{bind:?}"
    );
    // First touch from node 0: the pages are node 0's local_node, node 1's other_node stays low.
    assert!(delta(&local, 0, "local_node") >= ARRAY_PAGES, "{local:?}");
    let stray = delta(&local, 1, "other_node");
    eprintln!(
        "numastat: bind:1 from node 0: node 1 other_node +{remote}; first-touch on node 0: node 1 other_node +{stray}, node 0 local_node +{} ({ARRAY_PAGES} array pages)",
        delta(&local, 0, "local_node")
    );
    assert!(
        stray < ARRAY_PAGES / 10,
        "first-touch on node 0: node 1 other_node +{stray}\n{}",
        run.transcript()
    );
}
