//! Writing the monitor's files without following anything planted in a
//! shared directory, by the one replace every numabench output uses
//! ([`numabench_schema::output_file`]): the text goes to a fresh temporary
//! name in the same directory (unguessable, opened with `O_CREAT | O_EXCL`,
//! mode 0600), is synced, and is then renamed over the destination (the
//! directory synced). `rename` replaces whatever is at the destination (a
//! symbolic link included) and never writes through it, and a reader sees
//! either the old file or the new one, whole: the periodic partial
//! snapshots ([`crate::flush`]) replace each other the same way. A regular
//! file replaced keeps its mode and owner.

use numabench_schema::output_file;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

/// The mode of the monitor's new files: readable by their owner only.
const MODE: u32 = 0o600;

/// Opens `path` as a new file: never an existing one, never through a
/// symbolic link, readable by its owner only.
pub fn create_new(path: &Path) -> io::Result<File> {
    output_file::create_new(path, MODE)
}

/// Writes `text` to `path` by way of a new temporary file renamed over it.
pub fn replace(path: &Path, text: &[u8]) -> io::Result<()> {
    output_file::replace(path, text, MODE).map(drop)
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
    /// replaced, never written through; a planted link at a new file's
    /// name is never opened.
    #[test]
    fn a_planted_symlink_is_replaced_not_followed() {
        let dir = std::env::temp_dir().join(format!("numabench-mpi-out-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let out = dir.join("out.jsonl");
        std::os::unix::fs::symlink(&victim, &out).unwrap();
        replace(&out, b"records\n").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "records\n");
        assert!(!std::fs::symlink_metadata(&out).unwrap().is_symlink());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let planted = dir.join("planted");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        assert!(create_new(&planted).is_err(), "O_EXCL");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
