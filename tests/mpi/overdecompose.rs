//! The over-decomposition study with real OpenMPI ranks: the worker's
//! grid equals the serial run's and its ranks share cores K at a time;
//! the whole study produces the K-sweep table with the monitor's TLP
//! figures.

use crate::records::{params_of, read_typed};
use numabench::overdecompose::{Verification, WorkerReport};
use numabench_schema::benchmark;
use numabench_schema::params::{OverdecomposeParams, OVERDECOMPOSE_RUN};
use numabench_schema::Record;
use std::path::PathBuf;
use std::process::{Command, Output};

const NUMABENCH: &str = env!("CARGO_BIN_EXE_numabench");

/// `mpirun` for the tests: root needs `--allow-run-as-root`; waiting ranks
/// yield, as the study's own launches do, since ranks share CPUs here.
fn mpirun(ranks: usize) -> Command {
    let mut command = Command::new("mpirun");
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        command.arg("--allow-run-as-root");
    }
    command.args([
        "--oversubscribe",
        "--bind-to",
        "none",
        "--mca",
        "mpi_yield_when_idle",
        "1",
    ]);
    command.arg("-np").arg(ranks.to_string());
    command
}

fn worker(ranks: usize, arguments: &[&str]) -> Output {
    mpirun(ranks)
        .arg(NUMABENCH)
        .arg("overdecompose-worker")
        .args(arguments)
        .output()
        .expect("mpirun starts")
}

/// Rank 0's report: the last stdout line, read as the worker's report.
fn report(output: &Output) -> WorkerReport {
    assert!(
        output.status.success(),
        "worker failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().expect("a report line");
    serde_json::from_str(line).unwrap_or_else(|error| panic!("{error}: {stdout}"))
}

/// The report's serial comparison (present unless `--no-verify`).
fn verification(report: &WorkerReport) -> &Verification {
    report
        .verification
        .as_ref()
        .unwrap_or_else(|| panic!("no verification: {report:?}"))
}

/// CPUs this process may run on.
fn allowed_cpus() -> usize {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it for this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
            0
        );
        libc::CPU_COUNT(&set) as usize
    }
}

#[test]
fn three_ranks_compute_the_serial_grid_bit_for_bit() {
    let _alone = crate::alone();
    // 31 rows over 3 ranks: strips of 11, 10 and 10 rows.
    let output = worker(
        3,
        &[
            "--nx",
            "40",
            "--ny",
            "31",
            "--iterations",
            "60",
            "--ranks-per-core",
            "3",
        ],
    );
    let report = report(&output);
    assert_eq!(report.ranks, 3, "{report:?}");
    assert_eq!((report.rows_min, report.rows_max), (10, 11), "{report:?}");
    let verification = verification(&report);
    assert!(verification.identical, "{report:?}");
    assert_eq!(verification.max_abs_diff, 0.0, "{report:?}");
    assert_eq!(
        verification.checksum, verification.serial_checksum,
        "{report:?}"
    );
    // K = 3: the three ranks share one core.
    let cpus = &report.cpus;
    assert!(cpus.iter().all(|cpu| *cpu == cpus[0]), "{report:?}");
    assert!(report.time_s > 0.0, "{report:?}");
}

#[test]
fn k_ranks_share_a_core_and_the_next_k_the_next_core() {
    let _alone = crate::alone();
    assert!(
        allowed_cpus() >= 2,
        "this check needs 2 allowed CPUs (2 cores), found {}",
        allowed_cpus()
    );
    let output = worker(
        4,
        &[
            "--nx",
            "16",
            "--ny",
            "8",
            "--iterations",
            "10",
            "--ranks-per-core",
            "2",
        ],
    );
    let report = report(&output);
    let cpus = &report.cpus;
    assert_eq!(cpus.len(), 4, "{report:?}");
    assert_eq!(cpus[0], cpus[1], "{cpus:?}");
    assert_eq!(cpus[2], cpus[3], "{cpus:?}");
    assert_ne!(cpus[0], cpus[2], "{cpus:?}");
    assert!(verification(&report).identical, "{report:?}");
    // MPI_Init's helper threads were moved onto their rank's CPU too.
    assert_eq!(report.threads_off_cpu, Some(0), "{report:?}");
}

/// The highest CPU this process may run on.
fn last_allowed_cpu() -> usize {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it for this
    // thread and CPU_ISSET reads within it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
            0
        );
        (0..libc::CPU_SETSIZE as usize)
            .rev()
            .find(|&cpu| libc::CPU_ISSET(cpu, &set))
            .expect("an allowed CPU")
    }
}

