//! Finding and loading plugins: `NUMABENCH_PLUGIN_PATH` (directories and
//! files, colon-separated) and files named on the command line. A file that
//! is not a plugin of this ABI is refused, naming the file.

use super::abi::{EntryFunction, RawPlugin, ABI_VERSION, ENTRY_SYMBOL};
use std::ffi::{c_char, CStr};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The environment variable listing plugin directories and files.
pub const PLUGIN_PATH_VARIABLE: &str = "NUMABENCH_PLUGIN_PATH";

/// Why a plugin was refused.
///
/// Always the user's fault: the plugin files given, or their names.
#[derive(Debug, Error)]
pub enum PluginError {
    #[error("plugin {file}: no such file")]
    Missing { file: String },
    #[error("plugin {file}: cannot load it: {reason}")]
    Open { file: String, reason: String },
    #[error("plugin {file}: no numabench_plugin_v1 symbol (not a numabench plugin, or built for another ABI)")]
    MissingSymbol { file: String },
    #[error("plugin {file}: ABI version {found}, this numabench speaks version {expected} (rebuild it against include/numabench_plugin.h)")]
    WrongVersion {
        file: String,
        found: u32,
        expected: u32,
    },
    #[error("plugin {file}: {what}")]
    Malformed { file: String, what: String },
    #[error("plugin {name} ({file}) and {other} both call themselves {name}")]
    Duplicate {
        name: String,
        file: String,
        other: String,
    },
    #[error("unknown plugin '{name}' (found: {found})")]
    Unknown { name: String, found: String },
}

crate::error::all_faulty!(Usage: PluginError);

/// A parameter a plugin declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginParam {
    pub name: String,
    pub description: String,
    pub default: String,
}

/// A loaded plugin: its library stays loaded while this lives.
#[derive(Debug)]
pub struct Plugin {
    pub file: PathBuf,
    pub name: String,
    pub description: String,
    pub params: Vec<PluginParam>,
    pub(super) descriptor: *const RawPlugin,
    _library: libloading::Library,
}

/// C string to String; `None` for a null pointer.
///
/// # Safety
/// `text` is null or a NUL-terminated string that outlives the call.
unsafe fn text(text: *const c_char) -> Option<String> {
    if text.is_null() {
        return None;
    }
    // SAFETY: non-null, and NUL-terminated and alive by the caller's contract.
    Some(
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned(),
    )
}

