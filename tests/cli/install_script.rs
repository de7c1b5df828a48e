//! `scripts/install`: the usual prefix layout, a prefix that still works
//! after it is moved (the binary finds its shim in ../lib), and
//! `--uninstall` removing exactly what was installed. Installs the binaries
//! this test run built (`--build-dir`), so no release build is needed.

use super::run::run_params;
use super::{succeeded, typed_stdout};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn build_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_numabench"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn install(arguments: &[&str]) -> std::process::Output {
    Command::new(repo().join("scripts/install"))
        .args(arguments)
        .output()
        .expect("scripts/install runs")
}

/// Runs `true` once under pin-compact with `binary` (`extra` options
/// added) and NUMABENCH_PIN_LIB unset, so that the binary finds the shim
/// itself; asserts the run succeeded.
fn run_pinned(binary: &Path, extra: &[&str]) -> std::process::Output {
    succeeded(
        Command::new(binary)
            .args(["run", "--policy", "pin-compact", "--repeat", "1"])
            .args(extra)
            .args(["--", "true"])
            .env_remove("NUMABENCH_PIN_LIB"),
    )
}

fn files_below(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    files.sort();
    files
}

#[test]
fn install_move_run_and_uninstall() {
    let root = tempfile::tempdir().unwrap();
    let first = root.path().join("first");
    let build = build_dir();
    let output = install(&[
        "--prefix",
        first.to_str().unwrap(),
        "--build-dir",
        build.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let installed = files_below(&first);
    for expected in [
        "bin/numabench",
        "lib/libnumabench_pin.so",
        "include/numabench_pin.h",
        "include/numabench_plugin.h",
        "share/man/man1/numabench.1",
        "share/man/man1/numabench-latency.1",
        "share/bash-completion/completions/numabench",
        "share/zsh/site-functions/_numabench",
        "share/fish/vendor_completions.d/numabench.fish",
        "share/doc/numabench/README.md",
        "share/doc/numabench/docs/results.md",
        "share/doc/numabench/examples/plugins/read_bandwidth.c",
        "share/numabench/install-manifest",
    ] {
        assert!(
            installed.iter().any(|file| file == expected),
            "{expected} missing: {installed:?}"
        );
    }

    // Moved, as an environment module's prefix may be: run still finds and
    // preloads the shim (a run through the shim carries pin_warnings).
    let moved = root.path().join("moved");
    std::fs::rename(&first, &moved).unwrap();
    let output = run_pinned(&moved.join("bin/numabench"), &["--json"]);
    let (_, records) = typed_stdout("installed run", &output.stdout);
    let record = &records[0];
    assert!(
        run_params(record).pin_warnings.is_some(),
        "not run through the shim: {record:?}"
    );

    // A file of someone else's in the prefix survives the uninstall; the rest goes.
    std::fs::write(moved.join("bin/mine"), b"not numabench's").unwrap();
    let output = install(&["--prefix", moved.to_str().unwrap(), "--uninstall"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(files_below(&moved), ["bin/mine"]);
    assert!(!moved.join("share").exists() && !moved.join("lib").exists());
}

#[test]
fn bad_arguments_are_exit_2_naming_them() {
    let output = install(&["--frobnicate"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("'--frobnicate'"));
    let empty = tempfile::tempdir().unwrap();
    let output = install(&["--prefix", empty.path().to_str().unwrap(), "--uninstall"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no manifest"));
}

/// The binary alone (as `cargo install` leaves it): a pin policy says the
/// shim is missing and which command installs it, and still runs.
#[test]
fn the_binary_alone_names_what_installs_the_shim() {
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("bin/numabench");
    std::fs::create_dir_all(alone.parent().unwrap()).unwrap();
    super::copy_executable(Path::new(env!("CARGO_BIN_EXE_numabench")), &alone);
    let output = run_pinned(&alone, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("libnumabench_pin.so not found") && stderr.contains("scripts/install"),
        "{stderr}"
    );
}

/// `sudo scripts/install` (no --build-dir) builds as the user who called
/// sudo, through `sudo -u USER`, never as root in their checkout. Run with
/// the stand-ins of tests/cli/install-stubs (root by `id -u`, a logging
/// sudo, a cargo that builds nothing). Before (#34 item 17): cargo ran
/// directly, as root.
#[test]
fn install_under_sudo_builds_as_the_invoking_user() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let mut search = vec![repo().join("tests/cli/install-stubs")];
    search.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let prefix = dir.path().join("prefix");
    // What it installs afterwards does not matter here (target/release may
    // or may not hold a build): into a temporary prefix either way.
    Command::new(repo().join("scripts/install"))
        .args(["--prefix", prefix.to_str().unwrap()])
        .env("PATH", std::env::join_paths(search).unwrap())
        .env("STUB_LOG", &log)
        .env("SUDO_USER", "nobody")
        .output()
        .expect("scripts/install runs");
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    let builds: Vec<&str> = log
        .lines()
        .filter(|line| line.starts_with("cargo build"))
        .collect();
    assert!(!builds.is_empty(), "no build: {log}");
    assert!(
        builds.iter().all(|build| build.ends_with("via sudo: 1)")),
        "a build ran as root: {log}"
    );
    assert!(
        log.lines()
            .any(|line| line.starts_with("sudo -u nobody -H -- ") && line.contains(" cargo build ")),
        "{log}"
    );
}

/// A reinstall merges the manifest: after an --mpi install and a plain one,
/// --uninstall also removes the MPI monitor the first one installed. Before
/// (#34 item 17): the second install's manifest replaced the first's, and
/// lib/libnumabench_mpi.so stayed behind.
#[test]
fn a_reinstall_keeps_the_earlier_files_in_the_manifest() {
    let root = tempfile::tempdir().unwrap();
    // A build directory with an MPI monitor (any file does: install copies it).
    let build = root.path().join("build");
    std::fs::create_dir(&build).unwrap();
    super::copy_executable(
        Path::new(env!("CARGO_BIN_EXE_numabench")),
        &build.join("numabench"),
    );
    let shim = build_dir().join("libnumabench_pin.so");
    let shim = if shim.exists() {
        shim
    } else {
        build_dir().join("deps/libnumabench_pin.so")
    };
    std::fs::copy(&shim, build.join("libnumabench_pin.so")).unwrap();
    std::fs::copy(&shim, build.join("libnumabench_mpi.so")).unwrap();
    let prefix = root.path().join("prefix");
    let prefix = prefix.to_str().unwrap();
    let build = build.to_str().unwrap();
    for arguments in [
        &["--prefix", prefix, "--build-dir", build, "--mpi"][..],
        &["--prefix", prefix, "--build-dir", build][..],
        &["--prefix", prefix, "--uninstall"][..],
    ] {
        let output = install(arguments);
        assert!(
            output.status.success(),
            "{arguments:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert_eq!(files_below(Path::new(prefix)), Vec::<String>::new());
}
