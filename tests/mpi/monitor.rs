//! The MPI runtime monitor, `libnumabench_mpi.so`, preloaded into real
//! OpenMPI ranks: a C program whose time in blocking MPI is known by
//! design, a Fortran program whose calls must be counted once, and
//! `numabench run --mpi-monitor` end to end.

use crate::records::{params_of, params_part, read_typed_as};
use numabench_schema::params::{
    MonitorBufferParams, MonitorCallParams, MonitorHostParams, MonitorPopParams, MonitorRankParams,
    MonitorRunTags, BUFFER_LOCAL_SHARE, RUN_WALL_TIME,
};
use numabench_schema::{benchmark, Record, RunMetadata, Unit};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// `<target>/<profile>`, where the numabench binary is.
fn profile_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_numabench"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The monitor library, built (once per test run) by cargo into the
/// profile directory beside numabench, where `run --mpi-monitor` finds it.
pub(crate) fn library() -> &'static Path {
    static LIBRARY: OnceLock<PathBuf> = OnceLock::new();
    LIBRARY
        .get_or_init(|| crate::shared::monitor_library(&profile_dir(), env!("CARGO_MANIFEST_DIR")))
}

/// Compiles `tests/mpi/programs/<source>` with `compiler` into `dir`.
pub(crate) fn compile(compiler: &str, source: &str, dir: &Path) -> PathBuf {
    let program = dir.join(source.split('.').next().unwrap());
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mpi/programs")
        .join(source);
    let output = Command::new(compiler)
        .arg("-O1")
        .arg("-o")
        .arg(&program)
        .arg(&source)
        .output()
        .unwrap_or_else(|error| panic!("{compiler}: {error}"));
    assert!(
        output.status.success(),
        "{compiler} {}: {}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    program
}

/// `mpirun` for ranks on this machine.
pub(crate) fn mpirun(np: usize) -> Command {
    let mut command = Command::new("mpirun");
    command.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-np",
        &np.to_string(),
    ]);
    command
}

/// [`mpirun`] of `np` ranks with the monitor preloaded into them (`-x
/// LD_PRELOAD`) and writing its records to `out` (`-x
/// NUMABENCH_MPI_MONITOR_OUT`); more mpirun options, then the program, follow.
pub(crate) fn mpirun_monitored(np: usize, out: &Path) -> Command {
    let mut command = mpirun(np);
    command
        .arg("-x")
        .arg(format!("LD_PRELOAD={}", library().display()))
        .arg("-x")
        .arg(format!("NUMABENCH_MPI_MONITOR_OUT={}", out.display()));
    command
}

/// Runs `program ARGS` under the monitor (records to `out`) on 2 ranks
/// that share one CPU (`taskset` to [`first_cpu`], OpenMPI told to yield
/// when idle): the host has one core. Asserts that it succeeds.
pub(crate) fn run_on_one_cpu(program: &Path, args: &[String], out: &Path) -> std::process::Output {
    run(mpirun_monitored(2, out)
        .args(["--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"])
        .args(["taskset", "-c", &first_cpu().to_string()])
        .arg(program)
        .args(args))
}

pub(crate) fn run(command: &mut Command) -> std::process::Output {
    let output = command.output().expect("mpirun runs");
    assert!(
        output.status.success(),
        "{command:?}: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The run metadata of a monitored run's file: numabench's fields, and
/// the `partial` mark the monitor adds to its own files (absent from
/// numabench's `--jsonl`).
#[derive(Debug, Deserialize)]
pub(crate) struct Metadata {
    #[serde(flatten)]
    pub run: RunMetadata,
    /// Whether the file is a rank's partial snapshot (`true`) or the
    /// whole job's (`false`).
    pub partial: Option<bool>,
}

/// The mark the monitor puts on each record of a partial snapshot.
#[derive(Debug, Deserialize)]
struct PartialMark {
    partial: Option<bool>,
}

/// The run metadata and the records of a JSON Lines file of either
/// version: the monitor's own (1: a metadata line first) or numabench's
/// `--jsonl` (2: every line a record carrying its `run`), read strictly
/// through the schema crate's reader.
pub(crate) fn records(path: &Path) -> (Metadata, Vec<Record>) {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    read_typed_as(&path.display().to_string(), &text)
}

/// A monitor record's rank params (the rank's own records, and the
/// rank labels of its buffer records).
pub(crate) fn rank_params(record: &Record) -> MonitorRankParams {
    params_of(record)
}

/// The tags `run --mpi-monitor` puts on a monitor record.
fn tags(record: &Record) -> MonitorRunTags {
    params_part(record)
}

/// The value of `metric` for `rank`.
pub(crate) fn rank_value(records: &[Record], rank: i64, metric: &str) -> f64 {
    records
        .iter()
        .find(|record| record.metric == metric && rank_params(record).rank == Some(rank))
        .unwrap_or_else(|| panic!("no {metric} for rank {rank}"))
        .value
}

/// The host records (those with `cores`) of `metric`, each with its params.
pub(crate) fn host_records<'a>(
    records: &'a [Record],
    metric: &str,
) -> Vec<(&'a Record, MonitorHostParams)> {
    records
        .iter()
        .filter(|record| record.metric == metric)
        .map(|record| (record, params_of::<MonitorHostParams>(record)))
        .filter(|(_, params)| params.cores.is_some())
        .collect()
}

/// The first CPU this test may use.
pub(crate) fn first_cpu() -> usize {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a writable cpu_set_t of the size passed.
    let status = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    assert_eq!(status, 0);
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: cpu < CPU_SETSIZE.
        .find(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .unwrap()
}

/// Host tables left in /dev/shm.
fn shm_tables() -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                .filter(|name| name.starts_with("numabench-mpi-"))
                .collect()
        })
        .unwrap_or_default()
}

