//! `placement-study --node-splits` in the four-node VM (three nodes with 2
//! CPUs each, a CPU-less fourth, an asymmetric SLIT): every distinct split
//! of 2 threads runs, its pages sit on the nodes of its threads, and the
//! verdict names a best and a worst split only with significance.

use super::boot::Part;
use super::{records, verified, FIRST_EXTRA_COMMAND};
use std::collections::BTreeSet;

/// NUMA balancing stays off (the harness's default): this test does not
/// study it, and its hinting faults move pages while the study reads where
/// they are.
const SPLIT_STUDY: [&str; 1] =
    ["numabench placement-study cg --class S --node-splits --threads 2 --repeat 2 --json"];

/// This test's part of the four-node boot.
pub fn part() -> Part {
    Part::new("splits", &SPLIT_STUDY, 600)
}

#[test]
fn four_nodes_node_splits() {
    let run = super::four_nodes::boot().part("splits");
    let i = FIRST_EXTRA_COMMAND;
    let all = records(&run, i, "cg");
    let times: Vec<_> = all.iter().filter(|r| r["metric"] == "time").collect();
    let splits: BTreeSet<&str> = times
        .iter()
        .map(|r| r["params"]["node_split"].as_str().unwrap())
        .collect();
    // The SLIT is asymmetric: no two splits are alike, all six run.
    let want: BTreeSet<&str> = [
        "2/0/0/0", "0/2/0/0", "0/0/2/0", "1/1/0/0", "1/0/1/0", "0/1/1/0",
    ]
    .into_iter()
    .collect();
    assert_eq!(splits, want, "{}", run.transcript());
    for time in &times {
        let params = &time["params"];
        assert_eq!(params["verification"]["passed"], true, "{time}");
        assert_eq!(time["stats"]["n"], 2, "{time}");
        // First touch: every page on the node of the thread that computes on it.
        let v = verified(&run, i, time);
        assert_eq!(
            v.state,
            "verified",
            "first touch misplaced: {time}\n{}",
            run.transcript()
        );
        let split: Vec<u64> = params["node_split"]
            .as_str()
            .unwrap()
            .split('/')
            .map(|n| n.parse().unwrap())
            .collect();
        for (node, pages) in &v.pages_per_node {
            assert!(
                *pages == 0 || split[*node as usize] > 0,
                "pages on node {node}, which has no thread: {time}"
            );
        }
        let cpus: Vec<u64> = params["cpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        assert_eq!(cpus.len(), 2);
        for (node, &count) in split.iter().enumerate() {
            let on_node = cpus.iter().filter(|&&cpu| cpu / 2 == node as u64).count();
            assert_eq!(on_node as u64, count, "{time}");
        }
        assert_eq!(params["worker_cpus_after_run"], params["cpus"], "{time}");
    }
    let verdict = all.last().unwrap();
    assert_eq!(
        verdict["metric"],
        "best_median_time",
        "{}",
        run.transcript()
    );
    assert!(want.contains(verdict["params"]["node_split"].as_str().unwrap()));
    // Two runs against two can never reach p < 0.05: an honest study names neither.
    assert_eq!(
        verdict["params"]["significantly_fastest"], false,
        "{verdict}"
    );
    assert_eq!(
        verdict["params"]["significantly_slowest"], false,
        "{verdict}"
    );
    assert!(verdict["params"]["slowest"]
        .as_str()
        .unwrap()
        .contains(" + split "));
}
