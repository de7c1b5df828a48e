//! Reads kernel settings from /proc and /sys under a chosen root, so the
//! checks run unchanged against a prepared directory tree in tests.

use std::fs;
use std::path::{Path, PathBuf};

/// What reading one kernel setting found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Setting {
    /// The trimmed contents.
    Value(String),
    /// This kernel has no such setting: the file is missing from a
    /// directory that is there and readable (e.g. no numa_balancing in
    /// `/proc/sys/kernel` on a kernel built without NUMA balancing).
    Absent,
    /// The setting could not be read (permission, a masked or empty /proc
    /// or /sys as in some containers): nothing can be said about it.
    Unreadable(Unreadable),
}

/// Why a setting could not be read (a doctor finding says so, and that
/// nothing can be said about the setting).
///
/// Fault: the system's (a masked /proc or /sys, a permission).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    /// Not even `/` is there.
    #[error("no such file")]
    NoSuchFile,
    /// A folder right below `/` (`/proc`, `/sys`) is missing.
    #[error("{} is missing", path.display())]
    Missing { path: PathBuf },
    /// The nearest folder above the file lists nothing.
    #[error("{} is empty or unreadable", path.display())]
    Masked { path: PathBuf },
    /// Reading failed; `reason` is the kernel's error, as text (so that a
    /// setting stays comparable).
    #[error("{reason}")]
    Io { reason: String },
}

crate::error::all_faulty!(System: Unreadable);

impl Setting {
    /// `Ok(Some(value))`, `Ok(None)` when absent, `Err(reason)` when unreadable.
    pub fn known(self) -> Result<Option<String>, Unreadable> {
        match self {
            Setting::Value(value) => Ok(Some(value)),
            Setting::Absent => Ok(None),
            Setting::Unreadable(reason) => Err(reason),
        }
    }
}

/// The root that `/proc/...` and `/sys/...` paths are read under.
#[derive(Debug, Clone)]
pub struct SystemFiles {
    root: PathBuf,
}

impl SystemFiles {
    /// The running system.
    pub fn real() -> Self {
        Self::under("/")
    }

    /// Files under `root` (for tests).
    pub fn under(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The trimmed contents of an absolute path such as
    /// `/proc/sys/kernel/numa_balancing`, or `None` if unreadable.
    pub fn read(&self, path: &str) -> Option<String> {
        fs::read_to_string(self.path(path))
            .ok()
            .map(|text| text.trim().to_string())
    }

    /// Reads a setting and says why when it cannot: a missing file counts
    /// as [`Setting::Absent`] only when the nearest directory above it that
    /// exists is below `/proc` or `/sys` (not those themselves) and lists
    /// something; a missing or empty `/proc/sys` is masked, not a kernel
    /// without the setting.
    pub fn setting(&self, path: &str) -> Setting {
        match fs::read_to_string(self.path(path)) {
            Ok(text) => Setting::Value(text.trim().to_string()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                // The nearest existing directory above, and the missing one just below it.
                let mut missing = Path::new(path);
                let mut ancestor = missing.parent();
                while let Some(directory) = ancestor {
                    if self.path(&directory.to_string_lossy()).exists() {
                        break;
                    }
                    missing = directory;
                    ancestor = directory.parent();
                }
                let Some(ancestor) = ancestor else {
                    return Setting::Unreadable(Unreadable::NoSuchFile);
                };
                let depth = ancestor.components().count() - 1;
                if depth < 2 {
                    Setting::Unreadable(Unreadable::Missing {
                        path: missing.to_path_buf(),
                    })
                } else if !self.list(&ancestor.to_string_lossy()).is_empty() {
                    Setting::Absent
                } else {
                    Setting::Unreadable(Unreadable::Masked {
                        path: ancestor.to_path_buf(),
                    })
                }
            }
            Err(error) => Setting::Unreadable(Unreadable::Io {
                reason: error.to_string(),
            }),
        }
    }

    /// The bytes of an absolute path (a binary file such as an SMBIOS
    /// entry), or `None` if unreadable.
    pub fn read_bytes(&self, path: &str) -> Option<Vec<u8>> {
        fs::read(self.path(path)).ok()
    }

    /// Whether the path exists.
    pub fn exists(&self, path: &str) -> bool {
        self.path(path).exists()
    }

    /// Names of the entries of a directory, sorted.
    pub fn list(&self, path: &str) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.path(path))
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|entry| entry.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    fn path(&self, path: &str) -> PathBuf {
        self.root.join(Path::new(path.trim_start_matches('/')))
    }
}

/// The selected value of a sysfs choice file such as
/// `always [madvise] never`.
pub fn selected_choice(text: &str) -> Option<&str> {
    let start = text.find('[')?;
    let end = text[start..].find(']')? + start;
    Some(&text[start + 1..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_selected_choice() {
        assert_eq!(selected_choice("always [madvise] never"), Some("madvise"));
        assert_eq!(selected_choice("[always] madvise never"), Some("always"));
        assert_eq!(selected_choice("madvise"), None);
    }
}