/// known_share.c's design (see the program): N ping-pong rounds in which
/// one rank computes TC while the other is blocked in MPI_Recv (rank 0's
/// MPI_Wait may take part of that), then M rounds where both compute TB
/// and meet in MPI_Barrier. Both ranks share one CPU, so the host has one
/// core. Compute periods are timed by the wall clock, so on a busy machine
/// the run gets longer but the computed time stays N x TC + M x TB per
/// rank; every expectation below follows from that, none from a run.
#[test]
fn blocking_time_messages_and_tlp_match_a_program_built_for_them() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = compile("mpicc", "known_share.c", dir.path());
    let out = dir.path().join("monitor.jsonl");
    let (rounds, tc, phase2, tb) = (10u32, 0.030f64, 4u32, 0.100f64);
    let before = shm_tables();
    // LD_PRELOAD set by hand, forwarded to the ranks with -x.
    run_on_one_cpu(
        &program,
        &[
            rounds.to_string(),
            (tc * 1e3).to_string(),
            phase2.to_string(),
            (tb * 1e3).to_string(),
        ],
        &out,
    );
    let (metadata, records) = records(&out);
    assert_eq!(metadata.run.tool, "numabench-mpi-monitor", "{metadata:?}");
    assert_eq!(metadata.run.schema_version, 1, "{metadata:?}");
    let blocked_phase1 = f64::from(rounds) * tc;
    let computed = blocked_phase1 + f64::from(phase2) * tb;
    for rank in [0, 1] {
        let wall = rank_value(&records, rank, "wall_time");
        let mpi = rank_value(&records, rank, "mpi_time");
        let p2p = rank_value(&records, rank, "p2p_time");
        let wait = rank_value(&records, rank, "wait_time");
        let collective = rank_value(&records, rank, "collective_time");
        assert!(
            (mpi - (p2p + wait + collective)).abs() < 1e-6,
            "rank {rank}: classes sum to mpi_time"
        );
        // Blocked at least while the other rank computed in phase 1 ...
        assert!(
            p2p + wait >= 0.95 * blocked_phase1,
            "rank {rank}: p2p {p2p} + wait {wait} < {blocked_phase1}"
        );
        // ... and never while computing: what is not computed is (at most) MPI.
        assert!(
            wall >= computed,
            "rank {rank}: wall {wall} < computed {computed}"
        );
        assert!(
            mpi <= wall - computed + 0.02 * wall + 0.01,
            "rank {rank}: mpi {mpi} > wall {wall} - computed {computed}"
        );
        assert!(
            collective > 0.0,
            "rank {rank}: the barriers and the allreduce"
        );
        let share = rank_value(&records, rank, "mpi_share");
        assert!((share - mpi / wall).abs() < 1e-9);
        assert!(
            share >= 0.95 * blocked_phase1 / wall && share <= 1.0 - computed / wall + 0.03,
            "rank {rank}: share {share}"
        );
        let ranks_record = records
            .iter()
            .find(|record| rank_params(record).rank == Some(rank))
            .unwrap_or_else(|| panic!("no record of rank {rank}: {records:?}"));
        let params = rank_params(ranks_record);
        assert_eq!(params.ranks, Some(2), "{ranks_record:?}");
        assert_eq!(
            params.cpus_allowed,
            Some(vec![u32::try_from(first_cpu()).unwrap()]),
            "{ranks_record:?}"
        );
        assert_eq!(ranks_record.benchmark, benchmark::MPI_MONITOR);
        assert_eq!(ranks_record.stats.n, 1, "{ranks_record:?}");
    }
    // Rank 1 never calls MPI_Wait.
    assert_eq!(rank_value(&records, 1, "wait_time"), 0.0);
    // Messages: rank 0 sent N x 2048 bytes (Isend) and one 2,400,000-byte
    // message; rank 1 sent N x 100 bytes. The allreduce is no message.
    let n = f64::from(rounds);
    assert_eq!(rank_value(&records, 0, "small_messages"), 0.0);
    assert_eq!(rank_value(&records, 0, "medium_messages"), n);
    assert_eq!(rank_value(&records, 0, "large_messages"), 1.0);
    assert_eq!(
        rank_value(&records, 0, "bytes_sent"),
        n * 2048.0 + 2_400_000.0
    );
    assert_eq!(rank_value(&records, 1, "small_messages"), n);
    assert_eq!(rank_value(&records, 1, "medium_messages"), 0.0);
    assert_eq!(rank_value(&records, 1, "large_messages"), 0.0);
    assert_eq!(rank_value(&records, 1, "bytes_sent"), n * 100.0);
    for rank in [0, 1] {
        assert!(rank_value(&records, rank, "user_time") > 0.0);
        assert!(
            rank_value(&records, rank, "voluntary_switches")
                + rank_value(&records, rank, "involuntary_switches")
                > 0.0
        );
    }
    // TLP on one core. At least one rank computes during 2 N TC + M TB
    // (phase-1 computations do not overlap), so TLP_1 covers that; both
    // are outside MPI together only in phase 2 (at most M TB, plus the
    // moments between calls), and for most of it.
    let wall = rank_value(&records, 0, "wall_time").max(rank_value(&records, 1, "wall_time"));
    let tlp = |n: usize| {
        let found = host_records(&records, &format!("tlp_{n}"));
        assert_eq!(found.len(), 1, "one host");
        let (record, params) = &found[0];
        assert_eq!(params.cores, Some(1), "{record:?}");
        assert_eq!(params.ranks_on_host, Some(2), "{record:?}");
        assert_eq!(record.unit, Unit::Ratio, "{record:?}");
        record.value
    };
    let one_outside = 2.0 * blocked_phase1 + f64::from(phase2) * tb;
    let both_outside = f64::from(phase2) * tb;
    assert!(
        tlp(1) >= 0.95 * one_outside / wall,
        "TLP_1 {} < {}",
        tlp(1),
        one_outside / wall
    );
    assert!(
        tlp(2) <= (both_outside + 0.05 * wall) / wall,
        "TLP_2 {} too high",
        tlp(2)
    );
    assert!(
        tlp(2) >= 0.5 * both_outside / wall,
        "TLP_2 {} too low",
        tlp(2)
    );
    assert_eq!(tlp(3), 0.0, "never 3 ranks");
    assert_eq!(tlp(4), 0.0);
    assert!(tlp(1) <= 1.0 && tlp(2) <= tlp(1));
    // The host table is unlinked.
    let left: Vec<String> = shm_tables()
        .into_iter()
        .filter(|name| !before.contains(name))
        .collect();
    assert!(left.is_empty(), "left in /dev/shm: {left:?}");
}

