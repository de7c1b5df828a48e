//! The application kernels (STREAM, NPB MG and CG) in the two-socket VM
//! under every placement scheme, and under automatic NUMA balancing in a
//! boot of their own.

use super::boot::Part;
use super::harness::{VmOptions, VmRun};
use super::placement_checks::records;
use super::records::app_run_params;
use super::{check_topology_with, topologies, FIRST_EXTRA_COMMAND};
use numabench_schema::params::{AppRunParams, PagesParams};
use numabench_schema::Record;

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
    for (when, report) in [
        ("pages_after_placement", &bind.pages_after_placement),
        ("pages_after_run", &bind.pages_after_run),
    ] {
        assert!(
            node_share(pages(&bind, report), 1) > 0.99,
            "stream bind:1 {when}: {bind:?}"
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
        assert_eq!(
            time.configuration.scheme.placement.as_deref(),
            Some("autonuma")
        );
        assert!(
            time.note.is_none(),
            "balancing was on, yet: {:?}\n{}",
            time.note,
            run.transcript()
        );
    }
}

/// The `time` record of an application kernel's command `i`, checking
/// that the run verified.
pub(crate) fn time_record(run: &VmRun, i: usize, benchmark: &str) -> Record {
    let time = records(run, i, benchmark)
        .into_iter()
        .find(|r| r.metric == "time")
        .expect("a time record");
    assert_eq!(
        app_run_params(&time).verification.map(|v| v.passed),
        Some(true),
        "`{}`\n{}",
        run.commands[i].command,
        run.transcript()
    );
    time
}

/// The `time` record's run params of an application kernel's command `i`,
/// checking that the run verified.
pub(crate) fn app_time(run: &VmRun, i: usize, benchmark: &str) -> AppRunParams {
    app_run_params(&time_record(run, i, benchmark))
}

/// A run's `pages_after_placement` or `pages_after_run`, which every
/// application run writes.
pub(crate) fn pages<'a>(
    params: &'a AppRunParams,
    pages: &'a Option<PagesParams>,
) -> &'a PagesParams {
    pages
        .as_ref()
        .unwrap_or_else(|| panic!("no page report: {params:?}"))
}

