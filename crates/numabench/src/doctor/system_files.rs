//! Reads kernel settings from /proc and /sys under a chosen root, so the
//! checks run unchanged against a prepared directory tree in tests.

use std::fs;
use std::path::{Path, PathBuf};

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
