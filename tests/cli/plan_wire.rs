//! The wire of the `--plan --json` documents, one test per kind of
//! document: its keys, their order and its nulls on the raw JSON, and the
//! text itself being what its type writes back (so the type holds every
//! key, and a reader of the type reads the whole document). Every other
//! test reads plans through the types (`plan::read_plan`); these keep the
//! format that scripts read (docs/plan.md) from changing with them.

use super::plan::{fixture, read_plan, PLANNING};
use super::splits::cg_node_splits;
use super::{numabench, succeeding};
use numabench::bench::PlanDocument;
use numabench::check::CheckPlanEntry;
use numabench::cluster::ClusterPlan;
use numabench::overdecompose::OverdecomposePlan;
use numabench::runner::RunPlan;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// The keys of the object at `pointer` (a JSON pointer) of `document`, in
/// the document's order.
fn keys<'a>(document: &'a Value, pointer: &str) -> Vec<&'a str> {
    document
        .pointer(pointer)
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("no object at {pointer:?} of {document}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// The entries of the array at `pointer` of `document`.
fn entries<'a>(document: &'a Value, pointer: &str) -> &'a Vec<Value> {
    document
        .pointer(pointer)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no array at {pointer:?} of {document}"))
}

/// What `arguments` print, as raw JSON, after checking that the text is
/// exactly what its type `T` writes back (pretty, keys in the type's
/// order, numbers as written).
fn wire<T: Serialize + DeserializeOwned>(arguments: &[&str]) -> Value {
    wire_of::<T>(&format!("{arguments:?}"), &succeeding(arguments).stdout)
}

/// [`wire`] of what a command printed on stdout.
fn wire_of<T: Serialize + DeserializeOwned>(origin: &str, stdout: &[u8]) -> Value {
    let typed: T = read_plan(origin, stdout);
    let written = serde_json::to_string_pretty(&typed).unwrap() + "\n";
    assert_eq!(
        written,
        String::from_utf8_lossy(stdout),
        "{origin}: not what {} writes back",
        std::any::type_name::<T>()
    );
    serde_json::from_slice(stdout).unwrap()
}

/// The keys of a measuring command's step, `sample_rule` last where the
/// step was sampled.
const STEP: &[&str] = &[
    "benchmark",
    "label",
    "threads",
    "cpus",
    "cpu_order",
    "mem_nodes",
    "size_bytes",
    "sizes",
    "cache_bytes_in_front",
    "cache_affected",
    "repeat",
    "measurements",
    "estimated_seconds",
];

/// Every measuring command's plan (`PlanDocument`): the document's keys
/// (`node_splits` only with `--node-splits`, before `budget`), every
/// step's, the budget's and its cuts', the splits' and the skipped ones'.
#[test]
fn a_measuring_plan_keeps_its_keys() {
    let budget = [
        "budget_seconds",
        "uncut_seconds",
        "estimated_seconds",
        "cuts",
        "fits",
        "leftover",
        "blind_spots",
        "calibration_seconds",
    ];
    let file = fixture("two-socket-smt.xml");
    let mut sampled = 0;
    let mut cuts = 0;
    for command in PLANNING {
        let arguments = [&["--topology", &file][..], command, &["--plan", "--json"]].concat();
        let plan = wire::<PlanDocument>(&arguments);
        assert_eq!(
            keys(&plan, ""),
            ["topology_source", "estimated_seconds", "steps", "budget"],
            "{command:?}"
        );
        for (index, step) in entries(&plan, "/steps").iter().enumerate() {
            let mut expected = STEP.to_vec();
            if step.get("sample_rule").is_some() {
                expected.push("sample_rule");
                sampled += 1;
            }
            assert_eq!(keys(step, ""), expected, "{command:?} step {index}");
        }
        assert_eq!(keys(&plan, "/budget"), budget, "{command:?}");
        for (index, _) in entries(&plan, "/budget/cuts").iter().enumerate() {
            let cut = format!("/budget/cuts/{index}");
            let expected = ["what", "text", "before_seconds", "after_seconds"];
            assert_eq!(keys(&plan, &cut), expected, "{command:?}");
            cuts += 1;
        }
    }
    assert!(
        sampled > 0 && cuts > 0,
        "no sampled step or no cut was seen"
    );
    // Node splits, one of them skipped (5 threads, 4 CPUs a node).
    let topology = fixture("two-sockets-hbm-cxl.xml");
    let splits = [
        &["--topology", &topology][..],
        &cg_node_splits("5"),
        &["--plan", "--json"],
    ]
    .concat();
    let plan = wire::<PlanDocument>(&splits);
    assert_eq!(
        keys(&plan, ""),
        [
            "topology_source",
            "estimated_seconds",
            "steps",
            "node_splits",
            "budget"
        ]
    );
    assert_eq!(
        keys(&plan, "/node_splits"),
        ["threads", "symmetry_used", "truncated", "splits", "skipped"]
    );
    assert_eq!(
        keys(&plan, "/node_splits/splits/0"),
        ["split", "cpus", "equivalent", "equivalent_count"]
    );
    assert_eq!(keys(&plan, "/node_splits/skipped/0"), ["split", "reason"]);
}