/// A placement study of an NPB kernel with two workers, under first-touch,
/// serial, interleave, bind:1, serial+migrate and next-touch (in that
/// order): every run verified; with scatter (one worker per node) the pages
/// where each scheme says, from the page-location query; pinned workers
/// still on their CPUs after the run.
fn check_npb_study(run: &VmRun, i: usize, benchmark: &str) {
    let context = || format!("`{}`\n{}", run.commands[i].command, run.transcript());
    let all: Vec<AppRunParams> = records(run, i, benchmark)
        .into_iter()
        .filter(|r| r.metric == "time")
        .map(|r| {
            let params = app_run_params(&r);
            assert_eq!(
                params.verification.as_ref().map(|v| v.passed),
                Some(true),
                "{r:?}\n{}",
                context()
            );
            params
        })
        .collect();
    let with_threads = |scheme: &str| -> Vec<AppRunParams> {
        all.iter()
            .filter(|t| t.configuration.threads_placement.as_deref() == Some(scheme))
            .cloned()
            .collect()
    };
    // Pinned threads stay on their CPUs: 0 and 2 (scatter, one per node),
    // 0 and 1 (compact, both on node 0). Unpinned ones are not judged.
    for (scheme, cpus) in [("scatter", vec![0, 2]), ("compact", vec![0, 1])] {
        for t in with_threads(scheme) {
            assert_eq!(t.workers_stayed_pinned, Some(true), "{t:?}");
            assert_eq!(t.worker_cpus_after_run.as_ref(), Some(&cpus), "{t:?}");
        }
    }
    for t in with_threads("unpinned") {
        assert_eq!(t.workers_stayed_pinned, None, "{t:?}");
    }
    // Compact first touch: both workers on node 0, so every page is there.
    if let Some(compact) = with_threads("compact").first() {
        assert_eq!(
            compact.configuration.scheme.placement.as_deref(),
            Some("first-touch")
        );
        assert!(
            node_share(pages(compact, &compact.pages_after_placement), 0) > 0.99,
            "{compact:?}"
        );
    }
    let times = with_threads("scatter");
    let scheme = |t: &AppRunParams| t.configuration.scheme.placement.clone().unwrap_or_default();
    let schemes: Vec<String> = times.iter().map(scheme).collect();
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
    let placed = |t: &AppRunParams, node: u32| node_share(pages(t, &t.pages_after_placement), node);
    let after = |t: &AppRunParams, node: u32| node_share(pages(t, &t.pages_after_run), node);
    let remote = |t: &AppRunParams| {
        pages(t, &t.pages_after_run)
            .remote_share
            .unwrap_or_else(|| panic!("no remote share: {t:?}"))
    };
    for t in &times {
        eprintln!(
            "[{}] {benchmark} {}: node 0 holds {:.3} after placement, {:.3} after the run; remote share {:.3}",
            run.topology,
            scheme(t),
            placed(t, 0),
            after(t, 0),
            remote(t)
        );
    }
    // first-touch: each worker's part on its own node.
    let first_touch = &times[0];
    let zero = placed(first_touch, 0);
    assert!(
        (0.25..=0.75).contains(&zero),
        "first-touch: node 0 holds {zero}: {}",
        context()
    );
    assert!(remote(first_touch) < 0.05, "first-touch: {}", context());
    // serial: all on worker 0's node.
    assert!(placed(&times[1], 0) > 0.95, "serial: {}", context());
    // interleave: half and half.
    let zero = placed(&times[2], 0);
    assert!(
        (0.4..=0.6).contains(&zero),
        "interleave: node 0 holds {zero}: {}",
        context()
    );
    // bind:1: all on node 1, before and after the run.
    assert!(
        placed(&times[3], 1) > 0.99,
        "bind:1 after placement: {}",
        context()
    );
    assert!(
        after(&times[3], 1) > 0.99,
        "bind:1 after the run: {}",
        context()
    );
    // serial+migrate and next-touch: all on node 0 first, then moved to the
    // node of the worker that uses each page. serial+migrate moves each
    // owner's range explicitly (under 5% remote, as first touch). Next-touch
    // puts a page where it is first touched after the marker: a page shared
    // by two workers' planes, or first read by a neighbour's stencil, can go
    // to the other node, and class S's small levels have many such pages
    // (about 9% for MG S here), still far below serial's ~50%.
    for (t, most_remote) in times[4..].iter().zip([0.05, 0.15]) {
        assert!(placed(t, 0) > 0.95, "{}: {}", scheme(t), context());
        assert!(
            t.migrated_pages.is_some_and(|moved| moved > 0),
            "{}: {}",
            scheme(t),
            context()
        );
        assert!(after(t, 1) > 0.25, "{}: {}", scheme(t), context());
        assert!(
            remote(t) < most_remote,
            "{}: remote share {}: {}",
            scheme(t),
            remote(t),
            context()
        );
    }
}

/// Share of the pages on `node` in a `pages_after_*` report.
pub(crate) fn node_share(pages: &PagesParams, node: u32) -> f64 {
    let total: u64 = pages.pages_per_node.values().sum();
    pages.pages_per_node.get(&node).copied().unwrap_or(0) as f64 / total.max(1) as f64
}

/// STREAM under the placement schemes, on two nodes.
fn check_app_placement(run: &VmRun, first: usize) {
    let time = |i: usize| app_time(run, i, "stream");
    let context = |i: usize| format!("`{}`\n{}", run.commands[i].command, run.transcript());
    // serial: worker 0 (CPU 0, node 0) touched everything.
    let serial = time(first);
    assert!(
        node_share(pages(&serial, &serial.pages_after_placement), 0) > 0.95,
        "{}",
        context(first)
    );
    // first-touch and interleave: spread over both nodes.
    for i in [first + 1, first + 2] {
        let params = time(i);
        let share = node_share(pages(&params, &params.pages_after_placement), 0);
        assert!(
            (0.4..=0.6).contains(&share),
            "node 0 holds {share}: {}",
            context(i)
        );
    }
    let first_touch = time(first + 1);
    assert!(
        pages(&first_touch, &first_touch.pages_after_run)
            .remote_share
            .is_some_and(|share| share < 0.05),
        "{}",
        context(first + 1)
    );
    // serial+migrate and next-touch: all on node 0 after placement, then moved to the owners' nodes.
    for i in [first + 3, first + 4] {
        let params = time(i);
        assert!(
            node_share(pages(&params, &params.pages_after_placement), 0) > 0.95,
            "{}",
            context(i)
        );
        let after = pages(&params, &params.pages_after_run);
        let share = node_share(after, 0);
        assert!(
            (0.4..=0.6).contains(&share),
            "after the run node 0 holds {share}: {}",
            context(i)
        );
        assert!(
            after.remote_share.is_some_and(|share| share < 0.05),
            "{}",
            context(i)
        );
        assert!(
            params.migrated_pages.is_some_and(|moved| moved > 0),
            "{}",
            context(i)
        );
    }
}
