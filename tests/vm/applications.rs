//! The application kernels (STREAM, NPB MG and CG) in the two-socket VM
//! under every placement scheme, and under automatic NUMA balancing in a
//! boot of their own.

use super::boot::Part;
use super::harness::{VmOptions, VmRun};
use super::placement_checks::records;
use super::{check_topology_with, topologies, FIRST_EXTRA_COMMAND};
use serde_json::Value;

/// Application kernels in a second boot of the two-socket VM: STREAM, MG
/// and CG under every placement scheme, one worker per node (scatter:
/// worker 0 on CPU 0, worker 1 on CPU 2).
const TWO_SOCKET_APPS: [&str; 8] = [
    // Automatic NUMA balancing is off for the explicit schemes (see TWO_SOCKET_PLACEMENT).
    "numabench stream --size 8M --iterations 2 --repeat 1 --threads 2 --threads-placement scatter --placement serial --json",
    "numabench stream --size 8M --iterations 2 --repeat 1 --threads 2 --threads-placement scatter --placement first-touch --json",
    "numabench stream --size 8M --iterations 2 --repeat 1 --threads 2 --threads-placement scatter --placement interleave --json",
    "numabench stream --size 8M --iterations 2 --repeat 1 --threads 2 --threads-placement scatter --placement serial+migrate --json",
    "numabench stream --size 8M --iterations 2 --repeat 1 --threads 2 --threads-placement scatter --placement next-touch --json",
    "numabench stream --size 8M --iterations 2 --repeat 1 --threads 2 --threads-placement scatter --placement bind:1 --json",
    // NPB MG and CG under every explicit placement scheme, verified; MG under every thread scheme too.
    "numabench placement-study mg --class S --repeat 1 --threads 2 --threads-placements scatter,compact,unpinned --placements first-touch,serial,interleave,bind:1,serial+migrate,next-touch --json",
    "numabench placement-study cg --class S --repeat 1 --threads 2 --threads-placements scatter --placements first-touch,serial,interleave,bind:1,serial+migrate,next-touch --json",
];

/// The autonuma scheme in a boot of the two-socket VM with the kernel's
/// balancing on (`VmOptions::numa_balancing`, set while one CPU is online):
/// verified, and no "balancing is off" note.
const TWO_SOCKET_AUTONUMA: [&str; 3] = [
    "numabench mg --class S --repeat 1 --threads 2 --threads-placement scatter --placement autonuma --json",
    "numabench cg --class S --repeat 1 --threads 2 --threads-placement scatter --placement autonuma --json",
    "numabench stream --size 8M --iterations 2 --repeat 1 --threads 2 --threads-placement scatter --placement autonuma --json",
];

/// The applications' part of the two-socket boot.
pub fn part() -> Part {
    Part::new("applications", &TWO_SOCKET_APPS, 900)
}

#[test]
fn two_sockets_applications() {
    let run = super::two_sockets::boot().part("applications");
    let cmd = |k: usize| FIRST_EXTRA_COMMAND + k;
    check_app_placement(&run, cmd(0));
    let bind = app_time(&run, cmd(5), "stream");
    for when in ["pages_after_placement", "pages_after_run"] {
        assert!(
            node_share(&bind[when], "1") > 0.99,
            "stream bind:1 {when}: {bind}"
        );
    }
    check_npb_study(&run, cmd(6), "mg");
    check_npb_study(&run, cmd(7), "cg");
}

#[test]
fn two_sockets_autonuma() {
    let options = VmOptions {
        numa_balancing: true,
        ..VmOptions::default()
    };
    let run = check_topology_with(&topologies::two_sockets(), &TWO_SOCKET_AUTONUMA, options);
    for (k, benchmark) in [(0, "mg"), (1, "cg"), (2, "stream")] {
        let time = app_time(&run, FIRST_EXTRA_COMMAND + k, benchmark);
        assert_eq!(time["placement"], "autonuma");
        assert!(
            time.get("note").is_none(),
            "balancing was on, yet: {}\n{}",
            time["note"],
            run.transcript()
        );
    }
}