/// `run --plan --json` (`RunPlan`), a scan's too: its keys, and the
/// fields that are the program's own written as null.
#[test]
fn a_run_plan_keeps_its_keys_and_nulls() {
    let file = fixture("two-socket-smt.xml");
    let run = ["--topology", &file, "run", "--plan", "--json"];
    let scan = [
        "--param", "t=1,2", "--policy", "as-is", "--policy", "bind:1",
    ];
    for arguments in [
        [&run[..], &["--", "true"]].concat(),
        [&run[..], &scan, &["--", "echo", "{t}"]].concat(),
    ] {
        let plan = wire::<RunPlan>(&arguments);
        assert_eq!(
            keys(&plan, ""),
            ["topology_source", "interleaved", "steps"],
            "{arguments:?}"
        );
        assert_eq!(plan.pointer("/interleaved"), Some(&Value::Bool(true)));
        for (index, step) in entries(&plan, "/steps").iter().enumerate() {
            assert_eq!(
                keys(step, ""),
                [
                    "benchmark",
                    "label",
                    "command",
                    "threads",
                    "cpus",
                    "pinned",
                    "cpu_order",
                    "mem_nodes",
                    "memory_policy",
                    "size_bytes",
                    "repeat",
                    "warmup",
                    "estimated_seconds"
                ],
                "{arguments:?} step {index}"
            );
            assert_eq!(step.pointer("/benchmark"), Some(&Value::from("run")));
            for null in ["/threads", "/size_bytes", "/estimated_seconds"] {
                assert_eq!(step.pointer(null), Some(&Value::Null), "{null}: {step}");
            }
        }
    }
}

/// `overdecompose --plan --json` (`OverdecomposePlan`): its keys and its
/// configurations'.
#[test]
fn an_overdecompose_plan_keeps_its_keys() {
    let arguments = [
        "--topology",
        super::OTHER_MACHINE_XML,
        "overdecompose",
        "--plan",
        "--json",
        "--cores",
        "2",
    ];
    let output = numabench()
        .args(arguments)
        .env_remove("SLURM_JOB_NUM_NODES")
        .env_remove("SLURM_NNODES")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let plan = wire_of::<OverdecomposePlan>("overdecompose --plan --json", &output.stdout);
    assert_eq!(
        keys(&plan, ""),
        [
            "benchmark",
            "hosts",
            "host_names",
            "hosts_from",
            "cores",
            "core_cpus",
            "repeat",
            "omega",
            "iterations",
            "configurations"
        ]
    );
    assert_eq!(plan.pointer("/iterations"), Some(&Value::Null));
    assert!(!entries(&plan, "/configurations").is_empty());
    for index in 0..entries(&plan, "/configurations").len() {
        assert_eq!(
            keys(&plan, &format!("/configurations/{index}")),
            [
                "target_comm_share",
                "ranks_per_core",
                "ranks",
                "ranks_per_host",
                "rank_cpus",
                "nx",
                "rows_per_core"
            ]
        );
    }
}

/// `check --plan --json` (a list of `CheckPlanEntry`): each entry's keys,
/// its plan's and its items'.
#[test]
fn a_check_plan_keeps_its_keys() {
    let file = fixture("two-socket-smt.xml");
    let plans = wire::<Vec<CheckPlanEntry>>(&["--topology", &file, "check", "--plan", "--json"]);
    let entries = entries(&plans, "");
    assert_eq!(entries.len(), 1);
    assert_eq!(keys(&entries[0], ""), ["node_type", "plan"]);
    assert_eq!(
        keys(&entries[0], "/plan"),
        [
            "items",
            "repeat",
            "latency_samples",
            "estimated_seconds",
            "budget_seconds"
        ]
    );
    assert_eq!(
        keys(&entries[0], "/plan/items/0"),
        [
            "key",
            "quantity",
            "cpu_node",
            "memory_node",
            "cpus",
            "size",
            "cache_affected"
        ]
    );
}

/// `cluster --plan --json` (`ClusterPlan`): its keys, the ping-pong's, and
/// the ping-pong null when the part does not run.
#[test]
fn a_cluster_plan_keeps_its_keys() {
    let document = [
        "hosts",
        "parts",
        "sequential",
        "pingpong",
        "pingpong_in_rounds",
        "assumed_link_bytes_per_second",
        "assumed_link_latency_seconds",
        "pingpong_budget_seconds",
    ];
    let plan = wire::<ClusterPlan>(&["cluster", "--plan", "--json", "--hosts", "1000"]);
    assert_eq!(keys(&plan, ""), document);
    assert_eq!(
        keys(&plan, "/pingpong"),
        [
            "participants",
            "pairs",
            "bytes_per_pair",
            "seconds_per_pair",
            "seconds",
            "over_budget",
            "rounds",
            "rounds_seconds"
        ]
    );
    let arguments = ["cluster", "--plan", "--json", "--hosts", "4"];
    let without = wire::<ClusterPlan>(&[&arguments[..], &["--skip", "pingpong"]].concat());
    assert_eq!(keys(&without, ""), document);
    assert_eq!(without.pointer("/pingpong"), Some(&Value::Null));
}
