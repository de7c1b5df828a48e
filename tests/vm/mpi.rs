//! MPI programs inside the emulated-NUMA VM: an `mpicc`-built program runs
//! there as a singleton and under `mpirun -np 2`, with the right ranks.
//!
//! A VM test whose commands run MPI programs boots with
//! `VmOptions { mpi: true }` (`harness::run_in_vm_with`, or
//! `check_topology_with` in `main.rs`); see `mpi_guest.rs` for what the guest
//! then carries.

use crate::harness::{self, VmOptions};
use crate::topologies;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// The MPI program `mpi_hello.c` compiled with `mpicc` into a temp dir
/// (kept alive by the caller).
fn build_hello() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("numabench-vm-mpi-")
        .tempdir()
        .expect("temp dir");
    let source = dir.path().join("mpi_hello.c");
    std::fs::write(&source, include_str!("mpi_hello.c")).expect("write source");
    let binary = dir.path().join("mpi_hello");
    let out = Command::new("mpicc")
        .arg("-o")
        .arg(&binary)
        .arg(&source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run mpicc (Debian package libopenmpi-dev): {e}"));
    assert!(
        out.status.success(),
        "mpicc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, binary)
}

/// `(rank, size, sum, host)` of each `rank=R size=S sum=X host=H` line.
fn parse_ranks(stdout: &str) -> Vec<(u32, u32, u32, String)> {
    stdout
        .lines()
        .filter_map(|line| {
            let field = |key: &str| {
                line.split_whitespace()
                    .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
            };
            Some((
                field("rank")?.parse().ok()?,
                field("size")?.parse().ok()?,
                field("sum")?.parse().ok()?,
                field("host")?.to_string(),
            ))
        })
        .collect()
}

#[test]
fn mpi_hello_runs_in_vm() {
    let (_dir, hello) = build_hello();
    let topo = topologies::two_sockets();
    let commands = ["mpi_hello", "mpirun -np 2 mpi_hello"];
    let run = harness::run_in_vm_with(
        &topo,
        &[&hello],
        &commands,
        VmOptions {
            mpi: true,
            ..VmOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "[{}] VM run took {:.1} s\n{}",
        topo.name,
        run.duration.as_secs_f64(),
        run.transcript()
    );
    for (i, size) in [(0, 1u32), (1, 2)] {
        let out = run.stdout_ok(i);
        let ranks = parse_ranks(out);
        let context = || format!("{}\n{}", run.transcript(), run.console);
        assert_eq!(
            ranks.len(),
            size as usize,
            "`{}`: one line per rank expected\n{}",
            commands[i],
            context()
        );
        let seen: BTreeSet<u32> = ranks.iter().map(|r| r.0).collect();
        assert_eq!(
            seen,
            (0..size).collect(),
            "`{}`: ranks\n{}",
            commands[i],
            context()
        );
        for (rank, s, sum, host) in &ranks {
            assert_eq!(
                *s,
                size,
                "`{}` rank {rank}: size\n{}",
                commands[i],
                context()
            );
            assert_eq!(
                *sum,
                size * (size + 1) / 2,
                "`{}` rank {rank}: MPI_Allreduce\n{}",
                commands[i],
                context()
            );
            assert_eq!(host, crate::mpi_guest::GUEST_HOSTNAME, "`{}`", commands[i]);
        }
    }
}