/// OpenMPI's Fortran bindings call PMPI_* directly: the monitor wraps them
/// itself. Each rank sends 7 messages of 10 integers and calls
/// MPI_ALLREDUCE once; counted once, not twice, not zero times. With no
/// NUMABENCH_MPI_MONITOR_OUT the file is in the working directory and one
/// stderr line says so.
#[test]
fn fortran_calls_are_counted_once() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = compile("mpif90", "calls.f90", dir.path());
    let output = run(mpirun(2)
        .current_dir(dir.path())
        .env_remove("NUMABENCH_MPI_MONITOR_OUT")
        .arg("-x")
        .arg(format!("LD_PRELOAD={}", library().display()))
        .arg(&program));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("numabench-mpi-monitor.jsonl"), "{stderr}");
    let (_, records) = records(&dir.path().join("numabench-mpi-monitor.jsonl"));
    for rank in [0, 1] {
        assert_eq!(rank_value(&records, rank, "small_messages"), 7.0);
        assert_eq!(rank_value(&records, rank, "medium_messages"), 0.0);
        assert_eq!(rank_value(&records, rank, "bytes_sent"), 7.0 * 40.0);
        assert!(rank_value(&records, rank, "p2p_time") > 0.0);
        assert!(rank_value(&records, rank, "collective_time") > 0.0);
    }
}

