//! Issue 21, items B and 24: `run` under SIGINT/SIGTERM sent to numabench
//! alone, and its temporary files.
//!
//! - The signal is forwarded to the program's process group; numabench
//!   waits for it (a grace period, then SIGKILL), records the run as
//!   interrupted, keeps the records measured before, and exits 130 or 143.
//!   No process of the run survives (checked by process group in /proc).
//! - Every temporary file lives in a fresh private folder (mode 0700) named
//!   by `NUMABENCH_TMPDIR`, removed after a run, an error and a signal; a
//!   symbolic link planted at the old predictable names is never followed.

use super::run::run_params;
use super::run::{run_args, shim};
use super::{typed_jsonl, with_metric};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Live processes (zombies, dead and waiting for their reaper, left out)
/// whose process group is `group` (from /proc/PID/stat), after giving
/// the system half a second to reap the dead.
fn members_of_group(group: i32) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let members = live_members_of_group(group);
        if members.is_empty() || start.elapsed() > Duration::from_millis(500) {
            return members;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn live_members_of_group(group: i32) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // Fields after the command's closing parenthesis: state ppid pgrp ...
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields[2].parse::<i32>() == Ok(group) && fields[0] != "Z" {
            members.push(pid);
        }
    }
    members
}

fn wait_for_file(path: &Path) -> String {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            if text.ends_with('\n') {
                return text.trim().to_string();
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{} never written",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `numabench run --repeat 3 --policy pin-compact` over a program
/// whose first run ends at once and whose second sleeps 30 s (`ignore_term`:
/// with SIGTERM ignored, so only the SIGKILL after the grace period ends
/// it), sends `signal` to numabench alone while the second runs, and checks
/// what is left.
fn stop_run_with(signal: libc::c_int, ignore_term: bool) {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("runs.jsonl");
    let marker = dir.path().join("first-done");
    let pid_file = dir.path().join("program-pid");
    let private = dir.path().join("private-dir");
    let trap = if ignore_term {
        "trap '' TERM INT; "
    } else {
        ""
    };
    let script = format!(
        "{trap}if [ -e \"$MARKER\" ]; then echo $$ > \"$PIDS\"; sleep 30; exit 0; fi; \
         echo \"$NUMABENCH_TMPDIR\" > \"$PRIVATE\"; touch \"$MARKER\""
    );
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_numabench"))
        .args(run_args("3", &["--policy", "pin-compact", "--jsonl"]))
        .arg(&jsonl)
        .args(["--", "sh", "-c", &script])
        .env("MARKER", &marker)
        .env("PIDS", &pid_file)
        .env("PRIVATE", &private)
        .env("NUMABENCH_PIN_LIB", shim())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let program: i32 = wait_for_file(&pid_file).parse().unwrap();
    let private = wait_for_file(&private);
    let private_existed = Path::new(&private).is_dir();
    // SAFETY: signals our own child, numabench, alone (not its process group).
    unsafe { libc::kill(child.id() as i32, signal) };
    let output = child.wait_with_output().unwrap();
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(128 + signal), "{stderr}");
    assert!(
        elapsed < Duration::from_secs(20),
        "took {elapsed:?}: the program ran on"
    );
    // The program led its own group: nothing of it is left.
    assert_eq!(
        members_of_group(program),
        Vec::<i32>::new(),
        "survivors of the run"
    );
    assert!(
        !Path::new(&format!("/proc/{program}")).exists(),
        "the program survived"
    );
    let (_, records) = typed_jsonl(&jsonl);
    let runs = with_metric(&records, "run_wall_time");
    assert_eq!(runs.len(), 2, "the finished run and the interrupted one");
    assert_eq!(run_params(runs[0]).interrupted, Some(false));
    assert_eq!(run_params(runs[0]).exit_code, Some(0));
    assert_eq!(run_params(runs[1]).interrupted, Some(true));
    assert!(private_existed, "the private folder exists during the run");
    assert!(
        !Path::new(&private).exists(),
        "the private folder was left behind"
    );
}

/// Before the fix: SIGTERM killed numabench (143) and `sleep 30` ran on as
/// an orphan; no record said "interrupted".
#[test]
fn sigterm_to_numabench_stops_the_program_and_exits_143() {
    stop_run_with(libc::SIGTERM, false);
}

/// Before the fix: SIGINT to numabench alone was held until the program
/// ended (30 s), then the run was recorded as complete and numabench exited 0.
#[test]
fn sigint_to_numabench_stops_the_program_and_exits_130() {
    stop_run_with(libc::SIGINT, false);
}

/// A program that ignores the forwarded signal is killed after the grace
/// period (5 s), and none of its processes survives.
#[test]
fn a_program_that_ignores_the_signal_is_killed_after_the_grace_period() {
    stop_run_with(libc::SIGTERM, true);
}

/// The files numabench shares with what it runs are in a fresh folder of
/// mode 0700 owned by the user, named by NUMABENCH_TMPDIR, removed after
/// the run and after a failed one (exit 1).
#[test]
fn temporary_files_live_in_a_fresh_private_folder_removed_after_the_run() {
    for (exit, status) in [(0, 0), (3, 1)] {
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen");
        let output = Command::new(env!("CARGO_BIN_EXE_numabench"))
            .args(run_args("1", &["--policy", "pin-compact", "--"]))
            .args([
                "sh",
                "-c",
                &format!(
                    "stat -c '%a %u %F' \"$NUMABENCH_TMPDIR\" > \"$SEEN\"; \
                     dirname \"$NUMABENCH_PIN_COUNTER\" >> \"$SEEN\"; \
                     dirname \"$NUMABENCH_PIN_WARNINGS\" >> \"$SEEN\"; \
                     echo \"$NUMABENCH_TMPDIR\" >> \"$SEEN\"; exit {exit}"
                ),
            ])
            .env("SEEN", &seen)
            .env("NUMABENCH_PIN_LIB", shim())
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(status),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = std::fs::read_to_string(&seen).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // SAFETY: geteuid has no preconditions.
        let uid = unsafe { libc::geteuid() };
        assert_eq!(lines[0], format!("700 {uid} directory"), "{text}");
        assert_eq!(lines[1], lines[3], "the counter is inside NUMABENCH_TMPDIR");
        assert_eq!(
            lines[2], lines[3],
            "the warnings are inside NUMABENCH_TMPDIR"
        );
        assert!(!Path::new(lines[3]).exists(), "{} left behind", lines[3]);
    }
}

/// A symbolic link planted at every name numabench used to write at
/// (`/dev/shm/numabench-pin-<pid>-<n>.counter` and `.warnings`,
/// `$TMPDIR/numabench-mpi-monitor-<pid>.jsonl`) pointing at a victim file:
/// `numabench run --policy pin-compact` as root leaves the victim intact.
/// Before the fix the counter link was followed and the victim truncated
/// and overwritten with 64 KiB of counter data. The links are planted by
/// the shell that then execs numabench, so `$$` is numabench's process id.
#[test]
fn links_planted_at_the_old_predictable_names_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious\n").unwrap();
    let shm = if Path::new("/dev/shm").is_dir() {
        "/dev/shm".to_string()
    } else {
        std::env::temp_dir().display().to_string()
    };
    let tmp = std::env::temp_dir().display().to_string();
    let plant = format!(
        "for n in 0 1 2; do ln -s \"$VICTIM\" {shm}/numabench-pin-$$-$n.counter; \
         ln -s \"$VICTIM\" {shm}/numabench-pin-$$-$n.warnings; done; \
         ln -s \"$VICTIM\" {tmp}/numabench-mpi-monitor-$$.jsonl; \
         exec \"$NUMABENCH\" run --repeat 2 --warmup 0 --policy pin-compact -- \
         sh -c 'true & wait'"
    );
    let output = Command::new("sh")
        .args(["-c", &plant])
        .env("VICTIM", &victim)
        .env("NUMABENCH", env!("CARGO_BIN_EXE_numabench"))
        .env("NUMABENCH_PIN_LIB", shim())
        .output()
        .unwrap();
    // Remove the links (their names carry numabench's pid, the shell's).
    for entry in std::fs::read_dir(&shm)
        .unwrap()
        .chain(std::fs::read_dir(&tmp).unwrap())
        .flatten()
    {
        if std::fs::read_link(entry.path()).is_ok_and(|target| target == victim) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let victim_now = std::fs::read(&victim).unwrap();
    assert!(
        victim_now == b"precious\n",
        "the victim was written through a planted link: now {} bytes",
        victim_now.len()
    );
}
