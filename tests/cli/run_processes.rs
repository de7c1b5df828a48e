//! Issue 34, items 13 to 15: the processes of `numabench run`.
//!
//! - 13: what a run leaves running after its program ended (a background
//!   `sleep`, a `setsid` daemon) is counted in each run record
//!   (`leftover_processes`), warned about once, ended with
//!   `--kill-leftovers`, and ended when numabench is interrupted.
//! - 14: a program that stops (SIGSTOP, or SIGTTOU for touching a terminal
//!   it does not hold) is reported, not waited for forever; with
//!   `--show-output` in a real terminal (tmux) the program holds the
//!   terminal for its run, so `stty` works.
//! - 15: started with SIGCHLD ignored (as some supervisors start jobs),
//!   `run` still waits for its programs.

use super::run::run_args;
use super::run::run_params;
use super::terminal_tables::Tmux;
use super::typed_jsonl;
use numabench_schema::Record;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Whether `pid` is a running process (not gone, not a zombie).
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat[stat.rfind(')').unwrap() + 2..].chars().next();
        state != Some('Z')
    })
}

/// The pids a test's program wrote to `path`, one a line.
fn pids_in(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| line.trim().parse().unwrap())
        .collect()
}

/// Kills the processes a test left on purpose (by pid: they are no
/// children of the test).
fn clean_up(pids: &[i32]) {
    for pid in pids {
        if running(*pid) {
            // SAFETY: signals a process this test's program started.
            unsafe { libc::kill(*pid, libc::SIGKILL) };
        }
    }
}

/// The run records of a JSON Lines file.
fn run_records(jsonl: &Path) -> Vec<Record> {
    typed_jsonl(jsonl)
        .1
        .into_iter()
        .filter(|record| record.metric == "run_wall_time")
        .collect()
}