/// `numabench run --mpi-monitor -- mpirun ...`: the library is found
/// beside numabench, preloaded into the ranks, and its records come out
/// through --jsonl tagged with the policy and repetition, each run's
/// right after that run's own record (issue 37 item 9: not all after the
/// last run, so a study stopped later keeps them); the summary names every
/// rank and the call types. calls.f90 sends 7 messages of 10 integers a
/// rank (C names for the Fortran calls: 14 MPI_Send of 560 bytes in all)
/// and makes one MPI_ALLREDUCE of one integer a rank.
#[test]
fn run_mpi_monitor_passes_the_records_through() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = compile("mpif90", "calls.f90", dir.path());
    library();
    let jsonl = dir.path().join("out.jsonl");
    let output = run_monitored(&[], "2", &program, &jsonl);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let (metadata, records) = records(&jsonl);
    assert_eq!(metadata.run.tool, "numabench", "{metadata:?}");
    let monitor: Vec<&Record> = records
        .iter()
        .filter(|record| record.benchmark == benchmark::MPI_MONITOR)
        .collect();
    // Two timed runs (the warm-up's records are dropped), each 2 ranks x
    // 14 metrics, 3 call types x 3, one host's tlp_1..4 and the job's 3
    // POP efficiencies.
    assert_eq!(monitor.len(), 2 * (2 * 14 + 9 + 4 + 3), "{monitor:?}");
    let call = |repetition: u64, metric: &str, call: &str| -> f64 {
        monitor
            .iter()
            .find(|record| {
                tags(record).repetition == Some(repetition)
                    && record.metric == metric
                    && params_of::<MonitorCallParams>(record).call.as_deref() == Some(call)
            })
            .unwrap_or_else(|| panic!("no {metric} of {call} in run {repetition}"))
            .value
    };
    for repetition in [1, 2] {
        assert_eq!(call(repetition, "call_count", "MPI_Send"), 14.0);
        assert_eq!(call(repetition, "call_bytes", "MPI_Send"), 560.0);
        assert_eq!(call(repetition, "call_count", "MPI_Recv"), 14.0);
        assert_eq!(call(repetition, "call_bytes", "MPI_Allreduce"), 8.0);
    }
    // The first run's monitor records come before the second run's record.
    let position = |matches: &dyn Fn(&Record) -> bool| {
        records
            .iter()
            .enumerate()
            .filter(|(_, record)| matches(record))
            .map(|(index, _)| index)
            .collect::<Vec<usize>>()
    };
    let runs =
        position(&|record| record.benchmark == benchmark::RUN && record.metric == RUN_WALL_TIME);
    let first_monitor = position(&|record| {
        record.benchmark == benchmark::MPI_MONITOR && tags(record).repetition == Some(1)
    });
    assert_eq!(runs.len(), 2, "{records:?}");
    assert!(
        first_monitor
            .iter()
            .all(|&index| runs[0] < index && index < runs[1]),
        "run records at {runs:?}, the first run's monitor records at {first_monitor:?}"
    );
    for repetition in [1, 2] {
        let pop: Vec<&&Record> = monitor
            .iter()
            .filter(|record| {
                tags(record).repetition == Some(repetition)
                    && params_of::<MonitorPopParams>(record).scope.as_deref() == Some("job")
            })
            .collect();
        assert_eq!(pop.len(), 3, "{pop:?}");
        for record in pop {
            let value = record.value;
            assert!(value > 0.0 && value <= 1.0, "{record:?}");
        }
    }
    for repetition in [1, 2] {
        let small: Vec<f64> = monitor
            .iter()
            .filter(|record| {
                tags(record).repetition == Some(repetition) && record.metric == "small_messages"
            })
            .map(|record| record.value)
            .collect();
        assert_eq!(small, [7.0, 7.0]);
    }
    assert!(
        monitor
            .iter()
            .all(|record| tags(record).policy.as_deref() == Some("as-is")),
        "{monitor:?}"
    );
    assert!(records
        .iter()
        .any(|record| record.benchmark == benchmark::RUN));
    assert!(
        stdout.contains("MPI monitor") && stdout.contains("TLP_1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("MPI call") && stdout.contains("MPI_Allreduce"),
        "{stdout}"
    );
}

