//! One check at a time on a node: two at once would measure each other
//! (Slurm starts a health check program on every interval, also while the
//! last one still runs), and a node slowed by its own checks must not be
//! drained. An exclusive `flock` on a file in `/run/lock` (else the temp
//! folder), held for the check's life and released by the kernel when the
//! process ends, however it ends.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// The lock, held while this value lives.
#[derive(Debug)]
pub struct CheckLock {
    _file: File,
}

/// Why the lock was not taken.
///
/// Always the user's fault: another check runs, or the lock's place is
/// not theirs to write.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("another numabench check is running on this node (it holds {path}): two at once would measure each other")]
    Busy { path: String },
    #[error("cannot open the check lock {path}: {error}")]
    Open { path: String, error: std::io::Error },
}

crate::error::all_faulty!(Usage: LockError);

/// Where the lock lives: `/run/lock` when this process may write there,
/// else the temp folder (per user).
pub fn lock_path() -> PathBuf {
    let run_lock = PathBuf::from("/run/lock");
    // SAFETY: access() reads a NUL-terminated path and has no other effect.
    let writable = unsafe { libc::access(c"/run/lock".as_ptr(), libc::W_OK) } == 0;
    if writable && run_lock.is_dir() {
        run_lock.join("numabench-check.lock")
    } else {
        // SAFETY: geteuid has no preconditions and only reads.
        let uid = unsafe { libc::geteuid() };
        std::env::temp_dir().join(format!("numabench-check-{uid}.lock"))
    }
}

/// Takes the node's check lock, or says that another check holds it.
pub fn lock_checks() -> Result<CheckLock, LockError> {
    lock_file(&lock_path())
}

/// Takes the lock on the file at `path` (made if missing).
fn lock_file(path: &Path) -> Result<CheckLock, LockError> {
    let name = path.display().to_string();
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|error| LockError::Open {
            path: name.clone(),
            error,
        })?;
    // SAFETY: flock on a descriptor this File owns; no memory is involved.
    let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    if taken {
        Ok(CheckLock { _file: file })
    } else {
        Err(LockError::Busy { path: name })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A second holder is refused while the first lives, and gets it after.
    /// On a lock of its own: the node's is taken by any check running here.
    #[test]
    fn one_check_at_a_time() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("check.lock");
        let first = lock_file(&path).unwrap();
        assert!(matches!(lock_file(&path), Err(LockError::Busy { .. })));
        drop(first);
        assert!(lock_file(&path).is_ok());
    }
}
