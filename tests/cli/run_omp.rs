//! `numabench run` with unmodified OpenMP programs (libgomp, from gcc and
//! gfortran; LLVM's libomp when `libomp-dev` is installed): under every pin
//! policy the program runs the team it runs as-is and waits as it does
//! as-is. Before the fix the main thread was pinned to one CPU before exec,
//! so libgomp made a one-thread team (`OMP_NUM_THREADS` unset), or slept in
//! futex waits (set: hundreds of voluntary switches per run against a few).

use super::numabench;
use super::run::{allowed_cpus, shim};
use std::path::{Path, PathBuf};

const PROGRAMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/cli/programs");

/// Compiles `source` (under tests/cli/programs) with `compiler` and `flags`
/// into `dir`.
fn compile(compiler: &str, flags: &[&str], source: &str, dir: &Path) -> PathBuf {
    let binary = dir.join(source.replace('.', "_"));
    let output = std::process::Command::new(compiler)
        .args(flags)
        .arg(Path::new(PROGRAMS).join(source))
        .arg("-o")
        .arg(&binary)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {compiler}: {error}"));
    assert!(
        output.status.success(),
        "{compiler} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    binary
}

/// Per policy: the threads seen and the voluntary switches of each run.
type Figures = Vec<(String, Vec<u64>, Vec<u64>)>;

/// Runs `command` as-is and under every pin policy, `OMP_NUM_THREADS` as
/// given (removed when `None`); returns each policy's figures and stderr.
fn run_policies(command: &[&str], threads: Option<&str>) -> (Figures, String) {
    let policies = ["as-is", "pin-compact", "pin-scatter", "pin-k-per-core:1"];
    let mut cmd = numabench();
    cmd.args(["run", "--repeat", "3", "--warmup", "1", "--json"]);
    for policy in policies {
        cmd.args(["--policy", policy]);
    }
    cmd.arg("--").args(command).env("NUMABENCH_PIN_LIB", shim());
    match threads {
        Some(threads) => cmd.env("OMP_NUM_THREADS", threads),
        None => cmd.env_remove("OMP_NUM_THREADS"),
    };
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{stderr}");
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let figures = policies
        .iter()
        .map(|policy| {
            let runs: Vec<&serde_json::Value> = document["records"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["metric"] == "run_wall_time" && r["params"]["policy"] == *policy)
                .collect();
            let field = |name: &str| -> Vec<u64> {
                runs.iter()
                    .map(|r| r["params"][name].as_f64().unwrap() as u64)
                    .collect()
            };
            (
                policy.to_string(),
                field("threads_seen"),
                field("voluntary_switches"),
            )
        })
        .collect();
    (figures, stderr)
}

fn median(values: &[u64]) -> u64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted[sorted.len() / 2]
}

/// The team and the waiting match as-is under every pin policy. Team: the
/// median threads seen per run is the same (and the program's team, the
/// CPUs numabench may use or `OMP_NUM_THREADS`, is at least that many).
/// Waiting: a spinning team makes a few voluntary switches per run, a
/// sleeping one one or more per barrier (20,000 barriers); a pinned
/// policy's median may exceed as-is's largest by at most 300, room for a
/// loaded two-core machine, far below what sleeping waits make.
fn assert_like_as_is(command: &[&str], threads: Option<&str>) {
    let (figures, stderr) = run_policies(command, threads);
    let expected = threads.map_or(allowed_cpus().len(), |t| t.parse().unwrap()) as u64;
    let (_, as_is_threads, as_is_switches) = &figures[0];
    assert!(median(as_is_threads) >= expected, "{figures:?}");
    let ceiling = as_is_switches.iter().max().unwrap() + 300;
    for (policy, seen, switches) in &figures[1..] {
        assert_eq!(
            median(seen),
            median(as_is_threads),
            "{policy}: threads seen {figures:?}"
        );
        assert!(
            median(switches) <= ceiling,
            "{policy}: voluntary switches {figures:?}"
        );
    }
    assert!(!stderr.contains("different numbers of threads"), "{stderr}");
}

#[test]
fn gcc_openmp_runs_its_team_and_spins_under_every_pin_policy() {
    let dir = tempfile::tempdir().unwrap();
    let program = compile("gcc", &["-O1", "-fopenmp"], "omp_team.c", dir.path());
    let program = program.to_str().unwrap();
    assert_like_as_is(&[program], None);
    assert_like_as_is(&[program], Some(&allowed_cpus().len().to_string()));
}

#[test]
fn gfortran_openmp_runs_its_team_and_spins_under_every_pin_policy() {
    let dir = tempfile::tempdir().unwrap();
    let program = compile("gfortran", &["-O1", "-fopenmp"], "omp_team.f90", dir.path());
    let program = program.to_str().unwrap();
    assert_like_as_is(&[program], None);
    assert_like_as_is(&[program], Some(&allowed_cpus().len().to_string()));
}

/// LLVM's libomp reads the mask lazily, at the first parallel region.
/// Needs Debian's `libomp-dev` (scripts/setup installs it).
#[test]
fn llvm_libomp_runs_its_team_and_spins_under_every_pin_policy() {
    let dir = tempfile::tempdir().unwrap();
    let program = compile(
        "clang",
        &["-O1", "-fopenmp=libomp"],
        "omp_team.c",
        dir.path(),
    );
    let program = program.to_str().unwrap();
    assert_like_as_is(&[program], None);
    assert_like_as_is(&[program], Some(&allowed_cpus().len().to_string()));
}
