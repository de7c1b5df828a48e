//! The clock and Ctrl-C handling serve the micro-benchmarks, the
//! applications and `numabench run` alike, so they are top-level modules
//! (`numabench::clock`, `numabench::interrupt`), not parts of `bench` that
//! the others reach into.

use std::fs;
use std::path::Path;

const SHARED_NAMES: [&str; 4] = [
    "Stopwatch",
    "tsc_ghz",
    "interrupted",
    "install_interrupt_handler",
];

/// The `use` statement that ends a `;`-separated piece of source, on one
/// line (comments and other lines before it dropped).
fn use_statement(piece: &str) -> Option<String> {
    let lines: Vec<&str> = piece
        .lines()
        .map(str::trim)
        .skip_while(|line| !line.starts_with("use ") && !line.starts_with("pub use "))
        .collect();
    (!lines.is_empty()).then(|| lines.join(" "))
}

/// Whether a path in `statement` goes through a module named `bench`
/// (`crate::bench::`, `numabench::bench::`, `super::clock` inside bench).
fn names_bench(statement: &str) -> bool {
    statement
        .match_indices("bench::")
        .any(|(at, _)| !statement[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        || statement.contains("super::clock")
        || statement.contains("super::interrupt")
}

/// `use` statements (whole, across lines) of every source under `directory`
/// that take a clock or interrupt name from `bench`.
fn imports_from_bench(directory: &Path, offences: &mut Vec<String>) {
    for entry in fs::read_dir(directory).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            imports_from_bench(&path, offences);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            let text = fs::read_to_string(&path).unwrap();
            for statement in text.split(';').filter_map(use_statement) {
                if names_bench(&statement)
                    && SHARED_NAMES.iter().any(|name| statement.contains(name))
                {
                    offences.push(format!("{}: {statement}", path.display()));
                }
            }
        }
    }
}

#[test]
fn clock_and_interrupt_are_top_level_modules() {
    let stopwatch = numabench::clock::Stopwatch::start();
    assert!(stopwatch.seconds() >= 0.0);
    let _ = numabench::clock::tsc_ghz();
    assert!(!numabench::interrupt::interrupted());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(!manifest.join("src/bench/clock.rs").exists());
    assert!(!manifest.join("src/bench/interrupt.rs").exists());
}

#[test]
fn nothing_takes_the_clock_or_interrupt_from_bench() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut offences = Vec::new();
    imports_from_bench(&manifest.join("src"), &mut offences);
    imports_from_bench(&manifest.join("../numabench-cli/src"), &mut offences);
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}
