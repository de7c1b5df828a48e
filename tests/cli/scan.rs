//! `scan` from the command line: its plan on a 24-node machine (every
//! node, within minutes), bad input refused before anything runs, and (as
//! root, which sees physical addresses) a real tiny scan's records and
//! table. Speed is never asserted: the host may be busy. The refusal
//! without privilege is in `unprivileged.rs`, which runs as a user.

use super::plan::{fixture, read_plan};
use super::records::params_of;
use super::{numabench, refusal, succeeding, typed_records, with_metric};
use numabench::bench::PlanDocument;
use numabench_schema::params::{ScanNodeRangesParams, ScanRangeParams};
use numabench_schema::Unit;

/// Whether this process is root (the real user id, from /proc).
fn root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().next())
        == Some("0")
}

#[test]
fn the_plan_scans_every_node_of_a_large_machine_within_minutes() {
    let file = fixture("twenty-four-nodes.xml");
    let text =
        String::from_utf8_lossy(&succeeding(&["--topology", &file, "scan", "--plan"]).stdout)
            .into_owned();
    assert!(text.contains("scan — 24 node(s)"), "{text}");
    assert!(text.contains("5 round(s)"), "{text}");
    let output = succeeding(&["--topology", &file, "scan", "--plan", "--json"]);
    let plan: PlanDocument = read_plan("scan --plan --json", &output.stdout);
    let seconds = plan.estimated_seconds;
    assert!(seconds > 10.0 && seconds < 900.0, "{seconds} s:\n{text}");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let file = fixture("twenty-four-nodes.xml");
    for (arguments, expected) in [
        (&["--range-size", "1MiB"][..], "--range-size"),
        (&["--node", "99"][..], "node 99 does not exist"),
        (&["--threads", "none"][..], "'none' is not a thread count"),
    ] {
        let output = numabench()
            .args(["--topology", &file, "scan", "--plan"])
            .args(arguments)
            .output()
            .unwrap();
        let stderr = refusal(&output);
        assert!(stderr.contains(expected), "{arguments:?}: {stderr}");
    }
    // This machine's free memory is known: a size over it is refused.
    let output = numabench()
        .args(["scan", "--plan", "--size", "100TiB"])
        .output()
        .unwrap();
    let stderr = refusal(&output);
    assert!(stderr.contains("larger than the free memory"), "{stderr}");
}

#[test]
fn a_tiny_scan_as_root_has_a_record_per_range_and_one_per_node() {
    if !root() {
        eprintln!("not root: physical addresses are hidden (unprivileged.rs checks the refusal)");
        return;
    }
    let arguments = [
        "scan",
        "--size",
        "256MiB",
        "--range-size",
        "64MiB",
        "--min-range",
        "8MiB",
        "--rounds",
        "2",
    ];
    let records = typed_records(&arguments);
    let nodes = with_metric(&records, "node_ranges");
    assert!(!nodes.is_empty());
    for node in &nodes {
        let params: ScanNodeRangesParams = params_of(node);
        assert_eq!(node.benchmark, "scan");
        assert_eq!(params.size_bytes, Some(256 << 20));
        assert!(params.bytes_measured.expect("bytes_measured") <= 256 << 20);
        assert!(params.coverage.expect("coverage") <= 1.0);
    }
    let ranges = with_metric(&records, "range_bandwidth");
    let counted: u64 = nodes
        .iter()
        .map(|n| params_of::<ScanNodeRangesParams>(n).ranges.expect("ranges"))
        .sum();
    assert_eq!(ranges.len() as u64, counted);
    for range in &ranges {
        let params: ScanRangeParams = params_of(range);
        let (start, end) = (
            params.range_start.expect("range_start"),
            params.range_end.expect("range_end"),
        );
        assert_eq!(end - start, 64 << 20);
        assert_eq!(start % (64 << 20), 0);
        assert!(params.bytes.expect("bytes") >= 8 << 20);
        assert!(params.pages.expect("pages") > 0);
        assert_eq!(params.node.rounds, Some(2));
        assert_eq!(range.stats.n, 2);
        assert_eq!(range.unit, Unit::GigabytesPerSecond);
        assert!(range.value > 0.0);
        assert!(params.range.expect("a range").starts_with("0x"));
    }
    // The table: one row per node, within 100 columns.
    let output = succeeding(&arguments);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("Read bandwidth of each physical 64 MiB range"),
        "{text}"
    );
    assert!(
        text.lines().all(|line| line.chars().count() <= 100),
        "{text}"
    );
}
