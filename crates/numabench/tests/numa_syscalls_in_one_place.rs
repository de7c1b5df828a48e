//! The raw NUMA system calls are made in one place, `memory/syscalls.rs`,
//! with the MPOL_* constants from libc or defined there once: a second
//! copy of a wrapper or of a constant can drift from the first (a mask
//! size, a flag value) without any test noticing.

mod common;

use std::path::Path;

/// The system calls that only `memory/syscalls.rs` may make.
const NUMA_SYSCALLS: [&str; 7] = [
    "SYS_mbind",
    "SYS_set_mempolicy",
    "SYS_get_mempolicy",
    "SYS_move_pages",
    "SYS_migrate_pages",
    "SYS_getcpu",
    "SYS_set_mempolicy_home_node",
];

/// Lines outside `memory/syscalls.rs` that name a NUMA system call number
/// or define an MPOL_* constant (test code included).
fn offences(files: &[(String, String)]) -> Vec<String> {
    let mut offences = Vec::new();
    for (path, text) in files {
        if path == "memory/syscalls.rs" {
            continue;
        }
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let names_syscall = NUMA_SYSCALLS.iter().any(|name| {
                code.match_indices(name).any(|(at, _)| {
                    !code[at + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            });
            if names_syscall || code.contains("const MPOL_") {
                offences.push(format!("{path}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    offences
}

#[test]
fn numa_system_calls_are_made_only_in_memory_syscalls() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = common::sources(&root, &root);
    assert!(files.iter().any(|(path, _)| path == "memory/syscalls.rs"));
    let offences = offences(&files);
    assert!(
        offences.is_empty(),
        "NUMA system calls or MPOL_* constants outside memory/syscalls.rs:\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_scan_finds_a_raw_call_and_a_local_constant() {
    let files = vec![
        (
            "apps/elsewhere.rs".to_string(),
            "unsafe { libc::syscall(\n    libc::SYS_move_pages,\n 0) };\nconst MPOL_MF_MOVE: i32 = 2;\n"
                .to_string(),
        ),
        (
            "memory/syscalls.rs".to_string(),
            "libc::syscall(libc::SYS_mbind, 0);".to_string(),
        ),
        (
            "apps/fine.rs".to_string(),
            "// libc::SYS_getcpu in a comment\nlet x = SYS_getcpu_count;".to_string(),
        ),
    ];
    assert_eq!(
        offences(&files),
        [
            "apps/elsewhere.rs:2: libc::SYS_move_pages,",
            "apps/elsewhere.rs:4: const MPOL_MF_MOVE: i32 = 2;"
        ]
    );
}
