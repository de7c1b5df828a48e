//! The files one pinned run shares with the pinning shim (`libnumabench_pin.so`):
//! the CPU counter that every process of the run takes the next CPU from
//! (`NUMABENCH_PIN_COUNTER`), and the file the shim appends its warnings to
//! (`NUMABENCH_PIN_WARNINGS`), read after the run. A fresh pair per run, in
//! numabench's private folder ([`crate::private_dir`], mode 0700, in
//! /dev/shm where it exists), removed when dropped. The counter is created
//! here with `O_EXCL | O_NOFOLLOW`; the shim opens both with `O_NOFOLLOW`.

use crate::private_dir;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// One run's counter and warnings files.
#[derive(Debug)]
pub(crate) struct PinFiles {
    counter: PathBuf,
    warnings: PathBuf,
    folder: PathBuf,
}

impl PinFiles {
    /// Creates the (empty) counter file; the shim grows it and creates the
    /// warnings file when it has something to say.
    pub(crate) fn create() -> std::io::Result<PinFiles> {
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let stem = format!("pin-{}", RUNS.fetch_add(1, Ordering::Relaxed));
        let (counter, _) = private_dir::create_new(&format!("{stem}.counter"))?;
        let folder = counter.parent().map(PathBuf::from).unwrap_or_default();
        Ok(PinFiles {
            warnings: folder.join(format!("{stem}.warnings")),
            counter,
            folder,
        })
    }

    /// The variables that point the shim at these files, and
    /// `NUMABENCH_TMPDIR` at the folder.
    pub(crate) fn environment(&self) -> [(String, String); 3] {
        [
            (
                "NUMABENCH_PIN_COUNTER".to_string(),
                self.counter.display().to_string(),
            ),
            (
                "NUMABENCH_PIN_WARNINGS".to_string(),
                self.warnings.display().to_string(),
            ),
            (
                private_dir::ENV.to_string(),
                self.folder.display().to_string(),
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
