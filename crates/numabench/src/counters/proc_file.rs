//! Reading a small /proc or /sys file many times a second, cheaply.

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

/// A file of /proc is mostly under this size; larger ones grow the buffer.
const FIRST_CAPACITY: usize = 4096;

/// The text of the small file at `path`, read into `buffer` (kept by the
/// caller between reads): one open, reads straight into the buffer until
/// the end, one close. `std::fs::read_to_string` first asks the file's
/// size (statx, which is 0 for a /proc file) and then reads 32 bytes, 64,
/// 128 and so on: nine system calls for a thread's `status` file where this
/// makes three. The TLP sampler reads two such files per thread every
/// millisecond. `None` when the file cannot be opened or read (the thread
/// has ended) or is not UTF-8.
pub fn read_proc_file<'a>(path: &Path, buffer: &'a mut Vec<u8>) -> Option<&'a str> {
    let mut file = File::open(path).ok()?;
    if buffer.len() < FIRST_CAPACITY {
        buffer.resize(FIRST_CAPACITY, 0);
    }
    let mut filled = 0;
    loop {
        if filled == buffer.len() {
            buffer.resize(buffer.len() * 2, 0);
        }
        match file.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    std::str::from_utf8(&buffer[..filled]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole file comes back, however its size compares with the
    /// buffer's: a status file (its last lines included), a file of several
    /// buffers, an empty one; a missing file is `None`.
    #[test]
    fn reads_whole_files_into_a_kept_buffer() {
        let mut buffer = Vec::new();
        let status = read_proc_file(Path::new("/proc/thread-self/status"), &mut buffer)
            .unwrap()
            .to_string();
        assert!(status.contains("nonvoluntary_ctxt_switches"), "{status}");
        let dir = tempfile::tempdir().unwrap();
        let long: String = (0..3000).map(|line| format!("line {line}\n")).collect();
        assert!(long.len() > 2 * FIRST_CAPACITY);
        std::fs::write(dir.path().join("long"), &long).unwrap();
        assert_eq!(
            read_proc_file(&dir.path().join("long"), &mut buffer),
            Some(long.as_str())
        );
        std::fs::write(dir.path().join("empty"), "").unwrap();
        assert_eq!(
            read_proc_file(&dir.path().join("empty"), &mut buffer),
            Some("")
        );
        assert_eq!(
            read_proc_file(&dir.path().join("missing"), &mut buffer),
            None
        );
    }
}
