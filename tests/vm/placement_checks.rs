//! Reading a command's records and checking their placements: what was
//! requested, what the kernel's page locations verified, bad input refused.
//! Records are read as records, through the schema crate's strict reader
//! ([`super::records`]).

use super::harness::VmRun;
use super::records::{read_typed_runs, requested};
use numabench_schema::{HugePageCheck, PlacementStatus, Record};
use std::collections::BTreeMap;

/// `placement.verified` of a record, with its status.
pub(crate) struct Verified {
    pub(crate) pages: u64,
    pub(crate) pages_per_node: BTreeMap<u32, u64>,
    pub(crate) fraction: f64,
    pub(crate) achieved: bool,
    /// `placement.status.state`: `verified` or `misplaced` (an
    /// `unverifiable` check fails in [`verified`], with its reason).
    pub(crate) state: String,
}

/// Every record of command `i`'s `--json` document (or JSON Lines), read
/// strictly as records: a line that is not one fails the test.
pub(crate) fn all_records(run: &VmRun, i: usize) -> Vec<Record> {
    let origin = format!("[{}] `{}`", run.topology, run.commands[i].command);
    read_typed_runs(&origin, run.stdout_ok(i)).1
}

/// The records of command `i`'s `--json` document, checking there is at
/// least one and that each is from `benchmark`.
pub(crate) fn records(run: &VmRun, i: usize, benchmark: &str) -> Vec<Record> {
    let c = &run.commands[i];
    // characterize ends with its findings (`summary` records): not the
    // measurements asked for.
    let records: Vec<Record> = all_records(run, i)
        .into_iter()
        .filter(|r| (r.benchmark == "summary") == (benchmark == "summary"))
        .collect();
    assert!(
        !records.is_empty(),
        "[{}] `{}`: no records\n{}",
        run.topology,
        c.command,
        run.transcript()
    );
    for r in &records {
        assert_eq!(
            r.benchmark, benchmark,
            "[{}] `{}`: record {r:?}",
            run.topology, c.command
        );
    }
    records
}

/// The records of command `i` with metric `metric` (any benchmark).
pub(crate) fn with_metric(run: &VmRun, i: usize, metric: &str) -> Vec<Record> {
    all_records(run, i)
        .into_iter()
        .filter(|r| r.metric == metric)
        .collect()
}

/// Checks `placement.requested`: the memory label and, if given, the CPUs.
pub(crate) fn expect_requested(
    run: &VmRun,
    i: usize,
    r: &Record,
    memory: &str,
    cpus: Option<&[u32]>,
) {
    let requested = requested(r);
    assert_eq!(
        requested.memory_label(),
        Some(memory),
        "[{}] `{}`: placement.requested {requested:?}\n{}",
        run.topology,
        run.commands[i].command,
        run.transcript()
    );
    if let Some(cpus) = cpus {
        let want: Vec<Option<u32>> = cpus.iter().copied().map(Some).collect();
        assert_eq!(
            requested.cpus.as_ref(),
            Some(&want),
            "[{}] `{}`: placement.requested {requested:?}",
            run.topology,
            run.commands[i].command
        );
    }
}

/// The CPUs `r`'s placement asked for (`placement.requested.cpus`), each
/// one given (a `null` fails the test).
pub(crate) fn requested_cpus(r: &Record) -> Vec<u32> {
    requested(r)
        .cpus
        .unwrap_or_else(|| panic!("no requested cpus: {r:?}"))
        .into_iter()
        .map(|cpu| cpu.unwrap_or_else(|| panic!("a requested cpu is null: {r:?}")))
        .collect()
}

/// The huge-page check of `r`'s placement, which a
/// record with `--hugepages` must carry.
pub(crate) fn huge_page_check(run: &VmRun, r: &Record) -> HugePageCheck {
    r.placement
        .verified
        .as_ref()
        .and_then(|check| check.huge_pages.clone())
        .unwrap_or_else(|| panic!("no huge_pages check: {r:?}\n{}", run.transcript()))
}

