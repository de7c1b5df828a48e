//! Build script: the commit this numabench was built from, so `--version`
//! and every record's metadata name the build (`NUMABENCH_COMMIT` in the
//! library's environment). Taken from `NUMABENCH_COMMIT` when a packager
//! sets it, else from git when building in a checkout, else `unknown`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// Watches `file` when it exists: a missing file would make cargo rerun
/// this script, and rebuild the library, on every build.
fn watch(file: String) {
    if Path::new(&file).exists() {
        println!("cargo:rerun-if-changed={file}");
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=NUMABENCH_COMMIT");
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let commit = match std::env::var("NUMABENCH_COMMIT") {
        Ok(commit) if !commit.trim().is_empty() => commit.trim().to_string(),
        _ => {
            // Rebuild when HEAD moves: HEAD itself, the branch it names, packed refs.
            for path in ["HEAD", "packed-refs"] {
                if let Some(file) = git(
                    &dir,
                    &["rev-parse", "--path-format=absolute", "--git-path", path],
                ) {
                    watch(file);
                }
            }
            if let Some(branch) = git(&dir, &["symbolic-ref", "-q", "HEAD"]) {
                if let Some(file) = git(
                    &dir,
                    &["rev-parse", "--path-format=absolute", "--git-path", &branch],
                ) {
                    watch(file);
                }
            }
            git(&dir, &["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".to_string())
        }
    };
    println!("cargo:rustc-env=NUMABENCH_COMMIT={commit}");
}
