//! The one folder that holds every temporary file of a numabench process:
//! the pinning shim's counter and warnings, the MPI monitor's output and
//! its transition logs, the over-decomposition study's files.
//!
//! Files at predictable names in a world-writable folder (`/dev/shm`,
//! `/tmp`) let another local user plant a symbolic link there and make a
//! root run overwrite any file. So numabench creates a fresh folder of its
//! own with `mkdtemp` (mode 0700, owned by the user running numabench, a
//! random name), created on first use, and everything it launches finds
//! its path in [`ENV`] (`NUMABENCH_TMPDIR`). Files inside are created with
//! `O_EXCL | O_NOFOLLOW` ([`create_new`]). The binary calls [`remove`]
//! before it exits, also after an error or an interrupted run.

use std::fs::File;
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The variable that names the folder to everything numabench launches.
pub const ENV: &str = "NUMABENCH_TMPDIR";

static DIR: Mutex<Option<tempfile::TempDir>> = Mutex::new(None);

/// Where the folder is made: `/dev/shm` where it exists (memory, no disk
/// I/O during a run), else `$TMPDIR` or `/tmp`.
fn parent() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// The folder's path, creating it (mode 0700) on first use.
pub fn path() -> io::Result<PathBuf> {
    let mut dir = DIR.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(dir) = dir.as_ref() {
        return Ok(dir.path().to_path_buf());
    }
    // A random name, created exclusively with mode 0700 (tempfile's default
    // would be 0777 less the umask).
    let created = tempfile::Builder::new()
        .prefix("numabench-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(parent())?;
    let path = created.path().to_path_buf();
    *dir = Some(created);
    Ok(path)
}

/// The folder's path if it was created and not yet removed.
pub fn existing() -> Option<PathBuf> {
    let dir = DIR.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    dir.as_ref().map(|dir| dir.path().to_path_buf())
}

/// Creates `name` inside the folder: write-only, `O_EXCL` (fails if it
/// exists) and `O_NOFOLLOW`, mode 0600.
pub fn create_new(name: &str) -> io::Result<(PathBuf, File)> {
    let path = path()?.join(name);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)?;
    Ok((path, file))
}

/// A fresh sub-folder of the folder (mode 0700), for a study's files.
pub fn subdir(name: &str) -> io::Result<PathBuf> {
    let path = path()?.join(name);
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&path)
        .map(|()| path)
}

/// Removes the folder and everything in it (nothing if it was never
/// created). The next [`path`] makes a new one.
pub fn remove() {
    let taken = DIR
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take();
    drop(taken);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    /// The folder is private (0700, ours), files in it are created once
    /// only and never through a link, and remove() deletes it all.
    #[test]
    fn private_exclusive_and_removed() {
        let dir = path().unwrap();
        let meta = std::fs::symlink_metadata(&dir).unwrap();
        assert!(meta.is_dir());
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        // SAFETY: geteuid has no preconditions.
        assert_eq!(meta.uid(), unsafe { libc::geteuid() });
        let (file, _) = create_new("a").unwrap();
        assert!(file.starts_with(&dir));
        assert!(
            create_new("a").is_err(),
            "O_EXCL: an existing file is refused"
        );
        let victim = tempfile::NamedTempFile::new().unwrap();
        std::os::unix::fs::symlink(victim.path(), dir.join("b")).unwrap();
        assert!(create_new("b").is_err(), "a planted link is not followed");
        remove();
        assert!(!dir.exists());
        assert!(existing().is_none());
    }
}
