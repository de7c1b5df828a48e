//! `--set-weights`: the kernel's weighted-interleave weights written for
//! one invocation and put back at its end.
//!
//! `MPOL_WEIGHTED_INTERLEAVE` takes its weights from
//! `/sys/kernel/mm/mempolicy/weighted_interleave/nodeN`, one system-wide
//! vector, read when each page is placed. numabench leaves them alone
//! unless asked: then, just before a weighted policy with weights is put
//! on a buffer or a started program, [`write`] writes them (reduced by
//! their greatest common divisor), having saved what was there, and
//! [`restore`] writes the saved weights back.
//!
//! Since Linux 6.16 an `auto` switch (named `__auto_type` by 6.18, whose
//! `auto` became a C keyword) says the kernel computes the weights from
//! firmware bandwidth tables; writing any node's weight turns it off.
//! Restoring turns it back on, which the kernel refuses when it has no
//! bandwidth figures (ENODEV: it booted in auto mode with weights of 1).
//! Then the saved weights are written back by hand and [`Restored`] says
//! that `auto` stays off.

use super::weighted::{common_divisor, kernel_weights_in, WEIGHTS_DIR};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The names the `auto` switch has had (Linux 6.16; 6.18's macro turned
/// `auto` into `__auto_type`).
pub const AUTO_NAMES: [&str; 2] = ["auto", "__auto_type"];

/// Why `--set-weights` cannot be used here; both are the user's to fix
/// (another kernel, or root), so the command stops before anything runs.
///
/// Always the user's fault (another kernel, or root).
#[derive(Debug, thiserror::Error)]
pub enum SetWeightsError {
    /// The kernel has no weighted interleave.
    #[error("--set-weights needs a kernel with weighted interleave (Linux 6.9 or later): there is no {0}")]
    NoWeightedInterleave(PathBuf),
    /// The weights cannot be written (not root, or a read-only /sys).
    #[error("--set-weights needs root: {path} is not writable ({source})")]
    NotWritable { path: PathBuf, source: io::Error },
}

crate::error::all_faulty!(Usage: SetWeightsError);

/// The saved state: every node's weight and the `auto` switch.
#[derive(Debug, Clone)]
struct Saved {
    weights: BTreeMap<u32, u32>,
    /// The switch's path and whether it was on.
    auto: Option<(PathBuf, bool)>,
}

/// Writes weights into one weights folder and puts them back.
#[derive(Debug)]
pub struct WeightsWriter {
    dir: PathBuf,
    saved: Option<Saved>,
    /// The nodes whose weight was written.
    written: BTreeMap<u32, u32>,
}

/// What [`WeightsWriter::restore`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Restored {
    /// Each node whose weight was written, with the weight it has again.
    pub weights: BTreeMap<u32, u32>,
    /// `Some(true)`: the `auto` switch is on again; `Some(false)`: it was
    /// on and could not be turned back on (the reason is in `problems`).
    pub auto_back: Option<bool>,
    /// Writes that failed, one line each.
    pub problems: Vec<String>,
}

impl WeightsWriter {
    /// A writer for the weights in `dir`, refused when the folder is
    /// missing or its first node file cannot be written.
    pub fn open(dir: &Path) -> Result<Self, SetWeightsError> {
        let weights = kernel_weights_in(dir)
            .filter(|weights| !weights.is_empty())
            .ok_or_else(|| SetWeightsError::NoWeightedInterleave(dir.to_path_buf()))?;
        let first = *weights.keys().next().expect("not empty");
        let path = dir.join(format!("node{first}"));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(|source| SetWeightsError::NotWritable { path, source })?;
        Ok(Self {
            dir: dir.to_path_buf(),
            saved: None,
            written: BTreeMap::new(),
        })
    }

