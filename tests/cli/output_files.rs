//! Results files never clobber what their path is (issue 34 item 12): a
//! symbolic link is written through and kept, `/proc/self/fd/1` reaches
//! the file standard output was redirected to, a file in a directory the
//! user may not create files in is rewritten in place, and a rewritten
//! file keeps its mode.

use super::succeeded;
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

/// The header every CSV of numabench starts with.
const HEADER: &str = "benchmark,metric,value,unit,run.tool,";

/// A short latency run writing its CSV to `csv` (an argument as given).
fn latency_csv(csv: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_numabench"));
    command
        .args(["latency", "--size", "64K", "--repeat", "3", "--csv"])
        .arg(csv);
    command
}

/// Asserts `text` starts with a whole CSV of one latency measurement (its
/// ns and cycles records), up to its end or a blank line.
fn assert_latency_csv(text: &str) {
    let lines: Vec<&str> = text.lines().take_while(|line| !line.is_empty()).collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with(HEADER), "{text}");
    assert!(lines[1].starts_with("latency,latency,"), "{text}");
    assert!(lines[2].starts_with("latency,latency_cycles,"), "{text}");
}

#[test]
fn a_csv_through_a_symlink_reaches_its_target_and_the_link_stays() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("kept.csv");
    std::fs::write(
        &target,
        "an earlier file, longer than nothing\n".repeat(200),
    )
    .unwrap();
    let link = dir.path().join("link.csv");
    symlink(&target, &link).unwrap();
    succeeded(&mut latency_csv(&link));
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_latency_csv(&std::fs::read_to_string(&target).unwrap());
}

#[test]
fn a_csv_to_proc_self_fd_1_reaches_the_file_stdout_goes_to() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.csv");
    let stdout = std::fs::File::create(&results).unwrap();
    succeeded(latency_csv(Path::new("/proc/self/fd/1")).stdout(stdout));
    let text = std::fs::read_to_string(&results).unwrap();
    // The table printed before it, then the CSV, whole.
    let csv = &text[text.find(HEADER).unwrap_or_else(|| panic!("{text}"))..];
    assert_latency_csv(csv);
}

#[test]
fn json_lines_to_proc_self_fd_1_follow_what_stdout_holds() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.jsonl");
    std::fs::write(&results, "earlier\n").unwrap();
    // As `>> results.jsonl` gives it.
    let stdout = std::fs::OpenOptions::new()
        .append(true)
        .open(&results)
        .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_numabench"));
    command
        .args(["latency", "--size", "64K", "--repeat", "3", "--jsonl"])
        .arg("/proc/self/fd/1")
        .stdout(stdout);
    succeeded(&mut command);
    let text = std::fs::read_to_string(&results).unwrap();
    assert!(text.starts_with("earlier\n"), "{text}");
    let records = text
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|line| line["benchmark"] == "latency")
        .count();
    assert_eq!(records, 2, "{text}");
}

#[test]
fn a_rewritten_csv_keeps_its_mode() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    std::fs::write(&csv, "old\n").unwrap();
    std::fs::set_permissions(&csv, std::fs::Permissions::from_mode(0o640)).unwrap();
    succeeded(&mut latency_csv(&csv));
    assert_latency_csv(&std::fs::read_to_string(&csv).unwrap());
    let mode = std::fs::metadata(&csv).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o640, "the mode was {mode:o}");
}

/// A directory the user may not create files in, holding a file they may
/// write: the CSV is rewritten in place. As root (who may create files
/// anywhere), numabench runs as `nobody` (uid 65534) in a directory root
/// owns; as another user, the directory is made read-only.
#[test]
fn a_csv_in_a_directory_without_write_access_is_rewritten_in_place() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let csv = locked.join("r.csv");
    std::fs::write(&csv, "an earlier file\n".repeat(100)).unwrap();
    std::fs::set_permissions(&csv, std::fs::Permissions::from_mode(0o666)).unwrap();
    // /proc/self is owned by the process's effective user.
    let root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
    let mut command = latency_csv(&csv);
    if root {
        command.uid(65534).gid(65534).env("HOME", dir.path());
    } else {
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    succeeded(&mut command);
    assert_latency_csv(&std::fs::read_to_string(&csv).unwrap());
    let names: Vec<_> = std::fs::read_dir(&locked)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, ["r.csv"], "nothing else was made there");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
}
