//! Integration tests of `libnumabench_pin.so`: the LD_PRELOAD shim and the C API,
//! exercised through the C programs in `examples/` compiled with `cc`.
//!
//! A missing `cc` (or OpenMP support) fails these tests: they do not skip.
//!
//! Do not `use numabench_pin` here: linking its rlib would put the shim's
//! `pthread_create` into this test binary.

mod ranks;
#[path = "../shared/mod.rs"]
mod shared;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `<target>/<profile>`: this test executable lives in its `deps/` (works with any
/// `CARGO_TARGET_DIR`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("path of the test executable");
    let deps = exe.parent().expect("test executable has a directory");
    assert_eq!(
        deps.file_name().and_then(|name| name.to_str()),
        Some("deps"),
        "test executable {} is not in a cargo deps directory",
        exe.display()
    );
    deps.parent().expect("deps has a parent").to_path_buf()
}

/// The built shim. `cargo test` builds the package's cdylib as a dependency of this
/// test into `deps/` but only `cargo build` copies it up to `<target>/<profile>/`, so
/// prefer the `deps/` one (it is current) and fall back to the copy.
fn shim() -> PathBuf {
    shared::pin_shim(&profile_dir())
}

/// The C example programs, compiled once per test run.
struct Programs {
    pthreads_report: PathBuf,
    openmp_report: PathBuf,
    pin_api: PathBuf,
    fork_report: PathBuf,
}

fn programs() -> &'static Programs {
    static PROGRAMS: OnceLock<Programs> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        let out = profile_dir().join("numabench-pin-examples");
        std::fs::create_dir_all(&out).expect("create the examples directory");
        let examples = workspace().join("examples");
        let include = workspace().join("include");
        let lib_dir = shim().parent().unwrap().to_path_buf();
        let compile = |name: &str, extra: &[String]| -> PathBuf {
            let target = out.join(name);
            // Compile beside the target and rename: concurrent test runs never see a
            // half-written program.
            let partial = out.join(format!("{name}.{}.partial", std::process::id()));
            let mut command = Command::new("cc");
            command
                .args(["-O2", "-Wall", "-Wextra", "-Werror", "-o"])
                .arg(&partial)
                .arg(examples.join(format!("{name}.c")))
                .args(extra);
            let output = command.output().unwrap_or_else(|error| {
                panic!("cannot run cc ({error}): install a C compiler (Debian: gcc)")
            });
            assert!(
                output.status.success(),
                "cc failed for {name}.c (OpenMP needs gcc's libgomp: Debian gcc, libgomp1):\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            std::fs::rename(&partial, &target).expect("rename compiled program");
            target
        };
        Programs {
            pthreads_report: compile("pthreads_report", &["-pthread".to_string()]),
            openmp_report: compile("openmp_report", &["-fopenmp".to_string()]),
            fork_report: compile("fork_report", &["-pthread".to_string()]),
            pin_api: compile(
                "pin_api",
                &[
                    format!("-I{}", include.display()),
                    format!("-L{}", lib_dir.display()),
                    format!("-Wl,-rpath,{}", lib_dir.display()),
                    "-lnumabench_pin".to_string(),
                ],
            ),
        }
    })
}

/// The CPUs this test process may use, ascending.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a writable cpu_set_t of the size passed.
    let result = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    assert_eq!(
        result,
        0,
        "sched_getaffinity: {}",
        std::io::Error::last_os_error()
    );
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: cpu < CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect()
}

/// The allowed CPUs in the order the shim should hand them out: descending, so that
/// "pinned as planned" differs from "happened to run on CPU i".
fn plan() -> Vec<usize> {
    let mut cpus = allowed_cpus();
    cpus.reverse();
    cpus
}

