//! MPI programs inside the emulated-NUMA VM: an `mpicc`-built program runs
//! there as a singleton and under `mpirun -np 2`, with the right ranks; the
//! MPI monitor finds where the ranks' buffers live, on their own node or
//! on the other one.
//!
//! A VM test whose commands run MPI programs boots with
//! `VmOptions { mpi: true }` (`harness::run_in_vm_with`, or
//! `check_topology_with` in `main.rs`); see `mpi_guest.rs` for what the guest
//! then carries.

use super::boot::Part;
use super::placement_checks::all_records;
use super::records::{params_of, params_part};
use super::FIRST_EXTRA_COMMAND;
use numabench_schema::params::{MonitorBufferParams, MonitorRunTags, BUFFER_LOCAL_SHARE};
use numabench_schema::Record;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The MPI program `source` (its text) compiled with `mpicc` into a temp
/// dir (kept alive by the caller) as `name`.
fn build_program(name: &str, source: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("numabench-vm-mpi-")
        .tempdir()
        .expect("temp dir");
    let path = dir.path().join(format!("{name}.c"));
    std::fs::write(&path, source).expect("write source");
    let binary = dir.path().join(name);
    let out = Command::new("mpicc")
        .args(["-O1", "-o"])
        .arg(&binary)
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run mpicc (Debian package libopenmpi-dev): {e}"));
    assert!(
        out.status.success(),
        "mpicc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, binary)
}

/// The MPI program `mpi_hello.c` ([`build_program`]).
fn build_hello() -> (tempfile::TempDir, PathBuf) {
    build_program("mpi_hello", include_str!("mpi_hello.c"))
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

const HELLO: [&str; 2] = ["mpi_hello", "mpirun -np 2 mpi_hello"];

/// `mpi_hello`'s part of the two-socket boot: the program built here.
pub fn hello_part() -> Part {
    let (dir, hello) = build_hello();
    Part {
        binaries: vec![hello],
        keep: vec![dir],
        ..Part::new("mpi_hello", &HELLO, 300)
    }
}

#[test]
fn mpi_hello_runs_in_vm() {
    let run = super::two_sockets::boot().part("mpi_hello");
    let commands = HELLO;
    for (i, size) in [(0, 1u32), (1, 2)] {
        let out = run.stdout_ok(FIRST_EXTRA_COMMAND + i);
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

/// The monitor's `run` of the exchange-heavy `halo` (rows of 4096 doubles,
/// 32 KiB, above the monitor's 16 KiB sampling size). numabench may use
/// CPUs 0 and 1, node 0's, which the ranks inherit (`pin-compact` keeps
/// them there), and `membind:N` (the memory policy mpirun and its ranks inherit)
/// puts their pages on node 0, then on node 1. `--bind-to none`: OpenMPI's
/// own binding (`--bind-to core`, its default for two ranks) resets each
/// rank's memory policy to the default one.
const MONITORED_HALO: &str = "taskset -c 0,1 numabench run --mpi-monitor --policy pin-compact+membind:0 --policy pin-compact+membind:1 --repeat 1 --warmup 0 --json -- mpirun -np 2 --bind-to none halo 4096 4 64";

/// Where the monitor found the ranks' MPI buffers: every sampled page on
/// the ranks' own node with their memory bound there, every one on the
/// other node with it bound to node 1 (a serial initialisation on the
/// other socket looks the same to the ranks).
/// The monitor's part of the two-socket boot: `halo` built here, and the
/// monitor library.
pub fn monitor_part() -> Part {
    let (dir, halo) = build_program("halo", include_str!("../mpi/programs/halo.c"));
    let numabench = Path::new(env!("CARGO_BIN_EXE_numabench"));
    let library =
        crate::shared::monitor_library(numabench.parent().unwrap(), env!("CARGO_MANIFEST_DIR"));
    Part {
        binaries: vec![library, halo],
        keep: vec![dir],
        ..Part::new("mpi_monitor", &[MONITORED_HALO], 600)
    }
}

#[test]
fn the_monitor_finds_mpi_buffers_on_the_ranks_node_or_the_other_one() {
    let run = super::two_sockets::boot().part("mpi_monitor");
    let context = || format!("{}\n{}", run.transcript(), run.console);
    let shares: Vec<(Record, MonitorRunTags, MonitorBufferParams)> =
        all_records(&run, FIRST_EXTRA_COMMAND)
            .into_iter()
            .filter(|r| r.benchmark == "mpi-monitor" && r.metric == BUFFER_LOCAL_SHARE)
            .map(|r| {
                let (tags, params) = (params_part(&r), params_of(&r));
                (r, tags, params)
            })
            .collect();
    for (policy, local) in [
        ("pin-compact+membind:0", 1.0),
        ("pin-compact+membind:1", 0.0),
    ] {
        let ranks: Vec<&(Record, MonitorRunTags, MonitorBufferParams)> = shares
            .iter()
            .filter(|(_, tags, _)| tags.policy.as_deref() == Some(policy))
            .collect();
        assert_eq!(
            ranks.len(),
            2,
            "{policy}: one share per rank\n{}",
            context()
        );
        for (record, _, params) in ranks {
            assert_eq!(record.value, local, "{policy}: {record:?}\n{}", context());
            let answered = params.pages_local.unwrap_or(0) + params.pages_remote.unwrap_or(0);
            assert!(answered >= 4, "{policy}: {record:?}");
            // Node 0's CPUs only (numabench's own affinity, which the ranks inherit).
            let cpus = params.rank.cpus_ran.as_ref().expect("cpus_ran");
            assert!(cpus.iter().all(|&cpu| cpu == 0 || cpu == 1), "{record:?}");
            assert!(params.sampled_buffers.is_some_and(|n| n >= 1), "{record:?}");
        }
    }
}
