//! `numabench run --policy pin-* -- mpirun ...`: under a real OpenMPI mpirun, each
//! rank's threads run on the rank's own block of CPUs (the pinning shim reads the
//! local rank OpenMPI gives each rank).

use numabench::runner::cores_first_cores;
use numabench::threads::CpuOrder;
use numabench::topology::discover_this_system;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The built pinning shim: `<profile>/deps/` (where `cargo test` builds it) or
/// beside the binary.
fn shim() -> PathBuf {
    let profile = Path::new(env!("CARGO_BIN_EXE_numabench")).parent().unwrap();
    [profile.join("deps"), profile.to_path_buf()]
        .into_iter()
        .map(|dir| dir.join("libnumabench_pin.so"))
        .find(|path| path.is_file())
        .unwrap_or_else(|| {
            panic!(
                "libnumabench_pin.so not in {}/deps or beside it: run `cargo build -p numabench-pin`",
                profile.display()
            )
        })
}

/// examples/pthreads_report.c, compiled into `dir`.
fn report_program(dir: &Path) -> PathBuf {
    let program = dir.join("pthreads_report");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/pthreads_report.c");
    let output = Command::new("cc")
        .args(["-O2", "-pthread", "-o"])
        .arg(&program)
        .arg(source)
        .output()
        .expect("cc (Debian: gcc)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    program
}

/// `(cpu, allowed)` of each line (`main cpu C allowed N`, `thread I cpu C allowed N`).
fn placements(text: &str) -> Vec<(usize, usize)> {
    text.lines()
        .filter(|line| !line.starts_with("threads "))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = |key: &str| -> usize {
                let index = words.iter().position(|word| *word == key).unwrap();
                words[index + 1].parse().unwrap()
            };
            (at("cpu"), at("allowed"))
        })
        .collect()
}

/// Runs 2 ranks of the report program (1 thread each) under `policy`; returns
/// each rank's placements (main thread first).
fn two_ranks(policy: &str) -> Vec<Vec<(usize, usize)>> {
    let dir = tempfile::tempdir().unwrap();
    let program = report_program(dir.path());
    let script = format!(
        "exec {} 1 > {}/rank-$OMPI_COMM_WORLD_LOCAL_RANK",
        program.display(),
        dir.path().display()
    );
    let output = Command::new(env!("CARGO_BIN_EXE_numabench"))
        .args(["run", "--repeat", "1", "--warmup", "0", "--policy", policy])
        .args([
            "--json",
            "--",
            "mpirun",
            "--allow-run-as-root",
            "--oversubscribe",
        ])
        .args(["-np", "2", "--bind-to", "none", "sh", "-c", &script])
        .env("NUMABENCH_PIN_LIB", shim())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{policy}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        document["records"][0]["params"]["pin_warnings"],
        serde_json::json!([]),
        "{policy}"
    );
    (0..2)
        .map(|rank| {
            let path = dir.path().join(format!("rank-{rank}"));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("{policy}: {}: {error}", path.display()));
            let found = placements(&text);
            assert_eq!(found.len(), 2, "{policy}, rank {rank}: {text}");
            found
        })
        .collect()
}

/// pin-compact: rank r gets the r-th half of the compact order (2 CPUs: rank 0 on
/// CPU 0, rank 1 on CPU 1), each thread pinned to one CPU of it.
#[test]
fn pin_compact_gives_each_rank_its_own_half_of_the_cpus() {
    let _alone = crate::alone();
    let topology = discover_this_system().unwrap();
    let order = CpuOrder::Compact.all_allowed(&topology);
    assert!(order.len() >= 2, "needs 2 CPUs: {order:?}");
    let half = order.len() / 2;
    let blocks = [&order[..half], &order[half..]];
    for (rank, placed) in two_ranks("pin-compact").iter().enumerate() {
        let block: Vec<usize> = blocks[rank].iter().map(|cpu| *cpu as usize).collect();
        assert_eq!(
            placed[0],
            (block[0], 1),
            "rank {rank} main thread, block {block:?}"
        );
        assert_eq!(
            placed[1],
            (block[1 % block.len()], 1),
            "rank {rank} thread, block {block:?}"
        );
    }
}

