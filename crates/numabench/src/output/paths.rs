//! Refusing one file named by two outputs (`--csv x --jsonl x`): both
//! sinks would write into the same file and leave neither format readable,
//! and the user would learn it only after the whole run.

use super::pipeline::OutputError;
use std::path::{Path, PathBuf};

/// The path the file `path` is, or would be once created: the file itself
/// canonicalized when it exists (symlinks and `..` resolved), else its
/// existing parent directory canonicalized plus its name, else the path
/// made absolute.
pub fn file_identity(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if let (Ok(directory), Some(name)) = (parent.canonicalize(), path.file_name()) {
        return directory.join(name);
    }
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Fails with [`OutputError::SameFile`] if two of the named outputs
/// (`(flag, path)`, e.g. `("--csv", path)`) are the same file.
pub fn check_distinct_files(outputs: &[(&str, &Path)]) -> Result<(), OutputError> {
    let identities: Vec<PathBuf> = outputs
        .iter()
        .map(|(_, path)| file_identity(path))
        .collect();
    for (later, identity) in identities.iter().enumerate() {
        if let Some(earlier) = identities[..later].iter().position(|seen| seen == identity) {
            return Err(OutputError::SameFile {
                first: outputs[earlier].0.to_string(),
                second: outputs[later].0.to_string(),
                path: outputs[later].1.to_path_buf(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(first: &Path, second: &Path) -> bool {
        check_distinct_files(&[("--csv", first), ("--jsonl", second)]).is_err()
    }

    #[test]
    fn spellings_of_one_new_file_are_the_same_file() {
        let directory = tempfile::tempdir().unwrap();
        let plain = directory.path().join("out");
        let dotted = directory.path().join(".").join("out");
        let up = directory.path().join("sub").join("..").join("out");
        std::fs::create_dir(directory.path().join("sub")).unwrap();
        assert!(same(&plain, &dotted));
        assert!(same(&plain, &up));
        assert!(!same(&plain, &directory.path().join("other")));
        // Nothing was created by checking.
        assert!(!plain.exists());
    }

    #[test]
    fn a_symlink_to_an_existing_file_is_that_file() {
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("results");
        std::fs::write(&file, "").unwrap();
        let link = directory.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(same(&file, &link));
    }

    #[test]
    fn the_error_names_both_flags_and_the_file() {
        let error =
            check_distinct_files(&[("--markdown", Path::new("x")), ("--csv", Path::new("./x"))])
                .unwrap_err()
                .to_string();
        assert!(
            error.contains("--markdown") && error.contains("--csv") && error.contains("'./x'"),
            "{error}"
        );
    }
}
