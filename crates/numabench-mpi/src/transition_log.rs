//! One process's log of the times (ticks) at which it entered and left
//! blocking MPI, in order: entries alternate enter, leave, enter, ...
//! Times marked with [`crate::state::PAUSE_MARK`] are its `MPI_Pcontrol`
//! pauses and resumes, in time order with the others.
//!
//! Appending is a store into process-private memory, so a call touches no
//! cache line another rank writes. The log grows in chunks of
//! [`CHUNK`] times (512 KiB); past [`MEMORY_CHUNKS`] chunks (32 MiB) in
//! memory, each further full chunk is written to an unlinked temporary
//! file (in `NUMABENCH_TMPDIR`, else `TMPDIR`, else /tmp; made with O_EXCL and
//! never through a symbolic link, mode 0600) and its buffer reused, so memory stays
//! bounded however long the run. If no such file can be made the chunks
//! stay in memory and one stderr line says so. At MPI_Finalize the
//! host's logs are merged ([`crate::levels`]).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// Times per chunk.
pub const CHUNK: usize = 64 * 1024;
/// Full chunks kept in memory before chunks go to the spill file.
pub const MEMORY_CHUNKS: usize = 64;

/// The log (see the module documentation).
#[derive(Debug)]
pub struct Log {
    chunk: usize,
    memory_chunks: usize,
    /// The first full chunks, in memory.
    full: Vec<Vec<u64>>,
    /// Later full chunks, in this file, one after the other.
    spill: Option<File>,
    spilled: usize,
    /// True once making the spill file failed (said once).
    spill_failed: bool,
    current: Vec<u64>,
}

impl Default for Log {
    fn default() -> Self {
        Self::new(CHUNK, MEMORY_CHUNKS)
    }
}

impl Log {
    /// A log of chunks of `chunk` times, `memory_chunks` of them in memory.
    pub const fn new(chunk: usize, memory_chunks: usize) -> Self {
        Self {
            chunk,
            memory_chunks,
            full: Vec::new(),
            spill: None,
            spilled: 0,
            spill_failed: false,
            current: Vec::new(),
        }
    }

    /// Appends a time.
    #[inline]
    pub fn push(&mut self, ticks: u64) {
        if self.current.len() == self.current.capacity() {
            self.next_chunk();
        }
        self.current.push(ticks);
    }

    /// Number of times logged.
    pub fn len(&self) -> usize {
        (self.full.len() + self.spilled) * self.chunk + self.current.len()
    }

    /// True when nothing is logged.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes room for the next time (cold: once per chunk).
    #[cold]
    fn next_chunk(&mut self) {
        if self.current.is_empty() {
            self.current.reserve_exact(self.chunk);
            return;
        }
        if self.full.len() < self.memory_chunks || self.spill_failed {
            let next = Vec::with_capacity(self.chunk);
            self.full.push(std::mem::replace(&mut self.current, next));
            return;
        }
        match self.write_spill() {
            Ok(()) => self.current.clear(),
            Err(error) => {
                eprintln!(
                    "numabench-mpi: cannot spill the transition log to a temporary file ({error}): it stays in memory"
                );
                self.spill_failed = true;
                self.next_chunk();
            }
        }
    }

    fn write_spill(&mut self) -> io::Result<()> {
        if self.spill.is_none() {
            self.spill = Some(temporary_file()?);
        }
        let file = self.spill.as_ref().expect("made above");
        let bytes: Vec<u8> = self
            .current
            .iter()
            .flat_map(|time| time.to_ne_bytes())
            .collect();
        let offset = (self.spilled * self.chunk * 8) as u64;
        file.write_all_at(&bytes, offset)?;
        self.spilled += 1;
        Ok(())
    }

    /// Calls `each` with every chunk in order (spilled ones read back one
    /// at a time); stops at the first error reading the spill file.
    pub fn for_each_chunk(&self, mut each: impl FnMut(&[u64])) -> io::Result<()> {
        let mut buffer = Vec::with_capacity(self.chunk);
        let mut index = 0;
        while self.read_chunk(index, &mut buffer)? {
            each(&buffer);
            index += 1;
        }
        Ok(())
    }