fn list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// numactl range syntax for ascending `cpus` (`0-3,8,10-11`).
fn ranges(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// Runs `program` with a clean pinning environment plus `env`; with `main_cpu`, the
/// main thread is pinned there before exec (as `numabench run` does).
fn run(program: &Path, args: &[&str], env: &[(&str, &str)], main_cpu: Option<usize>) -> Output {
    let mut command = Command::new(program);
    command.args(args);
    for name in [
        "LD_PRELOAD",
        "NUMABENCH_PIN_CPUS",
        "NUMABENCH_PIN_SKIP",
        "NUMABENCH_PIN_VERBOSE",
        "NUMABENCH_PIN_COUNTER",
        "NUMABENCH_PIN_WARNINGS",
        "OMP_NUM_THREADS",
        "OMP_PLACES",
        "OMP_PROC_BIND",
        "GOMP_CPU_AFFINITY",
    ] {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    if let Some(cpu) = main_cpu {
        assert!(cpu < libc::CPU_SETSIZE as usize);
        // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: cpu < CPU_SETSIZE (asserted above).
        unsafe { libc::CPU_SET(cpu, &mut set) };
        // SAFETY: the closure runs between fork and exec and makes one
        // async-signal-safe system call on data prepared before the fork.
        unsafe {
            command.pre_exec(move || {
                if libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    }
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", program.display()));
    assert!(
        output.status.success(),
        "{} {args:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        program.display(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A line `<who> cpu <cpu> allowed <count>` of the report programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Report {
    cpu: usize,
    allowed: usize,
}

/// `(main, threads by number)` from a report's stdout.
fn reports(output: &Output) -> (Option<Report>, Vec<Option<Report>>) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut main = None;
    let mut threads: Vec<Option<Report>> = Vec::new();
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |word: &str| -> usize {
            word.parse()
                .unwrap_or_else(|_| panic!("bad number in {line:?} of:\n{stdout}"))
        };
        match words.as_slice() {
            ["main", "cpu", cpu, "allowed", allowed] => {
                main = Some(Report {
                    cpu: number(cpu),
                    allowed: number(allowed),
                })
            }
            ["thread", index, "cpu", cpu, "allowed", allowed] => {
                let index = number(index);
                if threads.len() <= index {
                    threads.resize(index + 1, None);
                }
                assert!(
                    threads[index].is_none(),
                    "thread {index} twice in:\n{stdout}"
                );
                threads[index] = Some(Report {
                    cpu: number(cpu),
                    allowed: number(allowed),
                });
            }
            ["threads", _] => {}
            _ => panic!("unexpected line {line:?} in:\n{stdout}"),
        }
    }
    (main, threads)
}

fn stderr_lines(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn pthreads_get_the_listed_cpus_in_creation_order() {
    let programs = programs();
    let plan = plan();
    let threads = 4.max(2 * plan.len() + 1);
    let output = run(
        &programs.pthreads_report,
        &[&threads.to_string()],
        &[
            ("LD_PRELOAD", shim().to_str().unwrap()),
            ("NUMABENCH_PIN_CPUS", &list(&plan)),
        ],
        Some(plan[0]),
    );
    let (main, reported) = reports(&output);
    assert_eq!(
        main,
        Some(Report {
            cpu: plan[0],
            allowed: 1
        })
    );
    assert_eq!(reported.len(), threads);
    for (i, report) in reported.iter().enumerate() {
        let expected = plan[(i + 1) % plan.len()];
        assert_eq!(
            *report,
            Some(Report {
                cpu: expected,
                allowed: 1
            }),
            "thread {i} (plan {plan:?})"
        );
    }
    // Not verbose, nothing to warn about: the shim is silent.
    assert_eq!(stderr_lines(&output), Vec::<String>::new());
}

#[test]
fn range_syntax_skip_and_verbose() {
    let programs = programs();
    let cpus = allowed_cpus();
    let threads = 3.max(cpus.len() + 1);
    let output = run(
        &programs.pthreads_report,
        &[&threads.to_string()],
        &[
            ("LD_PRELOAD", shim().to_str().unwrap()),
            ("NUMABENCH_PIN_CPUS", &ranges(&cpus)),
            ("NUMABENCH_PIN_SKIP", "0"),
            ("NUMABENCH_PIN_VERBOSE", "1"),
        ],
        None,
    );
    let (main, reported) = reports(&output);
    // The main thread is not touched.
    assert_eq!(main.map(|report| report.allowed), Some(cpus.len()));
    for (i, report) in reported.iter().enumerate() {
        let expected = cpus[i % cpus.len()];
        assert_eq!(
            *report,
            Some(Report {
                cpu: expected,
                allowed: 1
            }),
            "thread {i}"
        );
    }
    // Creation index k -> CPU, one line per thread (in the order threads start).
    let mut lines = stderr_lines(&output);
    lines.sort();
    let mut expected: Vec<String> = (0..threads)
        .map(|k| format!("numabench-pin: thread {k} -> CPU {}", cpus[k % cpus.len()]))
        .collect();
    expected.sort();
    assert_eq!(lines, expected);
}

/// The OpenMP master is pinned before exec to plan[0]; libgomp's master creates the
/// workers with pthread_create in team order, so the k-th created thread is OpenMP
/// thread k + 1 and gets plan[(k + 1) % len]: OpenMP thread t runs on plan[t % len].
#[test]
fn openmp_threads_get_the_listed_cpus() {
    let programs = programs();
    let plan = plan();
    let threads = 3.max(2 * plan.len() + 1);
    let output = run(
        &programs.openmp_report,
        &[],
        &[
            ("LD_PRELOAD", shim().to_str().unwrap()),
            ("NUMABENCH_PIN_CPUS", &list(&plan)),
            ("NUMABENCH_PIN_VERBOSE", "1"),
            ("OMP_NUM_THREADS", &threads.to_string()),
        ],
        Some(plan[0]),
    );
    let (_, reported) = reports(&output);
    assert_eq!(reported.len(), threads);
    for (t, report) in reported.iter().enumerate() {
        assert_eq!(
            *report,
            Some(Report {
                cpu: plan[t % plan.len()],
                allowed: 1
            }),
            "OpenMP thread {t} (plan {plan:?})"
        );
    }
    // threads - 1 workers went through the shim.
    let pinned = stderr_lines(&output)
        .iter()
        .filter(|line| line.starts_with("numabench-pin: thread "))
        .count();
    assert_eq!(pinned, threads - 1, "stderr: {:?}", stderr_lines(&output));
}

/// What `numabench run` sets for a pinning policy: the shim plus OMP_PLACES and
/// OMP_PROC_BIND=close. libgomp binds each worker through its thread attributes, which
/// take effect before the start routine, so the shim's pin (in the trampoline) is the
/// one that holds: round-robin over the list, also when threads outnumber places
/// (where `close` alone would put consecutive threads on the same place).
#[test]
fn openmp_places_do_not_override_the_shim() {
    let programs = programs();
    let plan = plan();
    let threads = 3.max(2 * plan.len());
    let places: Vec<String> = plan.iter().map(|cpu| format!("{{{cpu}}}")).collect();
    let output = run(
        &programs.openmp_report,
        &[],
        &[
            ("LD_PRELOAD", shim().to_str().unwrap()),
            ("NUMABENCH_PIN_CPUS", &list(&plan)),
            ("OMP_NUM_THREADS", &threads.to_string()),
            ("OMP_PLACES", &places.join(",")),
            ("OMP_PROC_BIND", "close"),
        ],
        Some(plan[0]),
    );
    let (_, reported) = reports(&output);
    assert_eq!(reported.len(), threads);
    for (t, report) in reported.iter().enumerate() {
        assert_eq!(
            report.map(|report| report.cpu),
            Some(plan[t % plan.len()]),
            "OpenMP thread {t} (plan {plan:?})"
        );
    }
}

#[test]
fn c_api_checks_pass() {
    let output = run(&programs().pin_api, &[], &[], None);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines
            .iter()
            .all(|line| line.starts_with("OK ") || *line == "ALL OK"),
        "{stdout}"
    );
    let cpus = allowed_cpus().len();
    for check in [
        "OK numabench_pin_cpu_count".to_string(),
        format!(
            "OK numabench_pin_thread({}) -> cpu {}",
            cpus,
            allowed_cpus()[0]
        ),
        "OK numabench_pin_thread(-1) fails with EINVAL".to_string(),
        "OK numabench_pin_self_to_node(9999) fails with EINVAL".to_string(),
        "OK numabench_pin_self_to_node(-1) fails with EINVAL".to_string(),
        "ALL OK".to_string(),
    ] {
        assert!(
            lines.contains(&check.as_str()),
            "no {check:?} in:\n{stdout}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("OK numabench_pin_self_to_node(0)")),
        "{stdout}"
    );
    // One line per k in 0..cpus + 2, plus the other checks.
    assert_eq!(lines.len(), 1 + (cpus + 2) + 4 + 1, "{stdout}");
}

#[test]
fn without_a_list_the_shim_changes_nothing() {
    let programs = programs();
    let allowed = allowed_cpus().len();
    let env = [
        ("LD_PRELOAD", shim().to_str().unwrap().to_string()),
        ("NUMABENCH_PIN_VERBOSE", "1".to_string()),
        ("OMP_NUM_THREADS", "3".to_string()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    for (program, args) in [
        (&programs.pthreads_report, vec!["4"]),
        (&programs.openmp_report, vec![]),
    ] {
        let output = run(program, &args, &env, None);
        let (main, reported) = reports(&output);
        if let Some(main) = main {
            assert_eq!(main.allowed, allowed);
        }
        assert!(!reported.is_empty());
        for (i, report) in reported.iter().enumerate() {
            assert_eq!(
                report.map(|report| report.allowed),
                Some(allowed),
                "thread {i} of {}",
                program.display()
            );
        }
        assert_eq!(stderr_lines(&output), Vec::<String>::new());
    }
    // An empty list is no list.
    let output = run(
        &programs.pthreads_report,
        &["2"],
        &[
            ("LD_PRELOAD", shim().to_str().unwrap()),
            ("NUMABENCH_PIN_CPUS", ""),
        ],
        None,
    );
    let (_, reported) = reports(&output);
    assert!(reported
        .iter()
        .all(|report| report.map(|report| report.allowed) == Some(allowed)));
}

#[test]
fn an_unpinnable_cpu_warns_and_runs_the_thread_unpinned() {
    let programs = programs();
    let allowed = allowed_cpus();
    // No machine has CPU 65535 (Linux's NR_CPUS is at most 8192).
    let output = run(
        &programs.pthreads_report,
        &["3"],
        &[
            ("LD_PRELOAD", shim().to_str().unwrap()),
            ("NUMABENCH_PIN_CPUS", &format!("{},65535", allowed[0])),
        ],
        None,
    );
    let (_, reported) = reports(&output);
    // Threads 0 and 2 get entry 1 (65535), thread 1 gets entry 0.
    assert_eq!(reported[0].map(|r| r.allowed), Some(allowed.len()));
    assert_eq!(
        reported[1],
        Some(Report {
            cpu: allowed[0],
            allowed: 1
        })
    );
    assert_eq!(reported[2].map(|r| r.allowed), Some(allowed.len()));
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for line in &lines {
        assert!(
            line.starts_with("numabench-pin: cannot pin thread to CPU 65535: "),
            "{line}"
        );
    }
}

#[test]
fn a_malformed_list_warns_once_and_pins_nothing() {
    let programs = programs();
    let allowed = allowed_cpus().len();
    let output = run(
        &programs.pthreads_report,
        &["3"],
        &[
            ("LD_PRELOAD", shim().to_str().unwrap()),
            ("NUMABENCH_PIN_CPUS", "0,,x"),
        ],
        None,
    );
    let (_, reported) = reports(&output);
    assert!(reported
        .iter()
        .all(|report| report.map(|report| report.allowed) == Some(allowed)));
    let lines = stderr_lines(&output);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("numabench-pin: NUMABENCH_PIN_CPUS: ")
            && lines[0].ends_with("threads are not pinned"),
        "{}",
        lines[0]
    );
}

/// A file path for this test run, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let path =
            std::env::temp_dir().join(format!("numabench-pin-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        Scratch(path)
    }

    fn str(&self) -> &str {
        self.0.to_str().expect("UTF-8 temp path")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// With a shared counter file, as `numabench run` sets up: the main thread of every
/// process (forked, or forked and exec'd) and every thread takes the next CPU of the
/// order, wrapping round, across the whole process tree; the exec after a fork does
/// not take a second one.
#[test]
fn every_thread_of_every_process_takes_the_next_cpu() {
    let programs = programs();
    let plan = plan();
    let counter = Scratch::new("counter");
    std::fs::write(&counter.0, b"").unwrap();
    let warnings = Scratch::new("warnings");
    let output = run(
        &programs.fork_report,
        &[],
        &[
            ("LD_PRELOAD", shim().to_str().unwrap()),
            ("NUMABENCH_PIN_CPUS", &list(&plan)),
            ("NUMABENCH_PIN_COUNTER", counter.str()),
            ("NUMABENCH_PIN_WARNINGS", warnings.str()),
        ],
        Some(plan[0]),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let expected: Vec<String> = [
        "process 0 main",
        "process 1 main",
        "process 1 thread 0",
        "process 1 thread 1",
        "process 2 main",
        "process 2 thread 0",
        "process 2 thread 1",
    ]
    .iter()
    .enumerate()
    .map(|(index, who)| format!("{who} cpu {} allowed 1", plan[index % plan.len()]))
    .collect();
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        expected,
        "plan {plan:?}"
    );
    // Seven indices taken, no more: the exec of child 2 kept the one its fork took.
    let words = std::fs::read(&counter.0).unwrap();
    assert_eq!(u64::from_ne_bytes(words[..8].try_into().unwrap()), 7);
    assert_eq!(stderr_lines(&output), Vec::<String>::new());
    assert!(!warnings.0.exists(), "no warnings");
}

/// With NUMABENCH_PIN_WARNINGS, warnings go to that file (every process appending),
/// not to the program's stderr (which `numabench run` hides).
#[test]
fn warnings_go_to_the_warnings_file() {
    let programs = programs();
    let allowed = allowed_cpus();
    let warnings = Scratch::new("unpinnable-warnings");
    let output = run(
        &programs.pthreads_report,
        &["3"],
        &[
            ("LD_PRELOAD", shim().to_str().unwrap()),
            ("NUMABENCH_PIN_CPUS", &format!("{},65535", allowed[0])),
            ("NUMABENCH_PIN_WARNINGS", warnings.str()),
        ],
        None,
    );
    assert_eq!(stderr_lines(&output), Vec::<String>::new());
    let text = std::fs::read_to_string(&warnings.0).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    for line in lines {
        assert!(
            line.starts_with("numabench-pin: cannot pin thread to CPU 65535: "),
            "{line}"
        );
    }
}
