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
