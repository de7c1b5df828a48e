//! `numabench run`: policies, records, comparison, failures.

use super::records::params_of;
use super::{numabench, refusal, typed_jsonl, typed_of, typed_stdout, with_metric};
use numabench_schema::params::{RunParams, RunSummaryParams};
use numabench_schema::Record;

/// A `run_wall_time` record's params.
pub fn run_params(record: &Record) -> RunParams {
    params_of(record)
}
use std::os::unix::process::CommandExt;

/// The arguments of a `numabench run` of `repeat` measured runs with no
/// warm-up, followed by `rest` (its other options, `--` and the program).
pub fn run_args<'a>(repeat: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    [&["run", "--repeat", repeat, "--warmup", "0"], rest].concat()
}

/// A `numabench run` command of `repeat` measured runs with no warm-up;
/// the caller adds its other options, `--` and the program.
pub fn run_command(repeat: &str) -> assert_cmd::Command {
    let mut command = numabench();
    command.args(run_args(repeat, &[]));
    command
}

#[test]
fn run_compares_policies_and_writes_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let markdown = dir.path().join("table.md");
    let (_, records) = typed_of(
        run_command("3")
            .args([
                "--policy",
                "as-is",
                "--policy",
                "pin-scatter+interleave:all",
                "--json",
                "--markdown",
            ])
            .arg(&markdown)
            .args([
                "--",
                "sh",
                "-c",
                "grep -q interleave /proc/self/numa_maps || [ \"$X\" = as-is ]",
            ])
            .env("X", "as-is"),
    );
    let runs = with_metric(&records, "run_wall_time");
    assert_eq!(runs.len(), 6);
    // Interleaved, the order rotated each repetition: of two policies each
    // goes first every other repetition.
    let order: Vec<String> = runs
        .iter()
        .map(|record| run_params(record).policy.expect("a policy"))
        .collect();
    let (as_is, policy) = ("as-is", "pin-scatter+interleave:all");
    assert_eq!(order, [as_is, policy, policy, as_is, as_is, policy]);
    // Pinning policies name their CPU order; as-is pins nothing.
    for record in &runs {
        let params = run_params(record);
        let expected = match params.policy.as_deref() {
            Some("as-is") => None,
            _ => Some("scatter"),
        };
        assert_eq!(params.cpu_order.as_deref(), expected, "{record:?}");
    }
    let summaries: Vec<RunSummaryParams> = with_metric(&records, "wall_time")
        .into_iter()
        .map(params_of)
        .collect();
    assert_eq!(summaries.len(), 2);
    assert_eq!(summaries[0].comparison().speedup, Some(1.0));
    let compared = summaries[1].comparison();
    assert!(compared.p_value.is_some(), "{compared:?}");
    // One policy against the baseline: Holm's adjustment leaves its p as is.
    assert_eq!(compared.p_value_holm, compared.p_value);
    let table = std::fs::read_to_string(&markdown).unwrap();
    assert!(table.contains("| pin-scatter+interleave:all |"), "{table}");
    assert!(table.contains("| p-value | Holm p |"), "{table}");
}

/// A run record's `--observe` observation.
pub fn observed(record: &Record) -> numabench_schema::params::ObservationParams {
    run_params(record)
        .observation
        .unwrap_or_else(|| panic!("no observation: {record:?}"))
}

#[test]
fn observation_is_saved_with_each_run() {
    let (_, records) = typed_of(run_command("1").args([
        "--policy",
        "as-is",
        "--observe=10ms",
        "--json",
        "--",
        "sleep",
        "0.1",
    ]));
    let observation = observed(&records[0]);
    assert_eq!(observation.interval_ms, 10);
    assert!(observation.samples.len() >= 3);
    assert!(observation.final_bytes_per_node.values().sum::<u64>() > 0);
}

