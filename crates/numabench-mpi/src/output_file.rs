//! Writing the monitor's files without following anything planted in a
//! shared directory: the text goes to a fresh temporary name in the same
//! directory, opened with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode 0600,
//! and is then renamed over the destination. `rename` replaces whatever
//! is at the destination (a symbolic link included) and never writes
//! through it, and a reader sees either the old file or the new one,
//! whole: the periodic partial snapshots ([`crate::flush`]) replace each
//! other the same way.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Opens `path` as a new file: never an existing one, never through a
/// symbolic link, readable by its owner only.
pub fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// The temporary name beside `path` for this process's write.
fn temporary(path: &Path, attempt: u32) -> PathBuf {
    let mut name: OsString = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}-{attempt}", std::process::id()));
    path.with_file_name(name)
}

/// Writes `text` to `path` by way of a new temporary file renamed over it.
pub fn replace(path: &Path, text: &[u8]) -> io::Result<()> {
    for attempt in 0..16 {
        let temporary = temporary(path, attempt);
        let mut file = match create_new(&temporary) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        };
        let written = file
            .write_all(text)
            .and_then(|()| std::fs::rename(&temporary, path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        return written;
    }
    Err(io::Error::other(format!(
        "every temporary name beside {} is taken",
        path.display()
    )))
}

/// `path` with `suffix` appended to its file name.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut bytes = path.as_os_str().to_os_string().into_vec();
    bytes.extend_from_slice(suffix.as_bytes());
    PathBuf::from(OsString::from_vec(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21 item B: a symbolic link planted at the output path is
    /// replaced, never written through; a planted link at a temporary
    /// name is skipped.
    #[test]
    fn a_planted_symlink_is_replaced_not_followed() {
        let dir = std::env::temp_dir().join(format!("numabench-mpi-out-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let out = dir.join("out.jsonl");
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        std::os::unix::fs::symlink(&victim, temporary(&out, 0)).unwrap();
        replace(&out, b"records\n").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "records\n");
        assert!(!std::fs::symlink_metadata(&out).unwrap().is_symlink());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(create_new(&temporary(&out, 0)).is_err(), "O_EXCL");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
