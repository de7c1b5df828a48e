//! The end of the main job's screen in the two-socket and four-node
//! guests: `characterize` as `scripts/run` starts it (default settings but
//! a shorter budget: TCG runs memory ten times slower than a real machine),
//! in a 100-column terminal. Prints the last 40 lines for a person to read
//! (the closing notes paste them) and checks they hold the findings and fit.
//! Ignored: under TCG on a 2-core host a guest's characterize takes 15
//! minutes or more (its estimate does not foresee emulated vCPUs sharing
//! host cores); run them with `--ignored` and NUMABENCH_VM_TIMEOUT_SECS=3600 on an idle host
//! (the guest gives characterize 55 minutes).

use super::{harness, numabench, topologies};
use crate::harness::VmTopology;

const SCREEN_LINES: usize = 40;

fn last_screen(topo: &VmTopology) {
    let commands = [
        "COLUMNS=100 timeout 3300 numabench characterize --budget 3m --jsonl /tmp/c.jsonl 2>&1",
        // Each step's last record, for where the time went.
        "grep -o '\"benchmark\":\"[a-z-]*\"' /tmp/c.jsonl | uniq -c",
    ];
    let run = harness::run_in_vm(topo, &[numabench()], &commands).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "[{}] records by benchmark:\n{}",
        topo.name, run.commands[1].stdout
    );
    let stdout = run.stdout_ok(0);
    // The whole closing block too (the run's cuts, caveats, findings,
    // advice), for a person to read beyond the last screen.
    if let Some(start) = crate::shared::closing_block_start(stdout) {
        eprintln!(
            "[{}] the closing block ({} lines):\n{}",
            topo.name,
            stdout[start..].lines().count(),
            &stdout[start..]
        );
    }
    let lines: Vec<&str> = stdout.lines().collect();
    let screen = &lines[lines.len().saturating_sub(SCREEN_LINES)..];
    eprintln!(
        "[{}] the last {SCREEN_LINES} lines ({:.0} s in the guest):\n{}",
        topo.name,
        run.duration.as_secs_f64(),
        screen.join("\n")
    );
    let text = screen.join("\n");
    assert!(text.contains("What this machine's NUMA costs:"), "{text}");
    // The answer ends the output: nothing but the advice (when there is
    // any) and characterize's time line come after the findings.
    let (_, after) = text.split_once("What this machine's NUMA costs:").unwrap();
    assert!(
        !after.contains("This run:") && !after.contains("Caveats"),
        "{text}"
    );
    for line in screen {
        assert!(line.chars().count() <= 100, "over 100 columns: {line}");
    }
}

#[test]
#[ignore = "15 minutes or more under TCG; prints the screens the closing note shows"]
fn two_sockets_main_job_screen() {
    last_screen(&topologies::two_sockets());
}

#[test]
#[ignore = "15 minutes or more under TCG; prints the screens the closing note shows"]
fn four_nodes_main_job_screen() {
    last_screen(&topologies::four_nodes_cpuless_hmat());
}
