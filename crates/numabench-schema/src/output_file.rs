//! Writing results files without clobbering what their path is: the one
//! place every numabench crate writes an output file from (the library's
//! CSV and JSON Lines sinks, the CLI's whole-file outputs, the MPI
//! monitor's records).
//!
//! - A regular file (or a path where nothing is yet) is **replaced**: the
//!   text goes to a temporary file beside it, with a name no other user can
//!   guess, made with `O_CREAT | O_EXCL` (which never follows a symbolic
//!   link, POSIX `open`: "If O_CREAT and O_EXCL are set, and path names a
//!   symbolic link, open() shall fail with EEXIST"; std opens with
//!   `O_CLOEXEC`). It takes the replaced file's mode and owner, is synced,
//!   renamed over the path, and the directory is synced: a reader or a
//!   crash sees the old file or the new one, whole.
//! - Anything else the user names, a symbolic link, a pipe, a terminal,
//!   `/dev/stdout` or `/proc/self/fd/1`, is a **stream**: opened at the
//!   start (so a path that cannot be written fails before anything runs)
//!   and written through, the link kept. When it is this process's own
//!   standard output or error, it is written through that descriptor
//!   (sharing its offset), so `--csv /dev/stdout > results.csv` puts the
//!   table in `results.csv` after what was printed before it.
//! - A regular file whose temporary cannot be made beside it (a directory
//!   the user may not create files in), whose owner a replacement could not
//!   keep, or that has other hard links is rewritten in place.
//!
//! Only std is used (no libc: the LD_PRELOADed libraries link this crate).

use std::collections::hash_map::RandomState;
use std::ffi::OsString;
use std::fs::{File, Metadata, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Seek, SeekFrom, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The mode of a new results file before the umask: what `File::create`
/// and the shell's `>` give.
pub const RESULTS_MODE: u32 = 0o666;

/// Opens `path` as a new file with `mode` (less the umask): never an
/// existing one, never through a symbolic link (`O_CREAT | O_EXCL`).
pub fn create_new(path: &Path, mode: u32) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
}

/// A temporary name beside `path`: hidden, and with 64 bits no other
/// process can predict (std's per-process random hash keys).
fn temporary(path: &Path) -> PathBuf {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    hasher.write_u128(now.as_nanos());
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".{:016x}.tmp", hasher.finish()));
    path.with_file_name(name)
}

/// The directory `path` is in (`.` for a bare name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Why a replacement did not happen.
enum NotReplaced {
    /// No temporary file could be made beside the path.
    NoTemporary(io::Error),
    /// The replacement could not keep the replaced file's owner.
    Owner(io::Error),
    /// Anything else (writing, syncing, renaming).
    Failed(io::Error),
}

impl From<NotReplaced> for io::Error {
    fn from(reason: NotReplaced) -> io::Error {
        match reason {
            NotReplaced::NoTemporary(error)
            | NotReplaced::Owner(error)
            | NotReplaced::Failed(error) => error,
        }
    }
}

