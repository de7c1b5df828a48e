//! What the architecture tests share: the sources they read. (Each test
//! file compiles this module on its own and uses a part of it.)
#![allow(dead_code)]

use std::fs;
use std::path::Path;

/// Every `.rs` file under `directory`, as (its path relative to `root`, its
/// text), sorted by path.
pub fn sources(root: &Path, directory: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    collect(root, directory, &mut files);
    files.sort();
    files
}

fn collect(root: &Path, directory: &Path, files: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(directory).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(root, &path, files);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            let relative = path.strip_prefix(root).unwrap().display().to_string();
            files.push((relative, fs::read_to_string(&path).unwrap()));
        }
    }
}

/// The library's and the CLI's sources, paths relative to the library's
/// manifest (`src/...`, `../numabench-cli/src/...`).
pub fn library_and_cli() -> Vec<(String, String)> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = sources(manifest, &manifest.join("src"));
    files.extend(sources(manifest, &manifest.join("../numabench-cli/src")));
    assert!(
        files.iter().any(|(path, _)| path == "src/threads/pool.rs")
            && files
                .iter()
                .any(|(path, _)| path == "../numabench-cli/src/main.rs"),
        "the sources were not found"
    );
    files
}

/// Whether `path` holds only test code (`tests.rs`, `*_tests.rs`, a
/// `tests/` folder).
pub fn test_file(path: &str) -> bool {
    path.ends_with("/tests.rs") || path.ends_with("_tests.rs") || path.contains("/tests/")
}

/// The non-test part of a source file: up to its `#[cfg(test)]` module,
/// comments dropped.
pub fn code(text: &str) -> String {
    text.split("#[cfg(test)]")
        .next()
        .unwrap_or(text)
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}