/// The `time` record's params of an application kernel's command `i`,
/// checking that the run verified.
pub(crate) fn app_time(run: &VmRun, i: usize, benchmark: &str) -> Value {
    let time = records(run, i, benchmark)
        .into_iter()
        .find(|r| r["metric"] == "time")
        .expect("a time record");
    assert_eq!(
        time["params"]["verification"]["passed"],
        true,
        "`{}`\n{}",
        run.commands[i].command,
        run.transcript()
    );
    time["params"].clone()
}

/// A placement study of an NPB kernel with two workers, under first-touch,
/// serial, interleave, bind:1, serial+migrate and next-touch (in that
/// order): every run verified; with scatter (one worker per node) the pages
/// where each scheme says, from the page-location query; pinned workers
/// still on their CPUs after the run.
fn check_npb_study(run: &VmRun, i: usize, benchmark: &str) {
    let context = || format!("`{}`\n{}", run.commands[i].command, run.transcript());
    let all: Vec<Value> = records(run, i, benchmark)
        .into_iter()
        .filter(|r| r["metric"] == "time")
        .map(|r| {
            assert_eq!(
                r["params"]["verification"]["passed"],
                true,
                "{r}\n{}",
                context()
            );
            r["params"].clone()
        })
        .collect();
    let with_threads = |scheme: &str| -> Vec<Value> {
        all.iter()
            .filter(|t| t["threads_placement"] == scheme)
            .cloned()
            .collect()
    };
    // Pinned threads stay on their CPUs: 0 and 2 (scatter, one per node),
    // 0 and 1 (compact, both on node 0). Unpinned ones are not judged.
    for (scheme, cpus) in [
        ("scatter", serde_json::json!([0, 2])),
        ("compact", serde_json::json!([0, 1])),
    ] {
        for t in with_threads(scheme) {
            assert_eq!(t["workers_stayed_pinned"], true, "{t}");
            assert_eq!(t["worker_cpus_after_run"], cpus, "{t}");
        }
    }
    for t in with_threads("unpinned") {
        assert_eq!(t["workers_stayed_pinned"], Value::Null, "{t}");
    }
    // Compact first touch: both workers on node 0, so every page is there.
    if let Some(compact) = with_threads("compact").first() {
        assert_eq!(compact["placement"], "first-touch");
        assert!(
            node_share(&compact["pages_after_placement"], "0") > 0.99,
            "{compact}"
        );
    }
    let times = with_threads("scatter");
    let schemes: Vec<&str> = times
        .iter()
        .map(|t| t["placement"].as_str().unwrap())
        .collect();
    assert_eq!(
        schemes,
        [
            "first-touch",
            "serial",
            "interleave",
            "bind:1",
            "serial+migrate",
            "next-touch"
        ],
        "{}",
        context()
    );
    let share = |t: &Value, when: &str, node: &str| node_share(&t[when], node);
    let remote = |t: &Value| t["pages_after_run"]["remote_share"].as_f64().unwrap();
    for t in &times {
        eprintln!(
            "[{}] {benchmark} {}: node 0 holds {:.3} after placement, {:.3} after the run; remote share {:.3}",
            run.topology,
            t["placement"],
            share(t, "pages_after_placement", "0"),
            share(t, "pages_after_run", "0"),
            remote(t)
        );
    }
    // first-touch: each worker's part on its own node.
    let first_touch = &times[0];
    let zero = share(first_touch, "pages_after_placement", "0");
    assert!(
        (0.25..=0.75).contains(&zero),
        "first-touch: node 0 holds {zero}: {}",
        context()
    );
    assert!(remote(first_touch) < 0.05, "first-touch: {}", context());
    // serial: all on worker 0's node.
    assert!(
        share(&times[1], "pages_after_placement", "0") > 0.95,
        "serial: {}",
        context()
    );
    // interleave: half and half.
    let zero = share(&times[2], "pages_after_placement", "0");
    assert!(
        (0.4..=0.6).contains(&zero),
        "interleave: node 0 holds {zero}: {}",
        context()
    );
    // bind:1: all on node 1, before and after the run.
    for when in ["pages_after_placement", "pages_after_run"] {
        assert!(
            share(&times[3], when, "1") > 0.99,
            "bind:1 {when}: {}",
            context()
        );
    }
    // serial+migrate and next-touch: all on node 0 first, then moved to the
    // node of the worker that uses each page. serial+migrate moves each
    // owner's range explicitly (under 5% remote, as first touch). Next-touch
    // puts a page where it is first touched after the marker: a page shared
    // by two workers' planes, or first read by a neighbour's stencil, can go
    // to the other node, and class S's small levels have many such pages
    // (about 9% for MG S here), still far below serial's ~50%.
    for (t, most_remote) in times[4..].iter().zip([0.05, 0.15]) {
        assert!(
            share(t, "pages_after_placement", "0") > 0.95,
            "{}: {}",
            t["placement"],
            context()
        );
        assert!(
            t["migrated_pages"].as_u64().unwrap() > 0,
            "{}: {}",
            t["placement"],
            context()
        );
        assert!(
            share(t, "pages_after_run", "1") > 0.25,
            "{}: {}",
            t["placement"],
            context()
        );
        assert!(
            remote(t) < most_remote,
            "{}: remote share {}: {}",
            t["placement"],
            remote(t),
            context()
        );
    }
}

