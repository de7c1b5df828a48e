//! Weighted interleave in the two-socket VM (node 0: CPUs 0-1, node 1:
//! CPUs 2-3): `weighted:0=3,1=1` puts three pages on node 0 for every one
//! on node 1, for a micro-benchmark's buffer and an application's arrays,
//! verified from the kernel's page locations. The guest's kernel holds no
//! weights of 3 and 1 (Linux 6.1 has no weighted interleave; a newer one
//! starts at 1 for every node), so both run emulated, and say so.

use super::boot::Part;
use super::{records, FIRST_EXTRA_COMMAND};
use serde_json::Value;

const COMMANDS: [&str; 2] = [
    "numabench bandwidth --kernel read --simd sse2 --size 8M --repeat 1 --cpus 0 --interleave 0=3,1=1 --json",
    "numabench stream --size 8M --repeat 1 --iterations 2 --threads 2 --placement weighted:0=3,1=1 --json",
];

/// Node 0's share of a placement check's pages, and the check.
fn node0_share(verified: &Value) -> f64 {
    let per_node = &verified["pages_per_node"];
    let on = |node: &str| per_node[node].as_u64().unwrap_or(0) as f64;
    on("0") / (on("0") + on("1"))
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
        let placement = &record["placement"];
        assert_eq!(placement["requested"]["memory"], "weighted:0=3,1=1");
        assert_eq!(
            placement["requested"]["weighted_mode"], "emulated",
            "{record}"
        );
        let verified = &placement["verified"];
        assert_eq!(verified["achieved"], true, "{record}\n{}", context());
        let share = node0_share(verified);
        assert!(
            (share - 0.75).abs() < 0.01,
            "node 0 holds {share}: {record}"
        );
    }
    let time = records(&run, FIRST_EXTRA_COMMAND + 1, "stream")
        .into_iter()
        .find(|record| record["metric"] == "time")
        .expect("a time record");
    assert_eq!(time["params"]["weighted_mode"], "emulated", "{time}");
    let verified = &time["placement"]["verified"];
    assert_eq!(verified["achieved"], true, "{time}\n{}", context());
    let share = node0_share(verified);
    assert!((share - 0.75).abs() < 0.02, "node 0 holds {share}: {time}");
}