#[test]
fn failures_stop_the_study_with_status_1_unless_ignored() {
    let output = numabench()
        .args([
            "run", "--repeat", "3", "--warmup", "0", "--policy", "as-is", "--", "sh", "-c",
            "exit 3",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("exit status 3") && stderr.contains("--ignore-failure"),
        "{stderr}"
    );
    let ignored = run_command("2")
        .args([
            "--policy",
            "as-is",
            "--ignore-failure",
            "--json",
            "--",
            "sh",
            "-c",
            "exit 3",
        ])
        .output()
        .unwrap();
    assert_eq!(ignored.status.code(), Some(1));
    let (_, records) = typed_stdout("run --ignore-failure", &ignored.stdout);
    assert_eq!(
        records
            .iter()
            .filter(|record| run_params(record).exit_code == Some(3))
            .count(),
        2
    );
}

#[test]
fn ctrl_c_keeps_finished_runs_and_valid_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("runs.jsonl");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_numabench"))
        .args([
            "run", "--repeat", "1000", "--warmup", "0", "--policy", "as-is", "--json", "--jsonl",
        ])
        .arg(&jsonl)
        .args(["--", "sleep", "0.05"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    // Ctrl-C reaches the whole foreground process group: numabench and the running program.
    // SAFETY: signals our own child's process group.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.code().is_some(),
        "numabench exited by itself, not killed"
    );
    // The JSON document is closed properly: it reads strictly.
    let (_, records) = typed_stdout("run interrupted", &output.stdout);
    let runs = with_metric(&records, "run_wall_time").len();
    assert!((2..1000).contains(&runs), "{runs} runs before Ctrl-C");
    // Every JSON Lines line reads as a record.
    let (_, lines) = typed_jsonl(&jsonl);
    let count = std::fs::read_to_string(&jsonl).unwrap().lines().count();
    assert_eq!(lines.len(), count, "one record a line");
    assert!(count > runs, "every finished run, and the summary");
}

/// The built pinning shim. `cargo test` builds the numabench-pin cdylib (a
/// dependency of its own `pin` test) into `<profile>/deps/`; only `cargo
/// build` copies it beside the binary, so on a clean checkout the `deps/`
/// one is the current one: prefer it, and fall back to the copy.
pub fn shim() -> std::path::PathBuf {
    crate::shared::pin_shim(
        std::path::Path::new(env!("CARGO_BIN_EXE_numabench"))
            .parent()
            .unwrap(),
    )
}

/// The CPUs numabench may use, ascending: pin-compact's (tree) order on
/// this machine, whose cores have one thread each, numbered in tree order.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a writable cpu_set_t of the size passed.
    let result = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    assert_eq!(result, 0);
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: cpu < CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

#[test]
fn a_pin_library_that_is_not_there_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let output = numabench()
        .args(["run", "--repeat", "1", "--policy", "pin-compact", "--"])
        .args(["sh", "-c", "touch \"$MARKER\""])
        .env("MARKER", &marker)
        .env("NUMABENCH_PIN_LIB", "/nonexistent/libnumabench_pin.so")
        .output()
        .unwrap();
    let stderr = refusal(&output);
    assert!(
        stderr.contains("'/nonexistent/libnumabench_pin.so'"),
        "{stderr}"
    );
    assert!(!marker.exists(), "the program ran");
}

/// A child process of the program takes the next CPU of the order, not its
/// parent's: the shell's main thread has index 0, the forked `grep` index 1.
#[test]
fn child_processes_of_a_pinned_program_take_the_next_cpu() {
    let cpus = allowed_cpus();
    let dir = tempfile::tempdir().unwrap();
    let status = dir.path().join("status");
    let (_, records) = typed_of(
        run_command("1")
            .args([
                "--policy",
                "pin-compact",
                "--json",
                "--",
                "sh",
                "-c",
                // `; true`: the shell forks for grep instead of exec'ing it.
                "grep Cpus_allowed_list /proc/self/status > \"$STATUS\"; true",
            ])
            .env("STATUS", &status)
            .env("NUMABENCH_PIN_LIB", shim()),
    );
    let text = std::fs::read_to_string(&status).unwrap();
    let allowed = text.split(':').nth(1).unwrap().trim();
    assert_eq!(allowed, cpus[1 % cpus.len()].to_string(), "{text}");
    assert_eq!(run_params(&records[0]).pin_warnings, Some(vec![]));
}

/// What the shim warns about reaches the run records, and stderr once.
#[test]
fn shim_warnings_reach_the_records_and_stderr_once() {
    // A child given a counter file that does not exist: its shim says so.
    let output = run_command("2")
        .args([
            "--policy",
            "pin-compact",
            "--json",
            "--",
            "sh",
            "-c",
            "NUMABENCH_PIN_COUNTER=/nonexistent/counter sh -c true; true",
        ])
        .env("NUMABENCH_PIN_LIB", shim())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let (_, records) = typed_stdout("run pin-compact", &output.stdout);
    let runs = with_metric(&records, "run_wall_time");
    assert_eq!(runs.len(), 2);
    for run in runs {
        let warnings = run_params(run).pin_warnings.expect("pin_warnings");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("NUMABENCH_PIN_COUNTER '/nonexistent/counter': "),
            "{warnings:?}"
        );
    }
    let printed: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("/nonexistent/counter"))
        .collect();
    assert_eq!(printed.len(), 1, "{stderr}");
    assert!(
        printed[0].starts_with("numabench: warning: pinning shim (policy pin-compact): "),
        "{stderr}"
    );
}