/// `run --mpi-monitor --param`: every configuration's runs bring their own
/// monitor records, told apart by the command (after substitution) and
/// counted per configuration.
#[test]
fn a_parameter_scan_keeps_each_configurations_monitor_records_apart() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = compile("mpif90", "calls.f90", dir.path());
    library();
    let jsonl = dir.path().join("scan.jsonl");
    let output = run_monitored(&["--param", "np=2,3"], "{np}", &program, &jsonl);
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let (_, records) = records(&jsonl);
    for np in [2usize, 3] {
        let command_has_np = |record: &&Record| {
            tags(record)
                .command
                .is_some_and(|command| command.contains(&format!("-np {np} ")))
        };
        let walls: Vec<&Record> = records
            .iter()
            .filter(|record| record.benchmark == benchmark::MPI_MONITOR)
            .filter(command_has_np)
            .filter(|record| record.metric == "wall_time")
            .collect();
        // Two timed runs of np ranks each (the warm-up runs' records are dropped).
        assert_eq!(walls.len(), 2 * np, "np={np}: {walls:?}");
        for repetition in [1, 2] {
            let ranks: Vec<i64> = walls
                .iter()
                .filter(|record| tags(record).repetition == Some(repetition))
                .map(|record| {
                    rank_params(record)
                        .rank
                        .unwrap_or_else(|| panic!("no rank: {record:?}"))
                })
                .collect();
            assert_eq!(
                ranks.len(),
                np,
                "np={np} repetition {repetition}: {walls:?}"
            );
        }
    }
}

/// `numabench run --mpi-monitor [OPTIONS] --repeat 2 --warmup 1 --jsonl
/// JSONL -- mpirun -np NP PROGRAM`, with the monitor library found beside
/// numabench (nothing preloaded or named by the environment).
fn run_monitored(options: &[&str], np: &str, program: &Path, jsonl: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_numabench"))
        .env_remove("NUMABENCH_MPI_LIB")
        .env_remove("LD_PRELOAD")
        .args(["run", "--mpi-monitor"])
        .args(options)
        .args(["--repeat", "2", "--warmup", "1", "--jsonl"])
        .arg(jsonl)
        .args([
            "--",
            "mpirun",
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
            np,
        ])
        .arg(program)
        .output()
        .unwrap()
}

/// Issue 21 item 8: MPI_Mprobe, MPI_Alltoallw, the MPI_Neighbor_*
/// collectives, persistent receives (MPI_Start/MPI_Startall with
/// MPI_Wait/MPI_Waitall) and MPI_Sendrecv_replace, in C and in Fortran
/// (missed_calls.c/.f90): rank 1 stays out of MPI for 0.2 s before each,
/// so rank 0 is blocked about 10 x 0.2 s, 2 x 0.2 of it point to point
/// and 6 x 0.2 in collectives. Unwrapped calls read as time outside MPI.
#[test]
fn rarer_blocking_calls_are_timed_in_c_and_fortran() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    for (compiler, source) in [("mpicc", "missed_calls.c"), ("mpif90", "missed_calls.f90")] {
        let program = compile(compiler, source, dir.path());
        let jsonl = dir.path().join(format!("{source}.jsonl"));
        run(mpirun_monitored(2, &jsonl)
            .args(["-x", "NUMABENCH_MPI_FLUSH=0.1"])
            .arg(&program));
        let (metadata, records) = records(&jsonl);
        // Complete: marked so, and the partial snapshots taken every 0.1 s
        // during the run are gone.
        assert_eq!(metadata.partial, Some(false), "{metadata:?}");
        for rank in [0, 1] {
            let partial = format!("{}.partial-{rank}", jsonl.display());
            assert!(!Path::new(&partial).exists(), "{partial} left behind");
        }
        let (p2p, collective, mpi) = (
            rank_value(&records, 0, "p2p_time"),
            rank_value(&records, 0, "collective_time"),
            rank_value(&records, 0, "mpi_time"),
        );
        // Each late start keeps rank 0 blocked about 0.2 s, less when rank
        // 0 itself arrives late on a loaded machine: the bounds (p2p 0.27 s
        // of 0.4, collective 0.6 of 1.2, MPI 1.0 of 2.0) stay above what unwrapped
        // calls gave (p2p about 0.2 s from MPI_Sendrecv_replace alone,
        // collective about 0, MPI about 0.6 s from the two waits).
        assert!(p2p >= 1.5 * 0.18, "{source}: p2p_time {p2p}");
        assert!(
            collective >= 3.0 * 0.2,
            "{source}: collective_time {collective}"
        );
        assert!(mpi >= 5.0 * 0.2, "{source}: mpi_time {mpi}");
    }
}

