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
