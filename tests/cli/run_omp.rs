//! `numabench run` with unmodified OpenMP programs (libgomp, from gcc and
//! gfortran; LLVM's libomp when `libomp-dev` is installed): under every pin
//! policy the program runs the team it runs as-is and waits as it does
//! as-is. Before the fix the main thread was pinned to one CPU before exec,
//! so libgomp made a one-thread team (`OMP_NUM_THREADS` unset), or slept in
//! futex waits (set: hundreds of voluntary switches per run against a few).

use super::records::params_of;
use super::run::run_params;
use super::run::{allowed_cpus, shim};
use super::{numabench, typed_stdout, with_metric};
use numabench_schema::params::RunSummaryParams;
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

/// The policies compared, and the runs each makes (`--warmup 1 --repeat 3`).
const POLICIES: [&str; 4] = ["as-is", "pin-compact", "pin-scatter", "pin-k-per-core:1"];
const RUNS_PER_POLICY: usize = 4;

/// Runs `command` as-is and under every pin policy, `OMP_NUM_THREADS` as
/// given (removed when `None`); returns each policy's figures, the team of
/// every run (warm-ups included) as the program wrote it to `OMP_TEAM_FILE`,
/// and stderr.
fn run_policies(command: &[&str], threads: Option<&str>) -> (Figures, Vec<u64>, String) {
    let dir = tempfile::tempdir().unwrap();
    let teams_file = dir.path().join("teams");
    let mut cmd = numabench();
    cmd.args(["run", "--repeat", "3", "--warmup", "1", "--json"]);
    for policy in POLICIES {
        cmd.args(["--policy", policy]);
    }
    cmd.arg("--")
        .args(command)
        .env("NUMABENCH_PIN_LIB", shim())
        .env("OMP_TEAM_FILE", &teams_file);
    match threads {
        Some(threads) => cmd.env("OMP_NUM_THREADS", threads),
        None => cmd.env_remove("OMP_NUM_THREADS"),
    };
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{stderr}");
    let teams = read_teams(&teams_file);
    let (_, records) = typed_stdout("run OpenMP", &output.stdout);
    let figures = POLICIES
        .iter()
        .map(|policy| {
            let runs: Vec<_> = with_metric(&records, "run_wall_time")
                .into_iter()
                .map(run_params)
                .filter(|r| r.policy.as_deref() == Some(*policy))
                .collect();
            let threads_seen = runs
                .iter()
                .map(|r| {
                    r.counts
                        .as_ref()
                        .and_then(|counts| counts.threads_seen)
                        .expect("threads_seen")
                })
                .collect();
            let switches = runs
                .iter()
                .map(|r| r.voluntary_switches.expect("voluntary_switches") as u64)
                .collect();
            (policy.to_string(), threads_seen, switches)
        })
        .collect();
    (figures, teams, stderr)
}

/// The teams the runs wrote to `OMP_TEAM_FILE`, one line each, in run order.
fn read_teams(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
        .lines()
        .map(|line| line.trim().parse().unwrap())
        .collect()
}

/// The team the warning names for `policy` ("... as-is 2, pin-compact 1)").
fn policy_count(warning: &str, policy: &str) -> u64 {
    let after = warning
        .split(&format!("{policy} "))
        .nth(1)
        .unwrap_or_else(|| panic!("{policy} not in {warning}"));
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no count after {policy} in {warning}"))
}

fn median(values: &[u64]) -> u64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted[sorted.len() / 2]
}

/// The team and the waiting match as-is under every pin policy. Team: every
/// run of every policy made the program's team (the CPUs numabench may use,
/// or `OMP_NUM_THREADS`), as the program itself reports it, and the median
/// threads seen per run is the same as as-is's (the program runs its team
/// for 0.3 s, long enough for the sampler however busy the machine).
/// Waiting: a spinning team makes a few voluntary switches per run, a
/// sleeping one one or more per barrier (thousands of barriers in 0.3 s);
/// a pinned policy's median may exceed as-is's largest by at most 300,
/// room for a loaded two-core machine, far below what sleeping waits make.
fn assert_like_as_is(command: &[&str], threads: Option<&str>) {
    let (figures, teams, stderr) = run_policies(command, threads);
    let expected = threads.map_or(allowed_cpus().len(), |t| t.parse().unwrap()) as u64;
    assert_eq!(
        teams,
        vec![expected; POLICIES.len() * RUNS_PER_POLICY],
        "the team of every run, in run order"
    );
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

/// A job script that sizes the team from its binding (`nproc` reads the
/// affinity mask) runs a team of one under pin-compact, where the shim pins
/// the shell and each process it forks to one CPU, against one per CPU
/// as-is: a different experiment, which numabench names on stderr and in
/// every summary record's `thread_count_warning`, with each policy's team
/// (the threads that ran 10 ms or more or lived half the run: the script's `$(nproc)` child, seen
/// by the sampler on a slow host, is not one of them).
#[test]
fn a_team_sized_from_the_binding_is_named_as_a_different_experiment() {
    let cpus = allowed_cpus().len();
    assert!(cpus >= 2, "needs 2 CPUs");
    let dir = tempfile::tempdir().unwrap();
    let program = compile("gcc", &["-O1", "-fopenmp"], "omp_team.c", dir.path());
    let teams_file = dir.path().join("teams");
    let script = format!(
        "OMP_NUM_THREADS=$(nproc) exec {}",
        program.to_str().unwrap()
    );
    let output = numabench()
        .args(["run", "--repeat", "3", "--warmup", "0", "--json"])
        .args(["--policy", "as-is", "--policy", "pin-compact"])
        .args(["--", "sh", "-c", &script])
        .env("NUMABENCH_PIN_LIB", shim())
        .env("OMP_TEAM_FILE", &teams_file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let mut teams = read_teams(&teams_file);
    teams.sort_unstable();
    let cpus = cpus as u64;
    assert_eq!(teams, [1, 1, 1, cpus, cpus, cpus], "each run's team");
    assert!(
        stderr.contains("the policies ran different numbers of threads"),
        "{stderr}"
    );
    let (_, records) = typed_stdout("run OpenMP", &output.stdout);
    let summaries = with_metric(&records, "wall_time");
    assert_eq!(summaries.len(), 2, "{records:?}");
    for summary in summaries {
        let warning = match params_of::<RunSummaryParams>(summary) {
            RunSummaryParams::Policies(policies) => policies.thread_count_warning,
            RunSummaryParams::Scan(_) => None,
        }
        .expect("a thread count warning");
        let warning = warning.as_str();
        let as_is = policy_count(warning, "as-is");
        let pinned = policy_count(warning, "pin-compact");
        assert!(pinned == 1 && as_is > pinned, "{warning}");
        assert!(
            stderr.contains(warning),
            "{warning} not on stderr: {stderr}"
        );
    }
}
