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

/// The non-test part of a source file, comments dropped: every item under
/// `#[cfg(test)]` left out (an inline `mod tests { ... }` to its closing
/// brace, a `mod tests;` declaration or a `use` to its semicolon), the
/// code after it kept. Removed text keeps its line breaks, so a line of
/// the result is the same line of the file.
pub fn code(text: &str) -> String {
    const TEST: &str = "#[cfg(test)]";
    let mut kept = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(TEST) {
        kept.push_str(&rest[..at]);
        let item = &rest[at + TEST.len()..];
        let end = item_end(item);
        kept.extend(item[..end].chars().filter(|&c| c == '\n'));
        rest = &item[end..];
    }
    kept.push_str(rest);
    kept.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the item `text` starts with ends: after its first `;` outside
/// brackets, or after the brace that closes its first `{`, whichever comes
/// first (the whole text if neither does). Comments, strings and
/// character literals are skipped, so a brace in them does not count.
fn item_end(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut brackets = 0usize;
    let mut braces = 0usize;
    let mut at = 0;
    while at < bytes.len() {
        let rest = &text[at..];
        let after_identifier =
            at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if rest.starts_with("//") {
            at += rest.find('\n').unwrap_or(rest.len());
            continue;
        }
        if rest.starts_with("/*") {
            at += rest.find("*/").map_or(rest.len(), |end| end + 2);
            continue;
        }
        let raw_hashes = rest
            .strip_prefix('r')
            .filter(|_| !after_identifier)
            .map(|raw| raw.len() - raw.trim_start_matches('#').len())
            .filter(|&hashes| rest[1 + hashes..].starts_with('"'));
        if let Some(hashes) = raw_hashes {
            let close = format!("\"{}", "#".repeat(hashes));
            let body = &rest[2 + hashes..];
            at += 2
                + hashes
                + body
                    .find(&close)
                    .map_or(body.len(), |end| end + close.len());
            continue;
        }
        match bytes[at] {
            b'"' => {
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if rest.starts_with("'\\") => {
                at += 3 + rest.get(3..).and_then(|tail| tail.find('\'')).unwrap_or(0);
            }
            b'\'' if rest[1..].chars().nth(1) == Some('\'') => {
                at += 1 + rest[1..].chars().next().map_or(0, char::len_utf8);
            }
            b'(' | b'[' => brackets += 1,
            b')' | b']' => brackets = brackets.saturating_sub(1),
            b'{' => braces += 1,
            b'}' if braces > 0 => {
                braces -= 1;
                if braces == 0 {
                    return at + 1;
                }
            }
            b';' if braces == 0 && brackets == 0 => return at + 1,
            _ => {}
        }
        at += rest.chars().next().map_or(1, char::len_utf8);
    }
    text.len()
}
