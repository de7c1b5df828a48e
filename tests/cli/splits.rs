//! Chosen CPU sets (`--cpus`), node splits (`placement-study
//! --node-splits`) and the one-node baseline (`--baseline one-node`).

use super::plan::{fixture, plan_on};
use super::records::params_of;
use super::{numabench, records, succeeding, typed_records};
use numabench_schema::params::{AppParams, OneNodeParams, StudyVerdictParams};
use numabench_schema::Record;

/// The one-node baseline's params of an application's run record.
fn one_node(record: &Record) -> OneNodeParams {
    params_of::<AppParams>(record)
        .one_node
        .unwrap_or_else(|| panic!("no one-node baseline: {record:?}"))
}

/// The arguments of a CG placement study over the node splits of
/// `threads` threads.
pub(super) fn cg_node_splits(threads: &str) -> [&str; 7] {
    [
        "placement-study",
        "cg",
        "--class",
        "S",
        "--node-splits",
        "--threads",
        threads,
    ]
}

/// Four threads on AMD NPS4 (2 sockets x 4 nodes): 11 distinct splits,
/// the others listed as equivalent to them, one plan step per split.
#[test]
fn node_splits_are_planned_on_a_big_fixture() {
    let file = fixture("amd-nps4.xml");
    let arguments = cg_node_splits("4");
    let text = succeeding(&[&["--topology", &file], &arguments[..], &["--plan"]].concat());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("Node splits of 4 threads"), "{text}");
    assert!(
        text.contains("1. 4/0/0/0/0/0/0/0  CPUs 0,8,1,9; equivalent: 0/4/0/0/0/0/0/0"),
        "{text}"
    );
    // Same socket and across sockets are different splits.
    assert!(text.contains("2/2/0/0/0/0/0/0"), "{text}");
    assert!(text.contains("2/0/0/0/2/0/0/0"), "{text}");
    assert!(text.contains("Plan (11 steps)"), "{text}");
    let plan = plan_on(&file, &arguments);
    let steps = &plan.steps;
    assert_eq!(steps.len(), 11);
    assert!(steps[0].label.contains("node split 4/0/0/0/0/0/0/0"));
    assert_eq!(steps[0].cpus, [0, 8, 1, 9]);
    assert_eq!(steps[0].mem_nodes, [0]);
    assert_eq!(steps[2].mem_nodes, [0, 4]);
    // The JSON plan lists the splits as the text does: each with its CPUs and
    // its equivalents, in step order.
    let splits = plan.node_splits.as_ref().expect("node_splits in the plan");
    let listed = &splits.splits;
    assert_eq!(listed.len(), steps.len());
    assert_eq!(listed[0].split, "4/0/0/0/0/0/0/0");
    assert_eq!(listed[0].cpus, [0, 8, 1, 9]);
    assert_eq!(listed[0].equivalent_count, 7);
    assert_eq!(listed[0].equivalent[0], "0/4/0/0/0/0/0/0");
    assert!(splits.symmetry_used);
    assert!(!splits.truncated);
    assert_eq!(splits.threads, 4);
    // The limit stops the enumeration and says so.
    let limited = succeeding(
        &[
            &["--topology", &file],
            &arguments[..],
            &["--max-splits", "3", "--plan"],
        ]
        .concat(),
    );
    let limited = String::from_utf8(limited.stdout).unwrap();
    assert!(limited.contains("Plan (3 steps)"), "{limited}");
    assert!(limited.contains("raise --max-splits"), "{limited}");
    // Five threads where every node has 4 CPUs: all on one node cannot fit.
    let skipped = succeeding(
        &[
            &["--topology", &fixture("two-sockets-hbm-cxl.xml")][..],
            &cg_node_splits("5"),
            &["--plan"],
        ]
        .concat(),
    );
    let skipped = String::from_utf8(skipped.stdout).unwrap();
    assert!(skipped.contains("skipped: 5/"), "{skipped}");
    assert!(
        skipped.contains("allowed CPU(s) for 5 threads"),
        "{skipped}"
    );
}

