//! Manual pages and shell completions generated from the clap definitions:
//! every page renders with `man -l`, every visible subcommand has one, and
//! bash completes what a user types.

use super::{numabench, succeeded};
use std::process::Command;

/// `numabench man DIR` writes numabench.1 and a page per visible
/// subcommand (nested ones too); `man -l` renders each without a warning,
/// with the command's name and its options.
#[test]
fn every_man_page_renders() {
    let dir = tempfile::tempdir().unwrap();
    let output = numabench().arg("man").arg(dir.path()).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed = String::from_utf8(output.stdout).unwrap();
    let mut pages: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    pages.sort();
    assert_eq!(listed.lines().count(), pages.len());
    for expected in [
        "numabench.1",
        "numabench-latency.1",
        "numabench-run.1",
        "numabench-matrix-latency.1",
        "numabench-characterize.1",
    ] {
        assert!(
            pages.iter().any(|page| page == expected),
            "{expected} missing: {pages:?}"
        );
    }
    assert!(
        !pages
            .iter()
            .any(|page| page.contains("overdecompose-worker")),
        "a hidden command got a page: {pages:?}"
    );
    for page in &pages {
        let rendered = Command::new("man")
            .arg("-l")
            .arg(dir.path().join(page))
            .env("MANWIDTH", "100")
            .env("MAN_KEEP_FORMATTING", "0")
            .output()
            .expect("man (man-db) runs");
        let text = without_overstrikes(&String::from_utf8_lossy(&rendered.stdout));
        let warnings = String::from_utf8_lossy(&rendered.stderr);
        assert!(rendered.status.success(), "{page}: {warnings}");
        assert!(warnings.trim().is_empty(), "{page} warns: {warnings}");
        let name = page.trim_end_matches(".1");
        assert!(
            text.contains("NAME") && text.contains(name),
            "{page}:\n{text}"
        );
        assert!(text.contains("--help"), "{page} lists no options:\n{text}");
    }
}

/// The text of man's output without grotty's bold and underline
/// overstrikes (`N\x08N`, `_\x08x`).
fn without_overstrikes(text: &str) -> String {
    let mut plain = String::new();
    for character in text.chars() {
        if character == '\u{8}' {
            plain.pop();
        } else {
            plain.push(character);
        }
    }
    plain
}

/// Bash, with the script `numabench completions bash` prints, completes
/// `numabench lat<TAB>` to `latency` and `numabench latency --or<TAB>` to
/// `--order`.
#[test]
fn bash_completes_commands_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("numabench.bash");
    let output = numabench().args(["completions", "bash"]).output().unwrap();
    assert!(output.status.success());
    std::fs::write(&script, &output.stdout).unwrap();
    let complete = |words: &[&str]| {
        let line = words.join(" ");
        let program = format!(
            "source {}; COMP_WORDS=({line}); COMP_CWORD={}; COMP_LINE='{line}'; \
             COMP_POINT=${{#COMP_LINE}}; _numabench numabench {} {}; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display(),
            words.len() - 1,
            words[words.len() - 1],
            words[words.len() - 2],
        );
        let output = succeeded(Command::new("bash").args(["-c", &program]));
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(complete(&["numabench", "lat"]).trim(), "latency");
    assert_eq!(
        complete(&["numabench", "latency", "--or"]).trim(),
        "--order"
    );
}

/// zsh and fish scripts name the commands too; an unknown shell is exit 2
/// naming it.
#[test]
fn other_shells_and_a_bad_shell() {
    for shell in ["zsh", "fish"] {
        let output = numabench().args(["completions", shell]).output().unwrap();
        assert!(output.status.success());
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(
            text.contains("characterize") && text.contains("latency"),
            "{shell}"
        );
    }
    let output = numabench().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("'tcsh'"));
}

/// `numabench --help` fits one screen: at most 50 lines of at most 100
/// columns, every visible command on one line of at most 80 columns, and a
/// "Start here".
#[test]
fn top_level_help_fits_one_screen() {
    let output = numabench()
        .arg("--help")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() <= 50, "{} lines:\n{text}", lines.len());
    for line in &lines {
        assert!(line.chars().count() <= 100, "over 100 columns: {line}");
    }
    assert!(text.contains("Start here:"), "{text}");
    // The shell group names its commands on one line.
    assert!(text.contains("\nShell: completions, man\n"), "{text}");
    for command in [
        "topo",
        "doctor",
        "list",
        "latency",
        "bandwidth",
        "matrix",
        "characterize",
        "stream",
        "run",
        "cluster",
        "report",
        "compare",
        "interference",
    ] {
        let line = lines
            .iter()
            .find(|line| line.trim_start().starts_with(&format!("{command} ")))
            .unwrap_or_else(|| panic!("{command} is not listed:\n{text}"));
        assert!(line.chars().count() <= 80, "over 80 columns: {line}");
    }
}

/// Each command's long help starts with one sentence of what it answers,
/// then an example.
#[test]
fn each_commands_help_starts_with_a_sentence_and_an_example() {
    for command in [
        "latency",
        "bandwidth",
        "characterize",
        "run",
        "report",
        "compare",
        "cache",
    ] {
        let output = numabench().args([command, "--help"]).output().unwrap();
        let text = String::from_utf8(output.stdout).unwrap();
        let mut paragraphs = text.split("\n\n");
        let first = paragraphs.next().unwrap();
        assert!(
            !first.contains('\n') && first.ends_with('.'),
            "{command}: {first}"
        );
        let second = paragraphs.next().unwrap();
        assert!(
            second.starts_with("Example: numabench") || second.starts_with("Example: "),
            "{command}: {second}"
        );
    }
}
