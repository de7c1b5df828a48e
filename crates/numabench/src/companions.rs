//! Where numabench finds its own shared libraries (`libnumabench_pin.so`,
//! `libnumabench_mpi.so`) when no environment variable names them: beside
//! the executable (`target/<profile>/`), in its `deps/` (where `cargo test`
//! builds them), and in the install layout's `lib/` next to `bin/`
//! (`PREFIX/bin/numabench` finds `PREFIX/lib/NAME`, or
//! `PREFIX/lib/numabench/NAME` as the Debian package has it), so an installed
//! prefix still works after it is moved, as environment modules need.

use std::path::{Path, PathBuf};

/// The places a library `name` is looked for, in order, for the
/// executable in directory `exe_dir`.
pub fn candidates(exe_dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut places = vec![exe_dir.join(name), exe_dir.join("deps").join(name)];
    if let Some(prefix) = exe_dir.parent() {
        places.push(prefix.join("lib").join(name));
        places.push(prefix.join("lib").join("numabench").join(name));
    }
    places
}

/// The first of [`candidates`] that is a file.
pub fn find(exe_dir: &Path, name: &str) -> Option<PathBuf> {
    candidates(exe_dir, name)
        .into_iter()
        .find(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beside_then_deps_then_the_prefix_lib() {
        let places = candidates(Path::new("/opt/nb/bin"), "libx.so");
        assert_eq!(
            places,
            [
                PathBuf::from("/opt/nb/bin/libx.so"),
                PathBuf::from("/opt/nb/bin/deps/libx.so"),
                PathBuf::from("/opt/nb/lib/libx.so"),
                PathBuf::from("/opt/nb/lib/numabench/libx.so"),
            ]
        );
    }

    #[test]
    fn a_moved_prefix_finds_its_lib() {
        let prefix = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(prefix.path().join("bin")).unwrap();
        std::fs::create_dir_all(prefix.path().join("lib")).unwrap();
        std::fs::write(prefix.path().join("lib/libx.so"), b"").unwrap();
        assert_eq!(
            find(&prefix.path().join("bin"), "libx.so"),
            Some(prefix.path().join("lib/libx.so"))
        );
        assert_eq!(find(&prefix.path().join("bin"), "liby.so"), None);
    }
}
