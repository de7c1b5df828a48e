//! The library never prints: what it finds travels with its results and
//! errors, and the command decides what the user sees. Every print macro
//! in the library's sources outside test code is a defect.

use std::fs;
use std::path::Path;

/// The non-test part of a source file: up to its `#[cfg(test)]` module.
fn non_test_part(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or(text)
}

fn collect_offences(directory: &Path, offences: &mut Vec<String>) {
    for entry in fs::read_dir(directory).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            collect_offences(&path, offences);
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            let text = fs::read_to_string(&path).unwrap();
            for (number, line) in non_test_part(&text).lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if ["println!", "eprintln!", "print!(", "eprint!(", "dbg!("]
                    .iter()
                    .any(|print| code.contains(print))
                {
                    offences.push(format!(
                        "{}:{}: {}",
                        path.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
}

#[test]
fn no_print_macro_outside_test_code() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offences = Vec::new();
    collect_offences(&source, &mut offences);
    assert!(
        offences.is_empty(),
        "the library prints:\n{}",
        offences.join("\n")
    );
}
