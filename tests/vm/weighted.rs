//! Weighted interleave in the two-socket VM (node 0: CPUs 0-1, node 1:
//! CPUs 2-3): `weighted:0=3,1=1` puts three pages on node 0 for every one
//! on node 1, for a micro-benchmark's buffer and an application's arrays,
//! verified from the kernel's page locations. The guest's kernel holds no
//! weights of 3 and 1 (Linux 6.1 has no weighted interleave; a newer one
//! starts at 1 for every node), so both run emulated, and say so.

use super::boot::Part;
use super::records::{app_run_params, requested};
use super::{records, FIRST_EXTRA_COMMAND};
use numabench_schema::{PlacementCheck, Record};

const COMMANDS: [&str; 2] = [
    "numabench bandwidth --kernel read --simd sse2 --size 8M --repeat 1 --cpus 0 --interleave 0=3,1=1 --json",
    "numabench stream --size 8M --repeat 1 --iterations 2 --threads 2 --placement weighted:0=3,1=1 --json",
];

/// Node 0's share of a record's checked pages (nodes 0 and 1), and
/// whether the check says the placement was achieved.
fn node0_share(record: &Record) -> (f64, bool) {
    let check: &PlacementCheck = record
        .placement
        .verified
        .as_ref()
        .unwrap_or_else(|| panic!("placement not checked: {record:?}"));
    let on = |node: u32| check.pages_per_node.get(&node).copied().unwrap_or(0) as f64;
    (on(0) / (on(0) + on(1)), check.achieved)
}

/// This test's part of the two-socket boot.
pub fn part() -> Part {
    Part::new("weighted", &COMMANDS, 300)
}

#[test]
fn weighted_interleave_splits_pages_three_to_one() {
    let run = super::two_sockets::boot().part("weighted");
    let context = || run.transcript();
    for record in records(&run, FIRST_EXTRA_COMMAND, "bandwidth") {
        let requested = requested(&record);
        assert_eq!(requested.memory_label(), Some("weighted:0=3,1=1"));
        assert_eq!(
            requested.weighted_mode.as_deref(),
            Some("emulated"),
            "{record:?}"
        );
        let (share, achieved) = node0_share(&record);
        assert!(achieved, "{record:?}\n{}", context());
        assert!(
            (share - 0.75).abs() < 0.01,
            "node 0 holds {share}: {record:?}"
        );
    }
    let time = records(&run, FIRST_EXTRA_COMMAND + 1, "stream")
        .into_iter()
        .find(|record| record.metric == "time")
        .expect("a time record");
    assert_eq!(
        app_run_params(&time)
            .configuration
            .scheme
            .weighted_mode
            .as_deref(),
        Some("emulated"),
        "{time:?}"
    );
    let (share, achieved) = node0_share(&time);
    assert!(achieved, "{time:?}\n{}", context());
    assert!(
        (share - 0.75).abs() < 0.02,
        "node 0 holds {share}: {time:?}"
    );
}