    /// The times in order, one chunk in memory at a time; a spill file
    /// that cannot be read back ends the times early (said on stderr).
    pub fn times(&self) -> Times<'_> {
        Times {
            log: self,
            chunk: 0,
            buffer: Vec::new(),
            position: 0,
        }
    }

    /// Chunk `index` into `into`: memory chunks, then spilled, then current.
    fn read_chunk(&self, index: usize, into: &mut Vec<u64>) -> io::Result<bool> {
        into.clear();
        if let Some(chunk) = self.full.get(index) {
            into.extend_from_slice(chunk);
        } else if index < self.full.len() + self.spilled {
            let file = self.spill.as_ref().expect("spilled chunks have a file");
            let mut bytes = vec![0u8; self.chunk * 8];
            let offset = ((index - self.full.len()) * self.chunk * 8) as u64;
            file.read_exact_at(&mut bytes, offset)?;
            into.extend(
                bytes
                    .chunks_exact(8)
                    .map(|time| u64::from_ne_bytes(time.try_into().expect("8 bytes"))),
            );
        } else if index == self.full.len() + self.spilled {
            into.extend_from_slice(&self.current);
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    /// Every time, in order (reads the spill file back whole: for tests
    /// and small logs; the merge streams with [`Log::times`]).
    pub fn to_vec(&self) -> io::Result<Vec<u64>> {
        let mut all = Vec::with_capacity(self.len());
        self.for_each_chunk(|chunk| all.extend_from_slice(chunk))?;
        Ok(all)
    }

    /// Forgets everything (the spill file goes with it).
    pub fn clear(&mut self) {
        *self = Self::new(self.chunk, self.memory_chunks);
    }
}

/// The iterator of [`Log::times`].
#[derive(Debug)]
pub struct Times<'a> {
    log: &'a Log,
    chunk: usize,
    buffer: Vec<u64>,
    position: usize,
}

impl Iterator for Times<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        while self.position == self.buffer.len() {
            match self.log.read_chunk(self.chunk, &mut self.buffer) {
                Ok(true) => {}
                Ok(false) => return None,
                Err(error) => {
                    eprintln!("numabench-mpi: cannot read the transition log back ({error}): TLP covers less");
                    return None;
                }
            }
            self.chunk += 1;
            self.position = 0;
        }
        self.position += 1;
        Some(self.buffer[self.position - 1])
    }
}

/// The directory for spill files: `NUMABENCH_TMPDIR` (the private 0700
/// directory numabench makes for a run) when set, else `TMPDIR`, else /tmp.
pub fn temporary_dir() -> std::path::PathBuf {
    std::env::var_os("NUMABENCH_TMPDIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(std::env::temp_dir, std::path::PathBuf::from)
}

/// A new spill file, opened with O_CREAT | O_EXCL (never through a symbolic link), mode
/// 0600 (a name planted by someone else is skipped, never followed),
/// and unlinked at once.
fn temporary_file() -> io::Result<File> {
    let dir = temporary_dir();
    for attempt in 0..16 {
        let path = dir.join(format!(
            "numabench-mpi-log-{}-{attempt}",
            std::process::id()
        ));
        match crate::output_file::create_new(&path) {
            Ok(file) => {
                std::fs::remove_file(&path)?;
                return Ok(file);
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::other("no free temporary file name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21 item B: spill files go to NUMABENCH_TMPDIR, and a symbolic
    /// link planted at the first predictable name is skipped, not followed.
    #[test]
    fn spill_files_go_to_numabench_tmpdir_and_skip_planted_links() {
        let _serial = crate::TEST_LOCK
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let dir = std::env::temp_dir().join(format!("numabench-mpi-spill-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let planted = dir.join(format!("numabench-mpi-log-{}-0", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        std::env::set_var("NUMABENCH_TMPDIR", &dir);
        let file = temporary_file();
        std::env::remove_var("NUMABENCH_TMPDIR");
        let mut file = file.unwrap();
        use std::os::fd::AsRawFd;
        let opened = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).unwrap();
        assert!(opened.starts_with(&dir), "{}", opened.display());
        use std::io::Write;
        file.write_all(b"spilled").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        // The planted link is left as it was; the spill file is unlinked.
        assert!(std::fs::symlink_metadata(&planted).unwrap().is_symlink());
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 2, "victim and the planted link only");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn times_come_back_in_order_from_memory_and_from_the_spill_file() {
        let mut log = Log::new(4, 2);
        assert!(log.is_empty());
        let times: Vec<u64> = (0..23).map(|time| time * 10 + 7).collect();
        for &time in &times {
            log.push(time);
        }
        assert_eq!(log.len(), 23);
        // 2 chunks of 4 in memory, 3 spilled, 3 in the current chunk.
        assert_eq!(log.full.len(), 2);
        assert_eq!(log.spilled, 3);
        assert!(log.spill.is_some());
        assert_eq!(log.to_vec().unwrap(), times);
        assert_eq!(log.times().collect::<Vec<u64>>(), times);
        let mut sizes = Vec::new();
        log.for_each_chunk(|chunk| sizes.push(chunk.len())).unwrap();
        assert_eq!(sizes, [4, 4, 4, 4, 4, 3]);
        log.clear();
        assert!(log.is_empty() && log.to_vec().unwrap().is_empty());
    }

    #[test]
    fn memory_stays_bounded_while_spilling() {
        let mut log = Log::new(8, 1);
        for time in 0..10_000 {
            log.push(time);
        }
        assert_eq!(log.full.len(), 1);
        assert!(log.current.capacity() <= 8);
        assert_eq!(log.to_vec().unwrap(), (0..10_000).collect::<Vec<u64>>());
    }
}