/// `--cpus` puts the workers on exactly those CPUs, in that order.
#[test]
fn chosen_cpus_run_the_workers_there_in_order() {
    let (metadata, records) = records(&[
        "stream",
        "--size",
        "1M",
        "--repeat",
        "2",
        "--iterations",
        "2",
        "--cpus",
        "1,0",
    ]);
    let time = records
        .iter()
        .find(|record| record.metric == "time")
        .unwrap();
    let params: AppParams = params_of(time);
    assert_eq!(params.split.cpus, Some(vec![1, 0]));
    assert_eq!(params.run.worker_cpus_after_run, Some(vec![1, 0]));
    assert_eq!(params.run.configuration.threads.threads, Some(2));
    let nodes = metadata.topology;
    let split = params.split.node_split.as_deref().expect("a node split");
    let total: u64 = split
        .split('/')
        .map(|part| part.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 2, "{split} ({nodes})");
    let requested = super::requested(time);
    assert_eq!(requested.cpus, Some(vec![Some(1), Some(0)]));
}

/// Every record of a `--baseline one-node` run gives the baseline's median
/// and this run's time relative to it, and the ratio is the records' own.
#[test]
fn the_one_node_baseline_ratio_comes_from_the_records() {
    let records = typed_records(&[
        "stream",
        "--size",
        "1M",
        "--repeat",
        "3",
        "--iterations",
        "2",
        "--threads",
        "1",
        "--placement",
        "interleave",
        "--baseline",
        "one-node",
    ]);
    assert!(!records.is_empty());
    for record in &records {
        let baseline = one_node(record);
        assert!(
            baseline.one_node_baseline.starts_with("ran on node "),
            "{record:?}"
        );
        assert!(
            baseline
                .one_node_seconds
                .is_some_and(|seconds| seconds > 0.0),
            "{record:?}"
        );
    }
    let time = records
        .iter()
        .find(|record| record.metric == "time")
        .unwrap();
    let median = time.stats.median;
    let baseline = one_node(time).one_node_seconds.expect("one_node_seconds");
    let ratio = one_node(time)
        .relative_to_one_node
        .expect("relative_to_one_node");
    assert!(
        (ratio - median / baseline).abs() <= 1e-9 * ratio.abs(),
        "{ratio} vs {median}/{baseline}"
    );
    assert_eq!(one_node(time).one_node_cpus.map(|cpus| cpus.len()), Some(1));
}

/// In a plan, a baseline that cannot fit says so and adds no step.
#[test]
fn a_baseline_that_does_not_fit_says_so() {
    let file = fixture("amd-nps4.xml");
    let output = numabench()
        .args([
            "--topology",
            &file,
            "stream",
            "--size",
            "1M",
            "--threads",
            "40",
        ])
        .args(["--baseline", "one-node", "--plan"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("one-node baseline not run: 40 threads do not fit on one node (max 32)"),
        "{stderr}"
    );
    let plan = plan_on(
        &file,
        &[
            "stream",
            "--size",
            "1M",
            "--threads",
            "8",
            "--baseline",
            "one-node",
        ],
    );
    let steps = &plan.steps;
    assert_eq!(steps.len(), 2);
    assert!(steps[1].label.starts_with("one-node baseline:"));
    assert_eq!(steps[1].mem_nodes.len(), 1);
}

/// A node-split study runs each split and ends with a verdict that names
/// the slowest split too (or says none was significantly slowest).
#[test]
fn a_node_split_study_runs_its_splits_and_names_best_and_worst() {
    let records = typed_records(&[
        "placement-study",
        "stream",
        "--size",
        "1M",
        "--node-splits",
        "--threads",
        "1",
        "--placements",
        "first-touch,interleave",
        "--repeat",
        "3",
    ]);
    let times: Vec<_> = records
        .iter()
        .filter(|record| record.metric == "time")
        .collect();
    assert!(!times.is_empty());
    for time in &times {
        let split = params_of::<AppParams>(time).split;
        assert!(split.node_split.is_some(), "{time:?}");
        assert_eq!(split.cpus.map(|cpus| cpus.len()), Some(1), "{time:?}");
    }
    let verdict = records.last().unwrap();
    assert_eq!(verdict.metric, "best_median_time");
    let params: StudyVerdictParams = params_of(verdict);
    assert!(params.node_split.is_some(), "{verdict:?}");
    assert!(params
        .configuration
        .as_deref()
        .is_some_and(|configuration| configuration.contains(" + split ")));
    let slowest = params
        .slowest
        .unwrap_or_else(|| panic!("no slowest configuration: {verdict:?}"));
    // Three runs against three can never be told apart at 5%: no name.
    assert_eq!(params.significantly_fastest, Some(false));
    assert!(!slowest.significantly_slowest, "{verdict:?}");
}