/// Issue 21 item 11: `MPI_Pcontrol(0)` and `MPI_Pcontrol(1)` bound the
/// host's TLP window, as they bound mpiP's profile. pcontrol.c/.f90: 0.6 s
/// with both ranks computing (paused), then 0.5 s with rank 0 in MPI_Recv
/// and rank 1 outside MPI (the window). Both ranks share one CPU (`cores`
/// 1), so TLP_2 is the share of the window with both ranks outside: about
/// 0.5 without the calls (0.6 s of 1.1), about 0 with them, while TLP_1
/// stays about 1 (one rank is always outside). Before, the monitor did not
/// wrap MPI_Pcontrol and both runs read about 0.5.
///
/// Issue 37 item 7: the pause also stops every other figure, as it stops
/// mpiP's: each rank's wall time leaves out the paused 0.6 s (and more:
/// the barrier), the paused MPI_Barrier is in no figure (blocking time or
/// the per-call table), while the window's MPI_Recv (rank 0) and MPI_Send
/// of one 4-byte integer (rank 1) are, with its message.
#[test]
fn pcontrol_bounds_the_tlp_window_in_c_and_fortran() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    // Each in its own folder: both would be named `pcontrol`.
    let folder = |name: &str| {
        let folder = dir.path().join(name);
        std::fs::create_dir(&folder).unwrap();
        folder
    };
    let c = compile("mpicc", "pcontrol.c", &folder("c"));
    let profile = std::cell::RefCell::new(Vec::new());
    let fortran = compile("mpif90", "pcontrol.f90", &folder("fortran"));
    let tlp = |program: &Path, args: &[String], name: &str| {
        let jsonl = dir.path().join(format!("{name}.jsonl"));
        run_on_one_cpu(program, args, &jsonl);
        let (_, records) = records(&jsonl);
        profile
            .borrow_mut()
            .push((name.to_string(), records.clone()));
        let value = |metric: &str| {
            let host = host_records(&records, metric);
            assert_eq!(host.len(), 1, "{name}: {metric}");
            let (record, params) = &host[0];
            assert_eq!(params.cores, Some(1), "{name}: {record:?}");
            record.value
        };
        (value("tlp_1"), value("tlp_2"))
    };
    let (_, whole) = tlp(&c, &[], "whole");
    assert!(whole > 0.3, "without MPI_Pcontrol: TLP_2 {whole}");
    for (name, program, args) in [
        ("c", &c, vec!["window".to_string()]),
        ("fortran", &fortran, Vec::new()),
    ] {
        let (tlp_1, tlp_2) = tlp(program, &args, name);
        assert!(tlp_2 < 0.1, "{name}: TLP_2 of the window {tlp_2}");
        assert!(tlp_1 > 0.9, "{name}: TLP_1 of the window {tlp_1}");
    }
    let runs = profile.into_inner();
    let call_of = |record: &Record| params_of::<MonitorCallParams>(record).call;
    let calls = |records: &[Record], call: &str| -> Option<f64> {
        records
            .iter()
            .find(|record| {
                record.metric == "call_count" && call_of(record).as_deref() == Some(call)
            })
            .map(|record| record.value)
    };
    let (_, whole) = &runs[0];
    assert_eq!(
        calls(whole, "MPI_Barrier"),
        Some(2.0),
        "without MPI_Pcontrol"
    );
    for (name, records) in &runs {
        assert_eq!(calls(records, "MPI_Recv"), Some(1.0), "{name}");
        assert_eq!(calls(records, "MPI_Send"), Some(1.0), "{name}");
        let bytes = records
            .iter()
            .find(|record| {
                record.metric == "call_bytes" && call_of(record).as_deref() == Some("MPI_Send")
            })
            .unwrap_or_else(|| panic!("{name}: no call_bytes of MPI_Send: {records:?}"));
        assert_eq!(bytes.value, 4.0, "{name}: {bytes:?}");
        assert_eq!(rank_value(records, 1, "small_messages"), 1.0, "{name}");
    }
    for (name, records) in &runs[1..] {
        assert_eq!(calls(records, "MPI_Barrier"), None, "{name}: paused");
        for rank in [0, 1] {
            let wall = rank_value(records, rank, "wall_time");
            let unpaused = rank_value(whole, rank, "wall_time");
            assert!(
                wall < unpaused - 0.4,
                "{name}: rank {rank} wall time {wall} s, {unpaused} s without the pause"
            );
            // Rank 0 waited in MPI_Recv for most of the window.
            let mpi = rank_value(records, rank, "mpi_time");
            assert!(
                mpi <= wall,
                "{name}: rank {rank} mpi_time {mpi} > wall {wall}"
            );
        }
        let share = rank_value(records, 0, "mpi_share");
        assert!(
            share > 0.5,
            "{name}: rank 0 waited most of the window: {share}"
        );
    }
}

