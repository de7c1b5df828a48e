//! The files one pinned run shares with the pinning shim (`libnumabench_pin.so`):
//! the CPU counter that every process of the run takes the next CPU from
//! (`NUMABENCH_PIN_COUNTER`), and the file the shim appends its warnings to
//! (`NUMABENCH_PIN_WARNINGS`), read after the run. A fresh pair per run, in
//! /dev/shm where it exists (memory, no disk I/O during the run), removed when
//! dropped.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// One run's counter and warnings files.
#[derive(Debug)]
pub(crate) struct PinFiles {
    counter: PathBuf,
    warnings: PathBuf,
}

impl PinFiles {
    /// Creates the (empty) counter file; the shim grows it and creates the
    /// warnings file when it has something to say.
    pub(crate) fn create() -> std::io::Result<PinFiles> {
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let stem = format!(
            "numabench-pin-{}-{}",
            std::process::id(),
            RUNS.fetch_add(1, Ordering::Relaxed)
        );
        let files = PinFiles {
            counter: dir.join(format!("{stem}.counter")),
            warnings: dir.join(format!("{stem}.warnings")),
        };
        // Left behind by an earlier numabench with the same process id.
        let _ = std::fs::remove_file(&files.warnings);
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&files.counter)?;
        Ok(files)
    }

    /// The variables that point the shim at these files.
    pub(crate) fn environment(&self) -> [(String, String); 2] {
        [
            (
                "NUMABENCH_PIN_COUNTER".to_string(),
                self.counter.display().to_string(),
            ),
            (
                "NUMABENCH_PIN_WARNINGS".to_string(),
                self.warnings.display().to_string(),
            ),
        ]
    }

    /// The shim's warnings so far, one per line, without its `numabench-pin: `
    /// prefix.
    pub(crate) fn warnings(&self) -> Vec<String> {
        std::fs::read_to_string(&self.warnings)
            .unwrap_or_default()
            .lines()
            .map(|line| {
                line.strip_prefix("numabench-pin: ")
                    .unwrap_or(line)
                    .to_string()
            })
            .collect()
    }
}

impl Drop for PinFiles {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.counter);
        let _ = std::fs::remove_file(&self.warnings);
    }
}
