//! Helpers that the separate test crates (cli, mpi, pin, vm) share: each
//! includes this file with `#[path = "../shared/mod.rs"] mod shared;` and
//! uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The built pinning shim of the build profile folder `profile`
/// (`target/debug`): `deps/`, where `cargo test` builds it (current), else
/// the copy `cargo build` puts beside the binary.
pub fn pin_shim(profile: &Path) -> PathBuf {
    [profile.join("deps"), profile.to_path_buf()]
        .into_iter()
        .map(|dir| dir.join("libnumabench_pin.so"))
        .find(|path| path.is_file())
        .unwrap_or_else(|| {
            panic!(
                "libnumabench_pin.so not in {}/deps or beside it: run `cargo build -p numabench-pin`",
                profile.display()
            )
        })
}

/// Where `characterize`'s closing block starts in its stdout: the first
/// of its headings (the run's cuts and time, the doctor's caveats, the
/// findings), `None` when none is there.
pub fn closing_block_start(stdout: &str) -> Option<usize> {
    [
        "\nThis run:\n",
        "\nCaveats",
        "\nWhat this machine's NUMA costs:\n",
    ]
    .iter()
    .filter_map(|heading| stdout.find(heading))
    .min()
}

/// The MPI monitor, `libnumabench_mpi.so`, built with its `mpi` feature by
/// cargo into the build profile folder `profile` (`target/debug`, beside
/// numabench, where `run --mpi-monitor` finds it); quick when it is up to
/// date. `manifest_dir` is the calling crate's `CARGO_MANIFEST_DIR`.
///
/// With `NUMABENCH_TEST_MONITOR_BUILT` set (scripts/test sets it: its
/// `cargo test --workspace --all-features --no-run` leaves the library, mpi
/// feature on, in the folder's `deps/`) that library is put beside
/// numabench as it is: building it again with the package's own features
/// alone would compile some 27 crates a second time (bindgen's run on
/// mpi.h among them) in the middle of a timed suite.
pub fn monitor_library(profile: &Path, manifest_dir: &str) -> PathBuf {
    let library = profile.join("libnumabench_mpi.so");
    if std::env::var_os("NUMABENCH_TEST_MONITOR_BUILT").is_some() {
        let built = profile.join("deps").join("libnumabench_mpi.so");
        assert!(
            built.is_file(),
            "NUMABENCH_TEST_MONITOR_BUILT is set but {} is not a file",
            built.display()
        );
        // Copied, then renamed over: the VM and the MPI tests may do this
        // at once, and a rank may have the old one mapped.
        let partial = profile.join(format!(".libnumabench_mpi.so.{}", std::process::id()));
        std::fs::copy(&built, &partial).unwrap_or_else(|error| {
            panic!("{} -> {}: {error}", built.display(), partial.display())
        });
        std::fs::rename(&partial, &library).unwrap_or_else(|error| {
            panic!("{} -> {}: {error}", partial.display(), library.display())
        });
        return library;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = std::process::Command::new(cargo);
    build
        .current_dir(manifest_dir)
        .args(["build", "-p", "numabench-mpi", "--features", "mpi"])
        .arg("--target-dir")
        .arg(
            profile
                .parent()
                .expect("a profile folder inside the target folder"),
        );
    if profile.file_name().is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "building libnumabench_mpi.so failed");
    assert!(library.is_file(), "{} not built", library.display());
    library
}