/// Issue 21 item 6: a host's `cores` is the cores its ranks ran on
/// (sampled with sched_getcpu), not the union of their affinity masks.
/// One busy rank bound to the package (both CPUs here), to a core, and
/// unbound: it ran on one core at a time, so `cores` is 1 and TLP_1 is
/// close to 1, however wide its mask. From the masks, package and
/// unbound gave 2 cores and TLP_1 = 0 (a busy rank read as idle cores).
#[test]
fn cores_are_where_the_ranks_ran_whatever_the_binding() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = compile("mpicc", "busy.c", dir.path());
    for bind in ["socket", "core", "none"] {
        let jsonl = dir.path().join(format!("{bind}.jsonl"));
        run(mpirun_monitored(1, &jsonl)
            .args(["--bind-to", bind])
            .arg(&program));
        let (_, records) = records(&jsonl);
        let tlp = host_records(&records, "tlp_1");
        assert_eq!(tlp.len(), 1, "{bind}");
        let (record, params) = &tlp[0];
        assert_eq!(
            params.cores_method.as_deref(),
            Some("sampled_cpu"),
            "{bind}: {record:?}"
        );
        assert_eq!(params.cores, Some(1), "{bind}: {record:?}");
        let allowed = if bind == "core" { 1 } else { 2 };
        assert_eq!(params.cores_allowed, Some(allowed), "{bind}: {record:?}");
        let value = record.value;
        assert!(value > 0.8, "{bind}: TLP_1 {value}");
    }
}

/// Starts long_busy (2 ranks, 60 s) under the monitor with
/// `NUMABENCH_MPI_FLUSH=flush`; returns mpirun and the pid of `rank`
/// once it has written it.
fn start_long_busy(
    dir: &Path,
    jsonl: &Path,
    flush: &str,
    rank: usize,
) -> (std::process::Child, i32) {
    let program = compile("mpicc", "long_busy.c", dir);
    let mut child = mpirun_monitored(2, jsonl)
        .arg("-x")
        .arg(format!("NUMABENCH_MPI_FLUSH={flush}"))
        .arg(&program)
        .arg("60")
        .arg(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("mpirun starts");
    let pid_file = dir.join(format!("rank-{rank}.pid"));
    for _ in 0..300 {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            return (child, pid);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("long_busy did not start");
}

/// Waits (at most 60 s) for mpirun to end, killing it if need be.
fn reap(mut child: std::process::Child) {
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A rank's partial file: metadata marked partial, then its per-rank
/// records, each marked partial; returns its wall_time.
fn partial_wall_time(jsonl: &Path, rank: i64) -> f64 {
    let path = PathBuf::from(format!("{}.partial-{rank}", jsonl.display()));
    let (metadata, records) = records(&path);
    assert_eq!(metadata.partial, Some(true), "{}", path.display());
    assert_eq!(records.len(), 14, "{}", path.display());
    assert!(
        records
            .iter()
            .all(|record| params_part::<PartialMark>(record).partial == Some(true)),
        "{records:?}"
    );
    rank_value(&records, rank, "wall_time")
}

/// Issue 21 item 9: one rank SIGKILLed 2 s into a 60 s job (mpirun then
/// ends the job): with NUMABENCH_MPI_FLUSH=0.2 each rank's records up to
/// its last snapshot are in `<out>.partial-<rank>`, marked partial, with
/// more than 1 s of wall time; there is no complete file. Before, a job
/// that never reached MPI_Finalize left nothing.
#[test]
fn a_killed_job_leaves_partial_records_up_to_the_last_flush() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("out.jsonl");
    let (child, pid) = start_long_busy(dir.path(), &jsonl, "0.2", 1);
    std::thread::sleep(std::time::Duration::from_secs(2));
    // SAFETY: signals a rank this test started.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    reap(child);
    assert!(!jsonl.exists(), "no complete file from a killed job");
    for rank in [0, 1] {
        let wall = partial_wall_time(&jsonl, rank);
        assert!((1.0..60.0).contains(&wall), "rank {rank}: wall_time {wall}");
    }
}

/// Issue 21 item 9: SIGTERM to one rank, with periodic snapshots off
/// (NUMABENCH_MPI_FLUSH=0): the rank writes its partial file before it
/// dies of the SIGTERM.
#[test]
fn sigterm_writes_the_ranks_partial_records() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("out.jsonl");
    let (child, pid) = start_long_busy(dir.path(), &jsonl, "0", 1);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: signals a rank this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    reap(child);
    let wall = partial_wall_time(&jsonl, 1);
    assert!((1.0..60.0).contains(&wall), "wall_time {wall}");
}

/// Issue 21 item B: a symbolic link planted at the output path (and at
/// the name of its partial file) is replaced by the monitor's own file,
/// never written through: the file it points to keeps its bytes, and the
/// output is a regular file of mode 0600. Before, `std::fs::write`
/// followed the link and overwrote its target.
#[test]
fn a_symlink_planted_at_the_output_is_not_followed() {
    use std::os::unix::fs::PermissionsExt;
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = compile("mpicc", "busy.c", dir.path());
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep").unwrap();
    let jsonl = dir.path().join("out.jsonl");
    std::os::unix::fs::symlink(&victim, &jsonl).unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join("out.jsonl.partial-0")).unwrap();
    run(mpirun_monitored(1, &jsonl)
        .args(["-x", "NUMABENCH_MPI_FLUSH=0.1"])
        .arg(&program));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    let metadata = std::fs::symlink_metadata(&jsonl).unwrap();
    assert!(metadata.is_file(), "the link was replaced by a file");
    assert_eq!(metadata.permissions().mode() & 0o777, 0o600);
    let (_, records) = records(&jsonl);
    assert!(rank_value(&records, 0, "wall_time") > 0.4);
}

