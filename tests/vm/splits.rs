//! `placement-study --node-splits` in the four-node VM (three nodes with 2
//! CPUs each, a CPU-less fourth, an asymmetric SLIT): every distinct split
//! of 2 threads runs, its pages sit on the nodes of its threads, and the
//! verdict names a best and a worst split only with significance.

use super::boot::Part;
use super::records::params_of;
use super::{records, verified, FIRST_EXTRA_COMMAND};
use numabench_schema::params::{AppParams, StudyVerdictParams};
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
    let times: Vec<_> = all.iter().filter(|r| r.metric == "time").collect();
    let splits: BTreeSet<String> = times
        .iter()
        .map(|r| {
            params_of::<AppParams>(r)
                .split
                .node_split
                .unwrap_or_else(|| panic!("no node_split: {r:?}"))
        })
        .collect();
    let want: BTreeSet<String> = [
        "2/0/0/0", "0/2/0/0", "0/0/2/0", "1/1/0/0", "1/0/1/0", "0/1/1/0",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(splits, want, "{}", run.transcript());
    for time in &times {
        let params: AppParams = params_of(time);
        // The product variant each configuration ran, and those its
        // calibration left out for products unlike the scalar loads' (TCG's
        // AVX2 gathers were, and failed CG's verification when chosen).
        let spmv = params.spmv.as_ref();
        eprintln!(
            "[{}] split {:?}: spmv {:?} of {:?}, left out {:?}",
            run.topology,
            params.split.node_split,
            spmv.map(|spmv| &spmv.spmv),
            spmv.and_then(|spmv| spmv.spmv_calibration.as_ref())
                .map(|rates| rates.keys().collect::<Vec<_>>()),
            spmv.and_then(|spmv| spmv.spmv_differing.as_ref())
        );
        assert_eq!(
            params.run.verification.as_ref().map(|v| v.passed),
            Some(true),
            "{time:?}"
        );
        assert_eq!(time.stats.n, 2, "{time:?}");
        let v = verified(&run, i, time);
        assert_eq!(
            v.state,
            "verified",
            "first touch misplaced: {time:?}\n{}",
            run.transcript()
        );
        let split: Vec<u32> = params
            .split
            .node_split
            .as_deref()
            .unwrap_or_default()
            .split('/')
            .map(|n| n.parse().unwrap())
            .collect();
        for (node, pages) in &v.pages_per_node {
            assert!(
                *pages == 0 || split[*node as usize] > 0,
                "pages on node {node}, which has no thread: {time:?}"
            );
        }
        let cpus = params.split.cpus.clone().unwrap_or_default();
        assert_eq!(cpus.len(), 2);
        for (node, &count) in split.iter().enumerate() {
            let on_node = cpus.iter().filter(|&&cpu| cpu / 2 == node as u32).count();
            assert_eq!(on_node as u32, count, "{time:?}");
        }
        assert_eq!(params.run.worker_cpus_after_run, Some(cpus), "{time:?}");
    }
    let verdict = all.last().unwrap();
    assert_eq!(verdict.metric, "best_median_time", "{}", run.transcript());
    let params: StudyVerdictParams = params_of(verdict);
    assert!(want.contains(params.node_split.as_deref().unwrap_or_default()));
    assert_eq!(params.significantly_fastest, Some(false), "{verdict:?}");
    let slowest = params
        .slowest
        .unwrap_or_else(|| panic!("no slowest configuration: {verdict:?}"));
    assert!(!slowest.significantly_slowest, "{verdict:?}");
    assert!(slowest.slowest.unwrap_or_default().contains(" + split "));
}