#[test]
fn ranks_stay_inside_the_cpuset_they_were_given() {
    let _alone = crate::alone();
    assert!(
        allowed_cpus() >= 2,
        "this check needs 2 allowed CPUs, found {}",
        allowed_cpus()
    );
    // Started on the last CPU only: both ranks (K = 2) share it, not the
    // machine's first core; a second core is refused.
    let cpu = last_allowed_cpu().to_string();
    let taskset = |k: &str| {
        let mut command = Command::new("taskset");
        command.args(["-c", &cpu]);
        command.arg(mpirun(2).get_program());
        command.args(mpirun(2).get_args());
        command.args([NUMABENCH, "overdecompose-worker", "--nx", "8", "--ny", "8"]);
        command.args(["--iterations", "3", "--no-verify", "--ranks-per-core", k]);
        command.output().expect("taskset starts")
    };
    let report = report(&taskset("2"));
    assert_eq!(
        report.cpus,
        vec![cpu.parse::<u32>().unwrap(); 2],
        "{report:?}"
    );
    let refused = taskset("1");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("needs core 1 but only 1 cores are allowed"),
        "{stderr}"
    );
}

#[test]
fn more_ranks_than_cores_times_k_is_refused_by_every_rank() {
    let _alone = crate::alone();
    let ranks = allowed_cpus() + 1;
    let output = worker(
        ranks,
        &[
            "--nx",
            "8",
            "--ny",
            "64",
            "--iterations",
            "1",
            "--ranks-per-core",
            "1",
        ],
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "local rank {} with 1 ranks per core needs core",
            ranks - 1
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_monitor_library_that_is_not_there_is_one_line_and_status_2() {
    let _alone = crate::alone();
    let output = Command::new(NUMABENCH)
        .args(["overdecompose", "--cores", "1", "--repeat", "1"])
        .env("NUMABENCH_MPI_LIB", "/nonexistent/libnumabench_mpi.so")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("NUMABENCH_MPI_LIB: '/nonexistent/libnumabench_mpi.so' is not a file"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

/// The monitor, libnumabench_mpi.so: NUMABENCH_MPI_LIB if set, else the
/// one [`crate::monitor::library`] builds beside numabench.
pub fn monitor_library() -> PathBuf {
    match std::env::var_os("NUMABENCH_MPI_LIB") {
        Some(path) => PathBuf::from(path),
        None => crate::monitor::library().to_path_buf(),
    }
}

/// The worker's report with the test-only fault hook: every rank skips
/// the exchange after the red half-sweep of iteration `skip`.
fn worker_skipping(skip: Option<usize>, iterations: usize) -> WorkerReport {
    let iterations = iterations.to_string();
    let mut command = mpirun(2);
    if let Some(skip) = skip {
        command.args(["-x", &format!("NUMABENCH_TEST_SKIP_EXCHANGE={skip}")]);
    }
    let output = command
        .arg(NUMABENCH)
        .arg("overdecompose-worker")
        .args(["--nx", "128", "--ny", "4", "--iterations", &iterations])
        .args(["--ranks-per-core", "2"])
        .output()
        .expect("mpirun starts");
    report(&output)
}

/// A single halo exchange missed in the middle of a run as long as the
/// study's at a 75% target (tens of thousands of iterations on a few rows)
/// fails the bit-for-bit check; the same run without the fault passes.
#[test]
fn a_single_missed_exchange_in_the_middle_of_a_long_run_is_caught() {
    let _alone = crate::alone();
    let clean = worker_skipping(None, 60_000);
    assert!(verification(&clean).identical, "{clean:?}");
    let faulty = worker_skipping(Some(30_000), 60_000);
    let verification = verification(&faulty);
    assert!(!verification.identical, "{faulty:?}");
    assert!(!verification.trail_identical, "{faulty:?}");
}

/// The study exits 1 naming the configuration when a run's grid (or its
/// trail) is not the serial run's: here a single exchange of every run is
/// skipped, half-way through its 4,000 iterations.
#[test]
fn the_study_exits_1_when_one_exchange_was_missed_mid_run() {
    let _alone = crate::alone();
    let library = monitor_library();
    let output = Command::new(NUMABENCH)
        .args(["overdecompose", "--ranks-per-core", "2", "--cores", "1"])
        .args([
            "--repeat",
            "1",
            "--comm-share",
            "50",
            "--iterations",
            "4000",
        ])
        .env("NUMABENCH_MPI_LIB", &library)
        .env("NUMABENCH_TEST_SKIP_EXCHANGE", "2000")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the grid differs from the serial run's: share 50% K=2"),
        "{stderr}"
    );
}

#[test]
fn the_study_gives_the_k_sweep_with_tlp_figures_and_verified_grids() {
    let _alone = crate::alone();
    let library = monitor_library();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("od.jsonl");
    let output = Command::new(NUMABENCH)
        .args([
            "overdecompose",
            "--ranks-per-core",
            "1,2",
            "--cores",
            "1",
            "--repeat",
            "1",
        ])
        .args(["--comm-share", "25,75", "--iterations", "300", "--jsonl"])
        .arg(&jsonl)
        .env("NUMABENCH_MPI_LIB", &library)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    // The K-sweep table: a header and a row per (share, K).
    let header = stdout
        .lines()
        .find(|line| line.contains("TLP_1") && line.contains("speedup"))
        .unwrap_or_else(|| panic!("no K-sweep table: {stdout}"));
    assert!(header.contains("TLP_2") && header.contains("idle") && header.contains("verified"));
    let text = std::fs::read_to_string(&jsonl).unwrap();
    let (_, records) = read_typed(&jsonl.display().to_string(), &text);
    let records: Vec<Record> = records
        .into_iter()
        .filter(|record| record.benchmark == benchmark::OVERDECOMPOSE)
        .collect();
    let figure = |share: f64, k: u64, metric: &str| -> f64 {
        let matching: Vec<(&Record, OverdecomposeParams)> = records
            .iter()
            .filter(|r| r.metric == metric)
            .map(|r| (r, params_of::<OverdecomposeParams>(r)))
            .filter(|(_, params)| {
                params.point.target_comm_share == Some(share)
                    && params.point.ranks.ranks_per_core == Some(k)
            })
            .collect();
        assert_eq!(
            matching.len(),
            1,
            "{metric} for share {share} K={k}: {text}"
        );
        let (record, params) = &matching[0];
        assert_eq!(params.verified, Some(true), "{record:?}");
        assert_eq!(record.stats.n, 1, "{record:?}");
        record.value
    };
    for share in [0.25, 0.75] {
        assert_eq!(figure(share, 1, "speedup"), 1.0);
        // One rank alone on its core never waits for a neighbour.
        assert!(figure(share, 1, "tlp_1") > 0.5, "share {share}");
        for k in [1, 2] {
            let (tlp_1, tlp_2) = (figure(share, k, "tlp_1"), figure(share, k, "tlp_2"));
            assert!((0.0..=1.0).contains(&tlp_1) && (0.0..=1.0).contains(&tlp_2));
            assert!(tlp_2 <= tlp_1 + 1e-9, "TLP_2 {tlp_2} > TLP_1 {tlp_1}");
            assert!(figure(share, k, "time") > 0.0);
            assert!(figure(share, k, "speedup") > 0.0);
            assert!(figure(share, k, "context_switches") >= 0.0);
            assert!(figure(share, k, "system_time") >= 0.0);
            figure(share, k, "idle_share");
            let comm = figure(share, k, "comm_share");
            assert!((0.0..=1.0).contains(&comm));
        }
        // Two ranks on one core exchange halos: they spend time blocked in
        // MPI, and each exchange needs the other rank to run on the core.
        assert!(figure(share, 2, "comm_share") > 0.0);
        assert!(figure(share, 2, "context_switches") > 0.0);
    }
    // The calibration comes first: one rank alone computes, exchanging nothing.
    assert_eq!(records[0].metric, "compute_per_point", "{records:?}");
    assert!(records[0].value > 0.0, "{:?}", records[0]);
    assert_eq!(records[1].metric, "exchange_per_half_sweep", "{records:?}");
    assert_eq!(records[1].value, 0.0, "{:?}", records[1]);
    // One run record per run, flushed as made.
    let runs = records
        .iter()
        .filter(|r| r.metric == OVERDECOMPOSE_RUN)
        .count();
    assert_eq!(runs, 4);
}

/// Live (non-zombie) processes of process group `group`, and whether
/// `parent` has a child named `mpirun` (its pid).
fn group_members(group: i32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter(|stat| {
            let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..]
                .split_whitespace()
                .collect();
            fields[2].parse::<i32>() == Ok(group) && fields[0] != "Z"
        })
        .count()
}

/// Whether `pid` is a live (non-zombie) process.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| !stat[stat.rfind(')').unwrap() + 2..].starts_with('Z'))
}

/// The children of `parent`.
fn children(parent: i32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let ppid: i32 = stat[stat.rfind(')')? + 2..]
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            (ppid == parent).then_some(pid)
        })
        .collect()
}

