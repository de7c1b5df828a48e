//! `numabench run --mpi-monitor` without MPI: a monitor library that
//! cannot be found is one line and exit status 2, before anything runs.

use super::{numabench, refusal};

#[test]
fn a_monitor_library_that_is_not_a_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let ran = dir.path().join("ran");
    let output = numabench()
        .args(["run", "--mpi-monitor", "--", "touch"])
        .arg(&ran)
        .env("NUMABENCH_MPI_LIB", "/nonexistent/libnumabench_mpi.so")
        .output()
        .unwrap();
    let stderr = refusal(&output);
    assert!(
        stderr.contains("'/nonexistent/libnumabench_mpi.so'"),
        "{stderr}"
    );
    assert!(!ran.exists(), "nothing runs");
}

#[test]
fn a_library_that_does_not_monitor_is_refused() {
    // What the default build makes of the crate: a library without the
    // interposer (here any file without it).
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("libnumabench_mpi.so");
    std::fs::write(&empty, b"\x7fELF not a monitor").unwrap();
    let output = numabench()
        .args(["run", "--mpi-monitor", "--", "true"])
        .env("NUMABENCH_MPI_LIB", &empty)
        .output()
        .unwrap();
    let stderr = refusal(&output);
    assert!(
        stderr.contains("is not a monitoring libnumabench_mpi.so")
            && stderr.contains("--features mpi"),
        "{stderr}"
    );
}

#[test]
fn a_missing_monitor_library_says_how_to_get_one() {
    // A numabench with no library beside it (nor in deps/ there).
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("numabench");
    super::copy_executable(
        std::path::Path::new(env!("CARGO_BIN_EXE_numabench")),
        &binary,
    );
    let output = std::process::Command::new(&binary)
        .args(["run", "--mpi-monitor", "--", "true"])
        .env_remove("NUMABENCH_MPI_LIB")
        .output()
        .unwrap();
    let stderr = refusal(&output);
    assert!(
        stderr.contains("libnumabench_mpi.so not found") && stderr.contains("NUMABENCH_MPI_LIB"),
        "{stderr}"
    );
}