/// pin-k-per-core:2: both ranks on the first core (cores-first order), rank 1
/// starting on the core's next hardware thread where it has one.
#[test]
fn pin_k_per_core_puts_both_ranks_on_one_core() {
    let _alone = crate::alone();
    let topology = discover_this_system().unwrap();
    let core: Vec<usize> = cores_first_cores(&topology)[0]
        .iter()
        .map(|cpu| *cpu as usize)
        .collect();
    for (rank, placed) in two_ranks("pin-k-per-core:2").iter().enumerate() {
        for (index, (cpu, allowed)) in placed.iter().enumerate() {
            assert_eq!(
                (*cpu, *allowed),
                (core[(rank + index) % core.len()], 1),
                "rank {rank}, thread index {index}, core {core:?}"
            );
        }
    }
}

/// An MPI + OpenMP program (tests/mpi/programs/omp_ranks.c) under
/// `mpirun --bind-to none -np 2`: each rank's team under every pin policy is
/// the team it runs as-is (the run's `threads_seen` and no
/// `thread_count_warning`).
///
/// Ignored: NOT fixed yet. The launcher (`mpirun`, no OpenMP runtime) has its
/// main thread pinned to one CPU when it loads, and its forked children take
/// one CPU each at fork, so each rank execs with a one-CPU mask and libgomp's
/// constructor (which runs before the shim's) makes a one-thread team: as-is
/// shows 12 threads seen per run, pin-compact and pin-scatter 10 (each rank
/// "team 1"), and numabench prints the thread-count warning. Tried and
/// withdrawn: an interposed `execve` that execs with all of the list's CPUs
/// gives each rank a team of 2, but each team then spins on its one-CPU block
/// (137 s a run against 2 s as-is); the exec'd mask must be the rank's block
/// (its local rank is in the `envp` passed to execve).
/// Note for whoever fixes it: on a 2-CPU machine with `-np 2`, each rank's
/// block under pin-compact/pin-scatter is ONE CPU, so exec'ing with the
/// rank's block still gives libgomp a one-thread team (threads_seen 10, as
/// today) against as-is's 2 per rank (12): this assertion cannot hold with
/// `OMP_NUM_THREADS` unset and `-np 2` here. With `-np 1` (block = both
/// CPUs) it tells the fix apart: 1 thread today, 2 after, as-is 2.
#[test]
#[ignore = "ranks still exec with a one-CPU mask: issue 21 item A, MPI + OpenMP part, open"]
fn mpi_openmp_ranks_run_their_team_under_pin_policies() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("omp_ranks");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mpi/programs/omp_ranks.c");
    let output = Command::new("mpicc")
        .args(["-O1", "-fopenmp", "-o"])
        .arg(&program)
        .arg(source)
        .output()
        .expect("mpicc (Debian: libopenmpi-dev)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = Command::new(env!("CARGO_BIN_EXE_numabench"))
        .args(["run", "--repeat", "3", "--warmup", "0", "--json"])
        .args([
            "--policy",
            "as-is",
            "--policy",
            "pin-compact",
            "--policy",
            "pin-scatter",
        ])
        .args(["--", "mpirun", "--allow-run-as-root", "--oversubscribe"])
        .args(["-np", "2", "--bind-to", "none"])
        .arg(&program)
        .env("NUMABENCH_PIN_LIB", shim())
        .env_remove("OMP_NUM_THREADS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let summaries: Vec<&serde_json::Value> = document["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|record| record["metric"] == "wall_time")
        .collect();
    assert_eq!(summaries.len(), 3);
    for summary in &summaries {
        assert_eq!(
            summary["params"]["threads_seen"], summaries[0]["params"]["threads_seen"],
            "{}",
            summary["params"]["policy"]
        );
        assert!(
            summary["params"]["thread_count_warning"].is_null(),
            "{stderr}"
        );
    }
}
