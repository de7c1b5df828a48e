//! The POSIX calls that the `nix` crate wraps safely (affinity, resource
//! usage and limits, signals, process groups, memory mappings) are made
//! through it, not through hand-written `unsafe` libc calls: a wrapper
//! written again can get a size, a flag or an error check wrong where
//! nix's is shared and tested. `memory/syscalls.rs` keeps the NUMA calls
//! no crate wraps (mbind, move_pages, ...), and a few calls nix cannot
//! make are listed below with the reason. The LD_PRELOAD shim
//! (`numabench-pin`) and the MPI monitor link libc only and are not
//! checked. Test code is not checked either.

mod common;

use std::path::Path;

/// Calls nix wraps.
const WRAPPED: [&str; 19] = [
    "sched_setaffinity",
    "sched_getaffinity",
    "sched_getcpu",
    "getrusage",
    "getrlimit",
    "setrlimit",
    "mmap",
    "munmap",
    "madvise",
    "mprotect",
    "sigaction",
    "signal",
    "kill",
    "killpg",
    "alarm",
    "setpgid",
    "waitpid",
    "waitid",
    "wait4",
];

/// Raw calls kept on purpose: (file, call, why).
const KEPT: [(&str, &str, &str); 7] = [
    (
        "runner/wait.rs",
        "wait4",
        "nix has no wait4: the child's rusage comes with its status",
    ),
    (
        "runner/wait.rs",
        "sigaction",
        "the sampling timer's signal is a real-time one, which nix's Signal cannot name",
    ),
    (
        "bench/plugin/supervise.rs",
        "waitid",
        "the raw wait status: nix's WaitStatus cannot hold a death by a realtime signal",
    ),
    (
        "bench/plugin/supervise.rs",
        "waitpid",
        "as waitid: the raw status feeds strsignal",
    ),
    (
        "runtime/next_touch.rs",
        "sigaction",
        "the previous SIGSEGV action is read before ours replaces it; nix cannot read one without setting one",
    ),
    (
        "runtime/next_touch.rs",
        "signal",
        "inside that SIGSEGV handler, with the raw actions it chains to",
    ),
    (
        "runtime/next_touch.rs",
        "mprotect",
        "inside that SIGSEGV handler, on raw addresses",
    ),
];

/// `file:line: call` for each raw libc call of a wrapped function in the
/// non-test code of `files`, except `memory/syscalls.rs` and [`KEPT`].
fn raw_calls(files: &[(String, String)]) -> Vec<String> {
    let mut offences = Vec::new();
    for (path, text) in files {
        let test_file = path.ends_with("tests.rs") || path.contains("/tests/");
        if path == "memory/syscalls.rs" || test_file {
            continue;
        }
        let code = text.split("#[cfg(test)]").next().unwrap_or(text);
        for (number, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap_or("");
            for call in WRAPPED {
                let kept = KEPT
                    .iter()
                    .any(|(file, name, _)| file == path && *name == call);
                if line.contains(&format!("libc::{call}(")) && !kept {
                    offences.push(format!("{path}:{}: libc::{call}", number + 1));
                }
            }
        }
    }
    offences
}

#[test]
fn wrapped_posix_calls_go_through_nix() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let library = manifest.join("src");
    let mut files = common::sources(&library, &library);
    let cli = manifest.join("../numabench-cli/src");
    let cli_files = common::sources(&cli, &cli);
    assert!(files.iter().any(|(path, _)| path == "threads/pin.rs"));
    assert!(!cli_files.is_empty());
    files.extend(
        cli_files
            .into_iter()
            .map(|(path, text)| (format!("cli:{path}"), text)),
    );
    let offences = raw_calls(&files);
    assert!(
        offences.is_empty(),
        "raw libc calls that nix wraps (use nix, or add the call to KEPT with the reason):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_scan_finds_a_raw_call_and_spares_the_kept_ones() {
    let files = vec![
        (
            "threads/pin.rs".to_string(),
            "unsafe { libc::sched_setaffinity(0, size, &set) };\n// libc::kill(1, 9)\n#[cfg(test)]\nlibc::mmap(".to_string(),
        ),
        (
            "runner/wait.rs".to_string(),
            "libc::wait4(pid, &mut status, 0, &mut usage)\nlibc::getrusage(0, &mut usage)"
                .to_string(),
        ),
        (
            "memory/syscalls.rs".to_string(),
            "libc::mmap(".to_string(),
        ),
    ];
    assert_eq!(
        raw_calls(&files),
        [
            "threads/pin.rs:1: libc::sched_setaffinity",
            "runner/wait.rs:2: libc::getrusage",
        ]
    );
}
