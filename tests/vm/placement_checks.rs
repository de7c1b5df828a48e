//! Reading a command's records and checking their placements: what was
//! requested, what the kernel's page locations verified, bad input refused.

use super::harness::VmRun;
use super::topology_check::u32s;
use serde_json::Value;
use std::collections::BTreeMap;

/// `placement.verified` of a record.
pub(crate) struct Verified {
    pub(crate) pages: u64,
    pub(crate) pages_per_node: BTreeMap<u32, u64>,
    pub(crate) fraction: f64,
    pub(crate) achieved: bool,
    /// `placement.status.state`: `verified` or `misplaced` (an
    /// `unverifiable` check fails in [`verified`], with its reason).
    pub(crate) state: String,
}

/// The records of command `i`'s `--json` document, checking there is at
/// least one and that each is from `benchmark`.
pub(crate) fn records(run: &VmRun, i: usize, benchmark: &str) -> Vec<Value> {
    let c = &run.commands[i];
    let text = run.stdout_ok(i);
    let doc: Value = serde_json::from_str(text).unwrap_or_else(|e| {
        panic!(
            "[{}] `{}`: output is not JSON ({e})\n{}",
            run.topology,
            c.command,
            run.transcript()
        )
    });
    // characterize ends with its findings (`summary` records): not the
    // measurements asked for.
    let records: Vec<Value> = doc["records"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|r| (r["benchmark"] == "summary") == (benchmark == "summary"))
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
            r["benchmark"], benchmark,
            "[{}] `{}`: record {r}",
            run.topology, c.command
        );
    }
    records
}

/// Checks `placement.requested`: the memory label and, if given, the CPUs.
pub(crate) fn expect_requested(
    run: &VmRun,
    i: usize,
    r: &Value,
    memory: &str,
    cpus: Option<&[u32]>,
) {
    let req = &r["placement"]["requested"];
    assert_eq!(
        req["memory"],
        memory,
        "[{}] `{}`: placement.requested {req}\n{}",
        run.topology,
        run.commands[i].command,
        run.transcript()
    );
    if let Some(cpus) = cpus {
        assert_eq!(
            req["cpus"],
            Value::from(u32s(cpus)),
            "[{}] `{}`: placement.requested {req}",
            run.topology,
            run.commands[i].command
        );
    }
}

/// The state of `r`'s `placement.status`, `verified` or `misplaced`, or
/// the message to fail with: a status missing or malformed, or
/// `unverifiable` (the check saw no page, which is no misplacement: the
/// test cannot judge the placement), with the record's reason.
pub(crate) fn placement_state(r: &Value) -> Result<String, String> {
    let status = &r["placement"]["status"];
    match status["state"].as_str() {
        Some("unverifiable") => Err(format!(
            "placement could not be verified (this is not a misplacement): {}",
            status["reason"].as_str().unwrap_or("no reason given")
        )),
        Some(state @ ("verified" | "misplaced")) => Ok(state.to_string()),
        _ => Err(format!("placement.status missing or malformed: {status}")),
    }
}

/// Parses `placement.verified` and `placement.status`, failing with a
/// message that tells a placement that could not be verified from a
/// missing or malformed check.
pub(crate) fn verified(run: &VmRun, i: usize, r: &Value) -> Verified {
    let v = &r["placement"]["verified"];
    let fail = |what: &str| -> ! {
        panic!(
            "[{}] `{}`: {what}: placement {}\n{}",
            run.topology,
            run.commands[i].command,
            r["placement"],
            run.transcript()
        )
    };
    let state = placement_state(r).unwrap_or_else(|message| fail(&message));
    let pages_per_node = v["pages_per_node"]
        .as_object()
        .unwrap_or_else(|| fail("placement.verified has no pages_per_node object"))
        .iter()
        .map(|(k, n)| match (k.parse::<u32>(), n.as_u64()) {
            (Ok(k), Some(n)) => (k, n),
            _ => fail("placement.verified has a bad pages_per_node entry"),
        })
        .collect();
    Verified {
        pages: v["pages"]
            .as_u64()
            .unwrap_or_else(|| fail("placement.verified has no integer pages")),
        pages_per_node,
        fraction: v["fraction_as_requested"]
            .as_f64()
            .unwrap_or_else(|| fail("placement.verified has no fraction_as_requested")),
        achieved: v["achieved"]
            .as_bool()
            .unwrap_or_else(|| fail("placement.verified has no boolean achieved")),
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