/// The state of `r`'s placement status, `verified` or `misplaced`, or the
/// message to fail with: nothing checked, or `unverifiable` (the check saw
/// no page, which is no misplacement: the test cannot judge the
/// placement), with the record's reason.
pub(crate) fn placement_state(r: &Record) -> Result<String, String> {
    match r.placement.status() {
        Some(PlacementStatus::Unverifiable(reason)) => Err(format!(
            "placement could not be verified (this is not a misplacement): {reason}"
        )),
        Some(status) => Ok(status.state().to_string()),
        None => Err("placement was not checked (no placement.verified)".to_string()),
    }
}

/// `placement.verified` and its status, failing with a message that tells
/// a placement that could not be verified from one never checked.
pub(crate) fn verified(run: &VmRun, i: usize, r: &Record) -> Verified {
    let fail = |what: &str| -> ! {
        panic!(
            "[{}] `{}`: {what}: placement {:?}\n{}",
            run.topology,
            run.commands[i].command,
            r.placement,
            run.transcript()
        )
    };
    let state = placement_state(r).unwrap_or_else(|message| fail(&message));
    let check = r
        .placement
        .verified
        .as_ref()
        .unwrap_or_else(|| fail("no placement.verified"));
    Verified {
        pages: check.pages,
        pages_per_node: check.pages_per_node.clone(),
        fraction: check.fraction_as_requested,
        achieved: check.achieved,
        state,
    }
}

/// Checks that the pages sit only on the listed nodes, each holding a share
/// of all pages within `lo..=hi`, and that every page was found.
pub(crate) fn expect_split(run: &VmRun, i: usize, v: &Verified, shares: &[(u32, f64, f64)]) {
    let c = &run.commands[i].command;
    let on_nodes: u64 = v.pages_per_node.values().sum();
    let mut errors = Vec::new();
    if v.pages == 0 || on_nodes != v.pages {
        errors.push(format!(
            "{on_nodes} pages found on nodes, of {} pages",
            v.pages
        ));
    }
    for (node, &count) in &v.pages_per_node {
        if count > 0 && !shares.iter().any(|s| s.0 == *node) {
            errors.push(format!("{count} pages on node {node}, want none"));
        }
    }
    for &(node, lo, hi) in shares {
        let count = v.pages_per_node.get(&node).copied().unwrap_or(0);
        let share = count as f64 / v.pages.max(1) as f64;
        if !(lo..=hi).contains(&share) {
            errors.push(format!(
                "node {node} holds {count} of {} pages ({:.1} %), want {:.0}..={:.0} %",
                v.pages,
                share * 100.0,
                lo * 100.0,
                hi * 100.0
            ));
        }
    }
    assert!(
        errors.is_empty(),
        "[{}] `{c}`: placement.verified pages_per_node {:?}:\n  - {}\n{}",
        run.topology,
        v.pages_per_node,
        errors.join("\n  - "),
        run.transcript()
    );
}

/// Checks `fraction_as_requested` (to 1e-9) and that `achieved` is true.
pub(crate) fn expect_fraction(run: &VmRun, i: usize, v: &Verified, want: f64) {
    assert!(
        (v.fraction - want).abs() < 1e-9 && v.achieved,
        "[{}] `{}`: fraction_as_requested {} achieved {}, want {want} and true\n{}",
        run.topology,
        run.commands[i].command,
        v.fraction,
        v.achieved,
        run.transcript()
    );
}

/// Checks that command `i` was refused as bad input: exit status 2, nothing
/// on stdout, one line on stderr containing every one of `needles`.
pub(crate) fn expect_bad_input(run: &VmRun, i: usize, needles: &[&str]) {
    let c = &run.commands[i];
    let lines: Vec<&str> = c.stderr.lines().collect();
    assert!(
        c.status == 2
            && c.stdout.trim().is_empty()
            && lines.len() == 1
            && needles.iter().all(|n| lines[0].contains(n)),
        "[{}] `{}`: want exit 2 and one stderr line mentioning {needles:?}; got status {}, stdout {:?}, stderr {:?}",
        run.topology,
        c.command,
        c.status,
        c.stdout,
        c.stderr
    );
}
