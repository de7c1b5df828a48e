//! How `numabench run` starts each run. Structural: which timings a start
//! path gives cannot be tested reliably on a shared two-core machine (the
//! figures are in `scripts/bench-vs-hyperfine` and docs/benchmarks.md), so
//! this checks the path itself with strace. Before the fix every policy
//! forked the whole numabench process (a clone without CLONE_VM) and ran a
//! pre-exec step in the copy, inside the timed region; now every policy
//! starts the program with posix_spawn, a clone with CLONE_VM|CLONE_VFORK,
//! as hyperfine does, the policy inherited from the starting thread.

use std::process::Command;

/// The clone-family calls strace saw while numabench ran `true` under
/// `policy`, with the program's exec.
fn process_starts(policy: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("strace.log");
    let output = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "--signal=none",
            "-e",
            "trace=clone,clone3,fork,vfork",
            "-o",
        ])
        .arg(&log)
        .arg(env!("CARGO_BIN_EXE_numabench"))
        .args([
            "run", "--repeat", "2", "--warmup", "0", "--policy", policy, "--", "true",
        ])
        .output()
        .expect("strace is installed (scripts/setup --test)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|line| line.contains("clone") || line.contains("fork("))
        .filter(|line| !line.contains("CLONE_THREAD") && !line.contains("resumed>"))
        .map(str::to_string)
        .collect()
}

/// Every policy, as-is and the pinning and memory ones alike, starts its
/// runs with a vfork-style clone and never copies the numabench process.
#[test]
fn every_policy_starts_its_runs_with_posix_spawn_not_fork() {
    for policy in ["as-is", "pin-compact", "membind:0", "interleave:all"] {
        let starts = process_starts(policy);
        assert!(
            starts.len() >= 2,
            "{policy}: two runs, two process starts: {starts:#?}"
        );
        for start in &starts {
            assert!(
                start.contains("CLONE_VM") && start.contains("CLONE_VFORK"),
                "{policy}: a run started by copying numabench (fork), not posix_spawn: {start}"
            );
        }
    }
}