    /// Writes `weights` for `nodes` (divided by their greatest common
    /// divisor), saving the folder's state before the first write.
    pub fn write(&mut self, nodes: &[u32], weights: &[u32]) -> io::Result<()> {
        if self.saved.is_none() {
            self.saved = Some(self.read_state()?);
        }
        let divisor = common_divisor(weights.iter().map(|&w| u64::from(w))) as u32;
        for (&node, &weight) in nodes.iter().zip(weights) {
            let reduced = weight / divisor;
            let path = self.dir.join(format!("node{node}"));
            std::fs::write(&path, format!("{reduced}\n")).map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!("could not write {}: {error}", path.display()),
                )
            })?;
            self.written.insert(node, reduced);
        }
        Ok(())
    }

    /// The nodes written so far, with their weights.
    pub fn written(&self) -> &BTreeMap<u32, u32> {
        &self.written
    }

    /// Writes the saved weights of `nodes` back (those written since),
    /// keeping the saved state: a policy of the kernel's own weights after
    /// one that wrote others gets the kernel's, not the last written.
    pub fn put_back(&mut self, nodes: &[u32]) -> io::Result<()> {
        let Some(saved) = &self.saved else {
            return Ok(());
        };
        for node in nodes {
            if self.written.remove(node).is_none() {
                continue;
            }
            if let Some(weight) = saved.weights.get(node) {
                let path = self.dir.join(format!("node{node}"));
                std::fs::write(&path, format!("{weight}\n"))?;
            }
        }
        Ok(())
    }

    /// Puts the saved state back (nothing when nothing was written).
    pub fn restore(&mut self) -> Restored {
        let mut restored = Restored::default();
        let Some(saved) = self.saved.take() else {
            return restored;
        };
        if let Some((path, true)) = &saved.auto {
            match std::fs::write(path, "true\n") {
                Ok(()) => restored.auto_back = Some(true),
                Err(error) => {
                    restored.auto_back = Some(false);
                    restored.problems.push(format!(
                        "the kernel did not turn {} back on ({error}); the weights were put back by hand",
                        path.display()
                    ));
                }
            }
        }
        for node in std::mem::take(&mut self.written).into_keys() {
            let Some(&weight) = saved.weights.get(&node) else {
                continue;
            };
            let path = self.dir.join(format!("node{node}"));
            if restored.auto_back != Some(true) {
                if let Err(error) = std::fs::write(&path, format!("{weight}\n")) {
                    restored.problems.push(format!(
                        "could not put {} back to {weight}: {error}",
                        path.display()
                    ));
                    continue;
                }
            }
            restored.weights.insert(node, weight);
        }
        restored
    }

    fn read_state(&self) -> io::Result<Saved> {
        let weights = kernel_weights_in(&self.dir).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("{} is gone", self.dir.display()),
            )
        })?;
        let auto = AUTO_NAMES.iter().find_map(|name| {
            let path = self.dir.join(name);
            let text = std::fs::read_to_string(&path).ok()?;
            Some((path, matches!(text.trim(), "true" | "1" | "Y" | "y")))
        });
        Ok(Saved { weights, auto })
    }
}

impl Drop for WeightsWriter {
    fn drop(&mut self) {
        self.restore();
    }
}

/// The process's writer, when `--set-weights` enabled one.
static WRITER: Mutex<Option<WeightsWriter>> = Mutex::new(None);

fn writer() -> std::sync::MutexGuard<'static, Option<WeightsWriter>> {
    WRITER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Lets this process write the kernel's weights ([`WEIGHTS_DIR`]) for
/// every weighted policy with weights, until [`restore`].
pub fn enable() -> Result<(), SetWeightsError> {
    let opened = WeightsWriter::open(Path::new(WEIGHTS_DIR))?;
    *writer() = Some(opened);
    Ok(())
}

/// True when [`enable`] succeeded: weighted policies with weights run in
/// the kernel's mode, their weights written first.
pub fn enabled() -> bool {
    writer().is_some()
}

/// Writes `weights` for `nodes` when enabled; `Ok(false)` when not.
pub fn write(nodes: &[u32], weights: &[u32]) -> io::Result<bool> {
    match writer().as_mut() {
        Some(writer) => writer.write(nodes, weights).map(|()| true),
        None => Ok(false),
    }
}

/// Writes the saved weights of `nodes` back when enabled
/// ([`WeightsWriter::put_back`]).
pub fn put_back(nodes: &[u32]) -> io::Result<()> {
    match writer().as_mut() {
        Some(writer) => writer.put_back(nodes),
        None => Ok(()),
    }
}