/// Share of the pages on `node` in a `pages_after_*` object.
pub(crate) fn node_share(pages: &Value, node: &str) -> f64 {
    let per_node = pages["pages_per_node"].as_object().expect("pages_per_node");
    let total: u64 = per_node.values().map(|count| count.as_u64().unwrap()).sum();
    per_node.get(node).and_then(Value::as_u64).unwrap_or(0) as f64 / total.max(1) as f64
}

/// STREAM under the placement schemes, on two nodes.
fn check_app_placement(run: &VmRun, first: usize) {
    let time = |i: usize, benchmark: &str| app_time(run, i, benchmark);
    let context = |i: usize| format!("`{}`\n{}", run.commands[i].command, run.transcript());
    // serial: worker 0 (CPU 0, node 0) touched everything.
    let serial = time(first, "stream");
    assert!(
        node_share(&serial["pages_after_placement"], "0") > 0.95,
        "{}",
        context(first)
    );
    // first-touch and interleave: spread over both nodes.
    for i in [first + 1, first + 2] {
        let params = time(i, "stream");
        let share = node_share(&params["pages_after_placement"], "0");
        assert!(
            (0.4..=0.6).contains(&share),
            "node 0 holds {share}: {}",
            context(i)
        );
    }
    let first_touch = time(first + 1, "stream");
    assert!(
        first_touch["pages_after_run"]["remote_share"]
            .as_f64()
            .unwrap()
            < 0.05,
        "{}",
        context(first + 1)
    );
    // serial+migrate and next-touch: all on node 0 after placement, then moved to the owners' nodes.
    for i in [first + 3, first + 4] {
        let params = time(i, "stream");
        assert!(
            node_share(&params["pages_after_placement"], "0") > 0.95,
            "{}",
            context(i)
        );
        let after = &params["pages_after_run"];
        let share = node_share(after, "0");
        assert!(
            (0.4..=0.6).contains(&share),
            "after the run node 0 holds {share}: {}",
            context(i)
        );
        assert!(
            after["remote_share"].as_f64().unwrap() < 0.05,
            "{}",
            context(i)
        );
        assert!(
            params["migrated_pages"].as_u64().unwrap() > 0,
            "{}",
            context(i)
        );
    }
}