/// Issue 37 item 8: where the MPI buffers live. halo.c's exchanges send and
/// receive rows of 4096 doubles (32 KiB, above the 16 KiB the monitor
/// samples): every rank reports `buffer_local_share` with pages sampled
/// from its sends and receives (one buffer in 16, 4 pages each). The rows
/// were first touched by the rank itself, so on a machine with one NUMA
/// node every answered page is on the rank's node; on a larger one the
/// ranks (unbound) may have moved, so only the bounds hold there.
#[test]
fn large_buffers_are_located_per_rank() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = compile("mpicc", "halo.c", dir.path());
    let jsonl = dir.path().join("halo.jsonl");
    run(mpirun_monitored(2, &jsonl)
        .args(["--bind-to", "none"])
        .arg(&program)
        .args(["4096", "4", "200"]));
    let (_, records) = records(&jsonl);
    let nodes = std::fs::read_dir("/sys/devices/system/node")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|entry| {
                    let name = entry.file_name();
                    let name = name.to_string_lossy();
                    name.strip_prefix("node")
                        .is_some_and(|n| n.parse::<u32>().is_ok())
                })
                .count()
        })
        .unwrap_or(1);
    for rank in [0, 1] {
        let record = records
            .iter()
            .find(|record| {
                record.metric == BUFFER_LOCAL_SHARE && rank_params(record).rank == Some(rank)
            })
            .unwrap_or_else(|| panic!("no buffer_local_share for rank {rank}: {records:?}"));
        let params: MonitorBufferParams = params_of(record);
        // 200 sweeps x 2 Sendrecv, each rank's a send and a receive with
        // the other rank and a send and a receive with MPI_PROC_NULL
        // (nothing moves: not a buffer): 400 buffers, the first and every
        // 16th sampled.
        assert_eq!(params.large_buffers, Some(400), "{record:?}");
        assert_eq!(params.sampled_buffers, Some(25), "{record:?}");
        let local = params
            .pages_local
            .unwrap_or_else(|| panic!("no pages_local: {record:?}"));
        let remote = params
            .pages_remote
            .unwrap_or_else(|| panic!("no pages_remote: {record:?}"));
        assert!(local + remote > 0, "{record:?}");
        let share = record.value;
        assert!((0.0..=1.0).contains(&share), "{record:?}");
        if nodes <= 1 {
            assert_eq!((share, remote), (1.0, 0), "one node: {record:?}");
        }
    }
}
