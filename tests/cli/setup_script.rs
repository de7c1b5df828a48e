//! `scripts/setup`: the main job's set-up (`scripts/run`) installs only what
//! building and running the default build needs, and no package of that set
//! brings a system service; the test beds are `scripts/setup --test`'s
//! (called by `scripts/test`). Checked against dpkg's own file lists of the
//! packages, which `scripts/test` installed before running this.

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn listed(set: &str) -> Vec<String> {
    let output = Command::new(repo().join("scripts/setup"))
        .args(["--list", set])
        .output()
        .expect("scripts/setup runs");
    assert!(
        output.status.success(),
        "scripts/setup --list {set}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Every package of the run set is installed here (scripts/test ran the
/// set-up first) and ships no systemd unit and no init script: adding a
/// daemon's package (slurm-wlm, munge, ...) to the main job's list fails
/// this test. The run set is part of the test set.
#[test]
fn the_main_jobs_packages_bring_no_service() {
    let run = listed("run");
    let test = listed("test");
    assert!(!run.is_empty());
    for package in &run {
        assert!(
            test.contains(package),
            "{package} is in the run set but not the test set"
        );
        let files = Command::new("dpkg")
            .args(["-L", package])
            .output()
            .expect("dpkg runs");
        assert!(
            files.status.success(),
            "{package} of the run set is not installed ({}): run scripts/setup",
            String::from_utf8_lossy(&files.stderr).trim()
        );
        let services: Vec<String> = String::from_utf8_lossy(&files.stdout)
            .lines()
            .filter(|path| {
                path.starts_with("/etc/init.d/")
                    || path.contains("/systemd/system/")
                    || path.contains("/systemd/user/")
            })
            .map(str::to_string)
            .collect();
        assert!(
            services.is_empty(),
            "{package} of the run set ships services: {services:?}"
        );
    }
    assert!(
        test.len() > run.len(),
        "the test set adds the test beds: {test:?}"
    );
}

/// The main job asks for the run set, the test command for the test set.
#[test]
fn run_and_test_ask_for_their_own_sets() {
    let setup_line = |script: &str| {
        std::fs::read_to_string(repo().join(script))
            .unwrap()
            .lines()
            .find(|line| line.trim_start().starts_with("scripts/setup"))
            .map(|line| line.trim().to_string())
            .unwrap_or_else(|| panic!("{script} does not call scripts/setup"))
    };
    assert_eq!(setup_line("scripts/run"), "scripts/setup");
    assert_eq!(setup_line("scripts/test"), "scripts/setup --test");
}

#[test]
fn a_bad_set_name_is_exit_2_naming_it() {
    let output = Command::new(repo().join("scripts/setup"))
        .args(["--list", "everything"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("'everything'"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