/// Runs `numabench` with `args` and `PIDS` set to `pids`, waiting at most
/// `patience` (a hang detector, far above what the run needs): the output,
/// or a failure naming the hang after numabench was killed.
fn numabench_within(args: &[&str], pids: &Path, patience: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_numabench"))
        .args(args)
        .env("PIDS", pids)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > patience {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "numabench {args:?} still waiting after {patience:?}; stderr:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// What `numabench run` of `repeat` runs of `sh -c script` under `as-is`
/// with `flags` gave: its output (it must succeed) and stderr, its run
/// records, the pids the script wrote to `$PIDS`, and which of those still
/// ran after numabench exited (all are killed before this returns).
struct LeftRun {
    stderr: String,
    records: Vec<Record>,
    left: Vec<i32>,
    still_running: Vec<i32>,
}

fn run_leaving(repeat: &str, flags: &[&str], script: &str) -> LeftRun {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("runs.jsonl");
    let pids = dir.path().join("pids");
    let study = ["--policy", "as-is", "--jsonl", jsonl.to_str().unwrap()];
    let program = ["--", "sh", "-c", script];
    let args = run_args(repeat, &[&study[..], flags, &program[..]].concat());
    let output = numabench_within(&args, &pids, Duration::from_secs(120));
    let left = pids_in(&pids);
    let still_running: Vec<i32> = left.iter().copied().filter(|pid| running(*pid)).collect();
    clean_up(&left);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    LeftRun {
        stderr,
        records: run_records(&jsonl),
        left,
        still_running,
    }
}

/// `sh -c 'sleep 41 &'` leaves its sleep running after every run. Each run
/// record counts it (`leftover_processes: 1`), one warning line says so,
/// and without `--kill-leftovers` the sleeps are left alone. Before the
/// fix: no `leftover_processes`, no warning (three sleeps ran on unseen).
#[test]
fn a_background_process_left_by_each_run_is_counted_and_warned_about_once() {
    let run = run_leaving("3", &[], "sleep 41 & echo $! >> \"$PIDS\"");
    let stderr = &run.stderr;
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("numabench: warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("left 1 process running") && warnings[0].contains("(sleep)"),
        "{stderr}"
    );
    assert!(warnings[0].contains("--kill-leftovers"), "{stderr}");
    assert_eq!(run.records.len(), 3);
    for record in &run.records {
        let left = run_params(record)
            .leftovers
            .unwrap_or_else(|| panic!("no leftovers: {record:?}"));
        assert_eq!(left.leftover_processes, 1, "{record:?}");
        assert_eq!(left.leftover_commands, Some(vec!["sleep".to_string()]));
        assert_eq!(left.leftovers_killed, Some(false));
    }
    assert_eq!(run.left.len(), 3);
    assert_eq!(
        run.still_running, run.left,
        "without --kill-leftovers they run on"
    );
}

/// With `--kill-leftovers`, what each run leaves is ended after it: the
/// background sleep in the run's process group and a `setsid` daemon that
/// left it (found because numabench is a child subreaper). Before the fix
/// the option did not exist (exit 2) and both ran on.
#[test]
fn kill_leftovers_ends_background_processes_and_setsid_daemons() {
    let run = run_leaving(
        "2",
        &["--kill-leftovers"],
        "sleep 41 & echo $! >> \"$PIDS\"; setsid sleep 42 & echo $! >> \"$PIDS\"",
    );
    assert_eq!(run.left.len(), 4, "two runs, two processes each");
    assert_eq!(run.still_running, Vec::<i32>::new(), "leftovers survived");
    assert_eq!(run.records.len(), 2);
    for record in &run.records {
        let left = run_params(record)
            .leftovers
            .unwrap_or_else(|| panic!("no leftovers: {record:?}"));
        assert_eq!(left.leftover_processes, 2, "{record:?}");
        assert_eq!(left.leftovers_killed, Some(true), "{record:?}");
    }
    assert!(
        run.stderr.contains("killed (--kill-leftovers)"),
        "{}",
        run.stderr
    );
}

/// A `setsid` daemon a run started is ended when numabench is interrupted
/// (SIGINT to numabench alone, as in `signals.rs`), with the run's own
/// process group. Before the fix only the group was killed, and the
/// daemon, in a session of its own, ran on.
#[test]
fn an_interrupted_run_leaves_no_setsid_daemon_behind() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let child = Command::new(env!("CARGO_BIN_EXE_numabench"))
        .args(run_args("1", &["--policy", "as-is", "--", "sh", "-c"]))
        .arg("setsid sleep 43 & echo $! > \"$PIDS\"; sleep 30")
        .env("PIDS", &pids)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let daemon = loop {
        if let Some(pid) = pids_in(&pids).first() {
            break *pid;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no daemon");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Once it has left the run's group (setsid runs before sleep starts).
    while std::fs::read_to_string(format!("/proc/{daemon}/comm")).is_ok_and(|c| c != "sleep\n") {
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: signals our own child, numabench, alone.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    let daemon_ran_on = running(daemon);
    clean_up(&[daemon]);
    assert_eq!(
        output.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!daemon_ran_on, "the setsid daemon outlived numabench");
}

/// A program that stops itself (SIGSTOP) can never end: numabench reports
/// it, naming the signal, kills it and stops the study (exit 1); with
/// `--ignore-failure` the run is recorded as failed with `stop_signal`.
/// Before the fix numabench waited in wait4 forever.
#[test]
fn a_stopped_program_is_reported_not_waited_for_forever() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("runs.jsonl");
    let pids = dir.path().join("pids");
    let stopping = ["--", "sh", "-c", "kill -STOP $$"];
    let output = numabench_within(
        &run_args("2", &[&["--policy", "as-is"], &stopping[..]].concat()),
        &pids,
        Duration::from_secs(60),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("stopped by SIGSTOP"), "{stderr}");

    let output = numabench_within(
        &run_args(
            "2",
            &[
                &[
                    "--policy",
                    "as-is",
                    "--ignore-failure",
                    "--jsonl",
                    jsonl.to_str().unwrap(),
                ],
                &stopping[..],
            ]
            .concat(),
        ),
        &pids,
        Duration::from_secs(60),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let records = run_records(&jsonl);
    assert_eq!(records.len(), 2, "{stderr}");
    for record in &records {
        let params = run_params(record);
        assert_eq!(params.stop_signal, Some(libc::SIGSTOP), "{record:?}");
        assert_eq!(params.signal, Some(libc::SIGKILL), "{record:?}");
    }
}

/// In a real terminal (tmux), `run --show-output` over a program that
/// changes the terminal's settings (`stty`, as an editor or a pager does)
/// runs to the end, and the shell gets its terminal back. Before the fix
/// the program, in a background process group, was stopped by SIGTTOU and
/// numabench waited for it forever.
#[test]
fn show_output_lets_the_program_use_the_terminal() {
    let tmux = Tmux::start(100, 40);
    let binary = env!("CARGO_BIN_EXE_numabench");
    tmux.send("PS1='$ '");
    // The markers are split in the typed line, so only the echo shows them whole.
    tmux.send(&format!(
        "{binary} run --show-output --repeat 2 --warmup 0 --policy as-is -- \
         sh -c 'stty -echo < /dev/tty && stty echo < /dev/tty && echo stty\"\"-done'; \
         echo \"run\"\"-exit=$?\""
    ));
    let pane = tmux.wait_for("run-exit=", Duration::from_secs(60));
    assert!(pane.contains("run-exit=0"), "{pane}");
    assert_eq!(pane.matches("stty-done").count(), 2, "{pane}");
    // The shell holds its terminal again: what it runs next can use it too.
    tmux.send("stty -echo && stty echo && echo \"shell\"\"-ok\"");
    tmux.wait_for("shell-ok", Duration::from_secs(60));
}

/// Started with SIGCHLD ignored (perl sets it, and an ignored disposition
/// survives exec), `run -- true` succeeds. Before the fix the kernel reaped
/// each program at once and every run ended "No child processes".
#[test]
fn run_works_when_sigchld_is_inherited_as_ignored() {
    let output = Command::new("perl")
        .args(["-e", "$SIG{CHLD} = 'IGNORE'; exec @ARGV or die"])
        .arg(env!("CARGO_BIN_EXE_numabench"))
        .args(run_args("2", &["--policy", "as-is", "--", "true"]))
        .output()
        .expect("perl is installed");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