fn mpirun_child_of(parent: u32) -> Option<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .find_map(|entry| {
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let name = &stat[stat.find('(')? + 1..stat.rfind(')')?];
            let ppid: u32 = stat[stat.rfind(')')? + 2..]
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            (name == "mpirun" && ppid == parent)
                .then(|| entry.file_name().to_str()?.parse().ok())
                .flatten()
        })
}

/// Issue 21 item 24: SIGTERM to numabench alone while overdecompose's
/// mpirun runs a long worker run (a million iterations, minutes): the
/// signal reaches mpirun's process group, numabench exits 143 within
/// seconds, and neither mpirun nor a rank survives. Before the fix
/// numabench died at once (killed by the signal, no status) and mpirun
/// and its ranks ran on as orphans; with the flag alone (no forwarding)
/// numabench would wait for the whole run.
#[test]
fn sigterm_to_numabench_ends_the_study_and_its_ranks() {
    let _alone = crate::alone();
    let library = monitor_library();
    let mut numabench = Command::new(NUMABENCH)
        .args(["overdecompose", "--ranks-per-core", "1", "--cores", "1"])
        .args([
            "--repeat",
            "1",
            "--comm-share",
            "25",
            // Long by its own measure: over a minute at 6 ns a grid point
            // on 128 points, however fast the build (it is stopped at 2 s).
            "--iterations",
            "100000000",
        ])
        .env("NUMABENCH_MPI_LIB", &library)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    // The long run: an mpirun alive for 2 s with ranks (calibration's are short).
    let mut seen: Option<(i32, std::time::Instant)> = None;
    let mpirun = loop {
        match (mpirun_child_of(numabench.id()), seen) {
            (Some(pid), Some((was, since))) if pid == was => {
                if since.elapsed().as_secs() >= 2 && !children(pid).is_empty() {
                    break pid;
                }
            }
            (Some(pid), _) => seen = Some((pid, std::time::Instant::now())),
            (None, _) => seen = None,
        }
        if start.elapsed().as_secs() > 120 {
            let _ = numabench.kill();
            panic!("no long mpirun run after 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // mpirun and the ranks it started (its children), by process id.
    let mut started = vec![mpirun];
    started.extend(children(mpirun));
    let signalled = std::time::Instant::now();
    // SAFETY: signals numabench alone, our own child.
    unsafe { libc::kill(numabench.id() as i32, libc::SIGTERM) };
    let deadline = signalled + std::time::Duration::from_secs(20);
    while numabench.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            for pid in std::iter::once(-mpirun).chain(started.iter().copied()) {
                // SAFETY: processes the numabench this test started started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            let _ = numabench.kill();
            panic!("numabench still running 20 s after SIGTERM");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let output = numabench.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let survivors = group_members(mpirun) + started.iter().filter(|&&pid| alive(pid)).count();
    if survivors > 0 {
        for pid in std::iter::once(-mpirun).chain(started.iter().copied()) {
            // SAFETY: as above; leave nothing behind a failed test.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert_eq!(
        survivors, 0,
        "mpirun or ranks survived numabench ({started:?})"
    );
    assert!(started.len() > 1, "mpirun had started ranks: {started:?}");
}

/// Issue 21 item B: a link planted at the study's old predictable folder
/// (`$TMPDIR/numabench-overdecompose-<pid>`), pointing at another user's
/// folder, is never written through: the victim folder stays empty and the
/// study still runs. Before the fix the study took the link as its folder
/// (create_dir_all accepts it) and the monitor wrote its output into the
/// victim folder. The shell plants the link, then execs numabench, so `$$`
/// is numabench's process id.
#[test]
fn a_link_at_the_old_study_folder_is_not_followed() {
    let _alone = crate::alone();
    let library = monitor_library();
    let victim = tempfile::tempdir().unwrap();
    let tmp = std::env::temp_dir();
    let script = format!(
        "ln -s \"$VICTIM\" {}/numabench-overdecompose-$$ && exec \"$NUMABENCH\" overdecompose \
         --ranks-per-core 1 --cores 1 --repeat 1 --comm-share 25 --iterations 300",
        tmp.display()
    );
    let output = Command::new("sh")
        .args(["-c", &script])
        .env("VICTIM", victim.path())
        .env("NUMABENCH", NUMABENCH)
        .env("NUMABENCH_MPI_LIB", &library)
        .output()
        .unwrap();
    for entry in std::fs::read_dir(&tmp).unwrap().flatten() {
        if std::fs::read_link(entry.path()).is_ok_and(|target| target == victim.path()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let written: Vec<_> = std::fs::read_dir(victim.path())
        .unwrap()
        .flatten()
        .collect();
    assert!(written.is_empty(), "written through the link: {written:?}");
}
