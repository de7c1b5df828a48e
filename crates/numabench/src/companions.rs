//! Where numabench finds its own shared libraries (`libnumabench_pin.so`,
//! `libnumabench_mpi.so`) when no environment variable names them: beside
//! the executable (`target/<profile>/`), in its `deps/` (where `cargo test`
//! builds them), and in the install layout's `lib/` next to `bin/`
//! (`PREFIX/bin/numabench` finds `PREFIX/lib/NAME`, or
//! `PREFIX/lib/numabench/NAME` as the Debian package has it), so an installed
//! prefix still works after it is moved, as environment modules need.
//! [`locate`] is the one rule every command follows: the environment
//! variable first, then those places.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The environment variable names something that is not a file.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{variable}: '{path}' is not a file (it should name {name})")]
pub struct NotAFile {
    pub variable: String,
    pub path: String,
    pub name: String,
}

// The variable is the user's to set.
crate::error::all_faulty!(Usage: NotAFile);

/// The library `name`: the file that `value` (the value of the
/// environment variable `variable`; empty counts as unset) names, which
/// must be a file, else the first of [`candidates`] beside the executable
/// `exe` that is one (`None`: not found).
pub fn locate(
    variable: &str,
    value: Option<OsString>,
    exe: Option<&Path>,
    name: &str,
) -> Result<Option<PathBuf>, NotAFile> {
    if let Some(path) = value.filter(|value| !value.is_empty()) {
        let path = PathBuf::from(path);
        return match path.is_file() {
            true => Ok(Some(path)),
            false => Err(NotAFile {
                variable: variable.to_string(),
                path: path.display().to_string(),
                name: name.to_string(),
            }),
        };
    }
    Ok(exe.and_then(Path::parent).and_then(|dir| find(dir, name)))
}

/// [`locate`] for this process: its environment and its executable.
pub fn locate_here(variable: &str, name: &str) -> Result<Option<PathBuf>, NotAFile> {
    let exe = std::env::current_exe().ok();
    locate(variable, std::env::var_os(variable), exe.as_deref(), name)
}

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

    /// The variable wins and must name a file; empty counts as unset;
    /// without it, the places beside the executable.
    #[test]
    fn the_variable_first_then_beside_the_executable() {
        let prefix = tempfile::tempdir().unwrap();
        let bin = prefix.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("libx.so"), b"").unwrap();
        let exe = bin.join("numabench");
        let elsewhere = prefix.path().join("other.so");
        std::fs::write(&elsewhere, b"").unwrap();
        let found =
            |value: Option<&Path>| locate("X_LIB", value.map(|v| v.into()), Some(&exe), "libx.so");
        assert_eq!(found(Some(&elsewhere)), Ok(Some(elsewhere.clone())));
        assert_eq!(found(None), Ok(Some(bin.join("libx.so"))));
        assert_eq!(found(Some(Path::new(""))), Ok(Some(bin.join("libx.so"))));
        let missing = prefix.path().join("missing.so");
        assert_eq!(
            found(Some(&missing)).unwrap_err().to_string(),
            format!(
                "X_LIB: '{}' is not a file (it should name libx.so)",
                missing.display()
            )
        );
        assert_eq!(locate("X_LIB", None, Some(&exe), "liby.so"), Ok(None));
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