/// Writes `text` to a new temporary file beside `path` and renames it over
/// `path`. The new file takes the mode and owner of `replaced` (the
/// regular file at `path` now), or `new_mode` when there is none.
fn replace_with(
    path: &Path,
    text: &[u8],
    new_mode: u32,
    replaced: Option<&Metadata>,
) -> Result<File, NotReplaced> {
    let mut made = None;
    for _ in 0..16 {
        let temporary = temporary(path);
        match create_new(&temporary, replaced.map_or(new_mode, |_| 0o600)) {
            Ok(file) => {
                made = Some((temporary, file));
                break;
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(NotReplaced::NoTemporary(error)),
        }
    }
    let Some((temporary, mut file)) = made else {
        return Err(NotReplaced::NoTemporary(io::Error::other(format!(
            "every temporary name tried beside {} is taken",
            path.display()
        ))));
    };
    let result = (|| {
        if let Some(replaced) = replaced {
            let ours = file.metadata().map_err(NotReplaced::Failed)?;
            if (ours.uid(), ours.gid()) != (replaced.uid(), replaced.gid()) {
                std::os::unix::fs::fchown(&file, Some(replaced.uid()), Some(replaced.gid()))
                    .map_err(NotReplaced::Owner)?;
            }
            file.set_permissions(std::fs::Permissions::from_mode(replaced.mode() & 0o7777))
                .map_err(NotReplaced::Failed)?;
        }
        file.write_all(text)
            .and_then(|()| file.sync_all())
            .and_then(|()| std::fs::rename(&temporary, path))
            .map_err(NotReplaced::Failed)
    })();
    if let Err(error) = result {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    // The rename is durable once the directory is synced.
    File::open(directory_of(path))
        .and_then(|directory| directory.sync_all())
        .map_err(NotReplaced::Failed)?;
    Ok(file)
}

/// Replaces whatever is at `path` with a new file holding `text`: a
/// regular file keeps its mode and owner, anything else (a symbolic link
/// included) is replaced, never written through; a new file gets
/// `new_mode` less the umask. What the MPI monitor writes in directories
/// other users may share. Returns the new file, positioned after `text`.
pub fn replace(path: &Path, text: &[u8], new_mode: u32) -> io::Result<File> {
    let existing = std::fs::symlink_metadata(path).ok();
    let regular = existing.as_ref().filter(|meta| meta.file_type().is_file());
    Ok(replace_with(path, text, new_mode, regular)?)
}

/// Rewrites the regular file (or empty place) at `path` with `text`: by
/// [`replace`], or in place where a replacement cannot be made or would
/// lose something (no temporary may be made beside it, its owner could not
/// be kept, other hard links share it). Returns the file, positioned after
/// `text`, to append to.
pub fn rewrite(path: &Path, text: &[u8]) -> io::Result<File> {
    let existing = match std::fs::symlink_metadata(path) {
        Ok(meta) => Some(meta),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(error),
    };
    let Some(existing) = existing else {
        return replace(path, text, RESULTS_MODE);
    };
    if !existing.file_type().is_file() {
        return Err(io::Error::other(format!(
            "{} is no longer a regular file",
            path.display()
        )));
    }
    if existing.nlink() == 1 {
        match replace_with(path, text, RESULTS_MODE, Some(&existing)) {
            Ok(file) => return Ok(file),
            Err(NotReplaced::NoTemporary(_) | NotReplaced::Owner(_)) => {}
            Err(NotReplaced::Failed(error)) => return Err(error),
        }
    }
    let mut file = OpenOptions::new().write(true).open(path)?;
    let opened = file.metadata()?;
    if (opened.dev(), opened.ino()) != (existing.dev(), existing.ino()) {
        return Err(io::Error::other(format!(
            "{} was replaced while it was being written",
            path.display()
        )));
    }
    file.write_all(text)?;
    file.set_len(text.len() as u64)?;
    file.sync_all()?;
    Ok(file)
}

/// An output that is not a regular file, opened at the start and written
/// once, through, at the end.
#[derive(Debug)]
pub struct Stream {
    file: File,
    /// A regular file reached through a link, opened by us: written from
    /// its start and cut after what was written.
    whole: bool,
}

impl Stream {
    /// Writes `text` (the whole output) and flushes it.
    pub fn write_whole(&mut self, text: &[u8]) -> io::Result<()> {
        if self.whole {
            self.file.seek(SeekFrom::Start(0))?;
            self.file.write_all(text)?;
            self.file.set_len(text.len() as u64)?;
            self.file.sync_all()
        } else {
            self.file.write_all(text)?;
            self.file.flush()
        }
    }

    /// The open file (to write to as records come).
    pub fn file(&mut self) -> &mut File {
        &mut self.file
    }
}

/// Where an output opened by [`open`] goes.
#[derive(Debug)]
pub enum Output {
    /// A regular file, or a new one (created empty now): replaced whole by
    /// [`rewrite`], with its mode and owner kept.
    Regular(PathBuf),
    /// A symbolic link, pipe, terminal, device or this process's standard
    /// output: written through, once, at the end.
    Stream(Stream),
}

/// `file`'s identity, when it is the same open file as this process's
/// standard output or error: then a duplicate of that descriptor, which
/// shares its offset.
fn standard_stream_of(file: &File) -> io::Result<Option<File>> {
    let opened = file.metadata()?;
    for stream in [io::stdout().as_fd(), io::stderr().as_fd()] {
        let Ok(owned) = stream.try_clone_to_owned() else {
            continue;
        };
        let stream = File::from(owned);
        if let Ok(meta) = stream.metadata() {
            if (meta.dev(), meta.ino()) == (opened.dev(), opened.ino()) {
                return Ok(Some(stream));
            }
        }
    }
    Ok(None)
}

/// Opens what `path` names for writing without truncating it, following
/// links; this process's standard output or error is used through its own
/// descriptor. Returns the file and whether we opened a regular file
/// ourselves (not a standard stream).
fn open_through(path: &Path) -> io::Result<(File, bool)> {
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .mode(RESULTS_MODE)
        .open(path)?;
    if let Some(stream) = standard_stream_of(&file)? {
        return Ok((stream, false));
    }
    let regular = file.metadata()?.file_type().is_file();
    Ok((file, regular))
}

/// Opens the output `path` for a result written whole (see the module
/// documentation): a new file is created empty now and a regular one
/// checked writable, so a path that cannot be written fails before
/// anything runs.
pub fn open(path: &Path) -> io::Result<Output> {
    loop {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_file() => {
                // The user may not replace a file they may not write.
                OpenOptions::new().write(true).open(path)?;
                return Ok(Output::Regular(path.to_path_buf()));
            }
            Ok(_) => {
                let (file, whole) = open_through(path)?;
                return Ok(Output::Stream(Stream { file, whole }));
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                match create_new(path, RESULTS_MODE) {
                    Ok(_) => return Ok(Output::Regular(path.to_path_buf())),
                    // Made by someone else meanwhile: look again.
                    Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(error) => return Err(error),
                }
            }
            Err(error) => return Err(error),
        }
    }
}

/// Opens the output `path` for records streamed as they come (JSON Lines):
/// what it names is written through from its start, links kept, and this
/// process's standard output or error through its own descriptor.
pub fn open_stream(path: &Path) -> io::Result<File> {
    let (file, ours) = open_through(path)?;
    if ours {
        file.set_len(0)?;
    }
    Ok(file)
}

impl Output {
    /// Writes `text` as the whole output: [`rewrite`] or
    /// [`Stream::write_whole`].
    pub fn write_whole(self, text: &[u8]) -> io::Result<()> {
        match self {
            Output::Regular(path) => rewrite(&path, text).map(drop),
            Output::Stream(mut stream) => stream.write_whole(text),
        }
    }
}

/// Writes `text` as the whole output at `path`: [`open`], then
/// [`Output::write_whole`].
pub fn write_whole(path: &Path, text: &[u8]) -> io::Result<()> {
    open(path)?.write_whole(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "numabench-output-file-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        dir
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    /// Issue 21 item B: a symbolic link planted at a path `replace` writes
    /// is replaced, never written through; a planted name is never opened.
    #[test]
    fn replace_replaces_a_planted_symlink_and_never_opens_an_existing_name() {
        let dir = scratch("planted");
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let out = dir.join("out.jsonl");
        symlink(&victim, &out).unwrap();
        replace(&out, b"records\n", 0o600).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "records\n");
        assert!(!std::fs::symlink_metadata(&out).unwrap().is_symlink());
        assert_eq!(mode(&out), 0o600);
        let planted = dir.join("planted");
        symlink(&victim, &planted).unwrap();
        assert!(create_new(&planted, 0o600).is_err(), "O_EXCL");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 3, "no temporary left: {left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 34 item 12: temporary names differ from one write to the next
    /// (a fixed name could be planted in advance).
    #[test]
    fn temporary_names_are_not_predictable() {
        let path = Path::new("/tmp/r.csv");
        let (a, b) = (temporary(path), temporary(path));
        assert_ne!(a, b);
        assert!(a
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".r.csv."));
    }

    /// Issue 34 item 12: a rewrite keeps the file's mode.
    #[test]
    fn rewrite_keeps_the_mode() {
        let dir = scratch("mode");
        let out = dir.join("r.csv");
        std::fs::write(&out, "old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
        let mut file = rewrite(&out, b"a,b\n").unwrap();
        file.write_all(b"1,2\n").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "a,b\n1,2\n");
        assert_eq!(mode(&out), 0o640);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 34 item 12: a symbolic link is written through, the link kept.
    #[test]
    fn a_symlink_is_written_through_and_kept() {
        let dir = scratch("through");
        let target = dir.join("target.html");
        std::fs::write(&target, "an old and longer text").unwrap();
        let link = dir.join("link.html");
        symlink(&target, &link).unwrap();
        write_whole(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file with another hard link is rewritten in place: both names
    /// keep showing it.
    #[test]
    fn a_hard_linked_file_is_rewritten_in_place() {
        let dir = scratch("hardlink");
        let out = dir.join("r.csv");
        std::fs::write(&out, "old old old").unwrap();
        std::fs::hard_link(&out, dir.join("other")).unwrap();
        write_whole(&out, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("other")).unwrap(), "new");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