/// Puts the weights back and stops writing; `None` when never enabled.
pub fn restore() -> Option<Restored> {
    writer().take().map(|mut writer| writer.restore())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(weights: &[(u32, u32)], auto: Option<(&str, bool)>) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (node, weight) in weights {
            std::fs::write(
                dir.path().join(format!("node{node}")),
                format!("{weight}\n"),
            )
            .unwrap();
        }
        if let Some((name, on)) = auto {
            std::fs::write(dir.path().join(name), format!("{on}\n")).unwrap();
        }
        dir
    }

    fn read(dir: &Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name))
            .unwrap()
            .trim()
            .to_string()
    }

    #[test]
    fn weights_are_written_reduced_and_put_back() {
        let dir = folder(&[(0, 1), (1, 1), (2, 5)], None);
        let mut writer = WeightsWriter::open(dir.path()).unwrap();
        writer.write(&[0, 2], &[6, 2]).unwrap();
        assert_eq!(read(dir.path(), "node0"), "3");
        assert_eq!(read(dir.path(), "node2"), "1");
        assert_eq!(read(dir.path(), "node1"), "1");
        // A second policy's write does not overwrite what was saved.
        writer.write(&[0, 1], &[1, 4]).unwrap();
        let restored = writer.restore();
        assert_eq!(read(dir.path(), "node0"), "1");
        assert_eq!(read(dir.path(), "node1"), "1");
        assert_eq!(read(dir.path(), "node2"), "5");
        assert_eq!(
            restored.weights,
            [(0, 1), (1, 1), (2, 5)].into_iter().collect()
        );
        assert_eq!(restored.auto_back, None);
        assert!(restored.problems.is_empty());
    }

    #[test]
    fn an_auto_switch_that_was_on_is_turned_back_on() {
        for name in AUTO_NAMES {
            let dir = folder(&[(0, 2), (1, 1)], Some((name, true)));
            let mut writer = WeightsWriter::open(dir.path()).unwrap();
            writer.write(&[0, 1], &[3, 1]).unwrap();
            // What the kernel does on a weight's write.
            std::fs::write(dir.path().join(name), "false\n").unwrap();
            let restored = writer.restore();
            assert_eq!(restored.auto_back, Some(true), "{name}");
            assert_eq!(read(dir.path(), name), "true");
        }
    }

    #[test]
    fn a_switch_that_was_off_stays_off_and_nothing_written_restores_nothing() {
        let dir = folder(&[(0, 2), (1, 1)], Some(("auto", false)));
        let mut writer = WeightsWriter::open(dir.path()).unwrap();
        assert_eq!(writer.restore(), Restored::default());
        writer.write(&[1], &[7]).unwrap();
        let restored = writer.restore();
        assert_eq!(restored.auto_back, None);
        assert_eq!(read(dir.path(), "auto"), "false");
        assert_eq!(read(dir.path(), "node1"), "1");
    }

    #[test]
    fn the_kernels_own_weights_are_put_back_between_policies() {
        let dir = folder(&[(0, 2), (1, 1)], None);
        let mut writer = WeightsWriter::open(dir.path()).unwrap();
        writer.write(&[0, 1], &[9, 1]).unwrap();
        writer.put_back(&[0, 1]).unwrap();
        assert_eq!(read(dir.path(), "node0"), "2");
        assert!(writer.written().is_empty());
        // Written again later, restored at the end as before.
        writer.write(&[0, 1], &[5, 1]).unwrap();
        assert_eq!(read(dir.path(), "node0"), "5");
        writer.restore();
        assert_eq!(read(dir.path(), "node0"), "2");
    }

    #[test]
    fn dropping_the_writer_restores() {
        let dir = folder(&[(0, 1), (1, 1)], None);
        {
            let mut writer = WeightsWriter::open(dir.path()).unwrap();
            writer.write(&[0, 1], &[9, 2]).unwrap();
            assert_eq!(read(dir.path(), "node0"), "9");
        }
        assert_eq!(read(dir.path(), "node0"), "1");
    }

    #[test]
    fn a_missing_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let error = WeightsWriter::open(&dir.path().join("weighted_interleave")).unwrap_err();
        assert!(matches!(error, SetWeightsError::NoWeightedInterleave(_)));
        assert!(error.to_string().contains("Linux 6.9"), "{error}");
    }
}