impl Plugin {
    /// Loads the plugin in `file`, checking its ABI version and descriptor.
    pub fn load(file: &Path) -> Result<Plugin, PluginError> {
        let name = file.display().to_string();
        if !file.is_file() {
            return Err(PluginError::Missing { file: name });
        }
        // dlopen needs a path with a slash to not search the library path.
        let path = if file.is_absolute() {
            file.to_path_buf()
        } else {
            Path::new(".").join(file)
        };
        // SAFETY: loading runs the library's initialisers; a plugin is code the user asked to
        // run, as with LD_PRELOAD. Nothing else is assumed about it here.
        let library =
            unsafe { libloading::Library::new(&path) }.map_err(|error| PluginError::Open {
                file: name.clone(),
                reason: error.to_string(),
            })?;
        // SAFETY: the symbol's type is the header's `numabench_plugin_v1`.
        let entry: libloading::Symbol<EntryFunction> = unsafe { library.get(ENTRY_SYMBOL) }
            .map_err(|_| PluginError::MissingSymbol { file: name.clone() })?;
        // SAFETY: the header's contract: returns a descriptor in static storage (or null).
        let descriptor = unsafe { entry() };
        let malformed = |what: &str| PluginError::Malformed {
            file: name.clone(),
            what: what.to_string(),
        };
        if descriptor.is_null() {
            return Err(malformed("numabench_plugin_v1 returned no descriptor"));
        }
        // SAFETY: non-null; points to the plugin's static descriptor, alive while the library is.
        let raw = unsafe { &*descriptor };
        if raw.abi_version != ABI_VERSION {
            return Err(PluginError::WrongVersion {
                file: name,
                found: raw.abi_version,
                expected: ABI_VERSION,
            });
        }
        // SAFETY: the header says these are NUL-terminated strings in static storage.
        let plugin_name = unsafe { text(raw.name) }.ok_or_else(|| malformed("no name"))?;
        if plugin_name.is_empty()
            || !plugin_name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(malformed(&format!(
                "name '{plugin_name}' is not [a-z0-9-]+"
            )));
        }
        if raw.run.is_none() {
            return Err(malformed("no run function"));
        }
        let mut params = Vec::new();
        if raw.param_count > 0 {
            if raw.params.is_null() {
                return Err(malformed("param_count without params"));
            }
            // SAFETY: the header: `params` points to `param_count` entries in static storage.
            let list = unsafe { std::slice::from_raw_parts(raw.params, raw.param_count) };
            for param in list {
                // SAFETY: as above, each field a static C string (or null).
                let (param_name, description, default) = unsafe {
                    (
                        text(param.name),
                        text(param.description),
                        text(param.default_value),
                    )
                };
                params.push(PluginParam {
                    name: param_name.ok_or_else(|| malformed("a parameter without a name"))?,
                    description: description.unwrap_or_default(),
                    default: default.unwrap_or_default(),
                });
            }
        }
        Ok(Plugin {
            file: file.to_path_buf(),
            name: plugin_name,
            // SAFETY: as for the name.
            description: unsafe { text(raw.description) }.unwrap_or_default(),
            params,
            descriptor,
            _library: library,
        })
    }
}

/// The plugin files `path_list` (NUMABENCH_PLUGIN_PATH's value) names:
/// every `*.so` of each directory (sorted), and each file as given.
pub fn plugin_files(path_list: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in path_list.split(':').filter(|entry| !entry.is_empty()) {
        let path = Path::new(entry);
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| entry.path())
                .filter(|file| file.extension().is_some_and(|ext| ext == "so"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.to_path_buf());
        }
    }
    files
}

/// Loads the plugins of NUMABENCH_PLUGIN_PATH and of `extra` (--plugin
/// files), refusing the first bad one and names used twice.
pub fn discover(environment: Option<&str>, extra: &[PathBuf]) -> Result<Vec<Plugin>, PluginError> {
    let mut plugins: Vec<Plugin> = Vec::new();
    let files = environment
        .map(plugin_files)
        .unwrap_or_default()
        .into_iter()
        .chain(extra.iter().cloned());
    for file in files {
        let plugin = Plugin::load(&file)?;
        if let Some(other) = plugins.iter().find(|other| other.name == plugin.name) {
            if other.file == plugin.file {
                continue;
            }
            return Err(PluginError::Duplicate {
                name: plugin.name.clone(),
                file: plugin.file.display().to_string(),
                other: other.file.display().to_string(),
            });
        }
        plugins.push(plugin);
    }
    Ok(plugins)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Directories give their `*.so` files in name order, files come as
    /// given, empty entries are skipped; a missing file is refused by name.
    #[test]
    fn the_plugin_path_lists_directories_and_files() {
        let directory = tempfile::tempdir().unwrap();
        for name in ["b.so", "a.so", "notes.txt"] {
            std::fs::write(directory.path().join(name), b"").unwrap();
        }
        let list = format!("{}::/elsewhere/c.so", directory.path().display());
        assert_eq!(
            plugin_files(&list),
            vec![
                directory.path().join("a.so"),
                directory.path().join("b.so"),
                PathBuf::from("/elsewhere/c.so"),
            ]
        );
        let error = Plugin::load(Path::new("/elsewhere/c.so")).unwrap_err();
        assert_eq!(error.to_string(), "plugin /elsewhere/c.so: no such file");
        let error = Plugin::load(&directory.path().join("a.so")).unwrap_err();
        assert!(matches!(error, PluginError::Open { .. }), "{error}");
    }
}
