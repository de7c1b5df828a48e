//! `numabench cluster` with real OpenMPI ranks on this machine: records of
//! every rank arrive at rank 0 tagged, extra ranks of a host stay idle with
//! `--per node`, bad input ends every rank with status 2, and a rank that
//! fails is named while the others' records are kept.

pub use crate::alone;
pub use crate::records::{params_of, params_part, read_typed_runs};
use numabench_schema::params::{
    ClusterFailureParams, ClusterLabels, ClusterStreamLabels, ClusterTopoParams,
    ClusterVerdictParams, PingpongPairParams,
};
use numabench_schema::Record;
use std::path::Path;
use std::process::{Command, Output};

/// The numabench binary cargo built for these tests (with `mpi`).
pub fn numabench() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_numabench"))
}

/// `mpirun` with `ranks` ranks of `args` (program first) on this machine,
/// ended after 10 minutes at worst.
fn mpirun(ranks: usize, args: &[&str]) -> Output {
    Command::new("timeout")
        .args([
            "600",
            "mpirun",
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
        ])
        .arg(ranks.to_string())
        .args(args)
        .output()
        .expect("mpirun runs (OpenMPI: scripts/setup installs openmpi-bin)")
}

/// The records of a `--jsonl` file read through the schema crate's reader,
/// strictly (a line that is not a record with its run metadata fails the
/// test, naming the line), every line's run numabench's: what the cluster
/// tests check is what a reader of the file gets.
pub fn typed_records(path: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(path).expect("jsonl written");
    let (runs, records) = read_typed_runs(&path.display().to_string(), &text);
    assert!(runs.iter().all(|run| run.tool == "numabench"), "{runs:?}");
    records
}

/// The labels a cluster rank adds to a record it made (host, rank, unit,
/// part, key); each `None` where the record lacks it.
pub fn labels(record: &Record) -> ClusterLabels {
    params_of(record)
}

/// The labels the `stream` part puts before a triad record's own params
/// (its node and CPU order). They claim no benchmark's records (no
/// [`BenchmarkParams`]), so they are read as a part of the params.
pub fn stream_labels(record: &Record) -> ClusterStreamLabels {
    params_part(record)
}

/// Whether `record` is of `benchmark` and `metric`.
pub fn is(record: &Record, benchmark: &str, metric: &str) -> bool {
    record.benchmark == benchmark && record.metric == metric
}

pub fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string()
}

/// An output's status, stdout and stderr, for a failed assertion's message.
pub fn text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The params of the `failed` records of a cluster run: one per rank and
/// part that failed.
pub fn typed_failed(records: &[Record]) -> Vec<ClusterFailureParams> {
    records
        .iter()
        .filter(|r| is(r, "cluster", "failed"))
        .map(params_of)
        .collect()
}

/// `mpirun` with `ranks` ranks of `numabench cluster ARGS --jsonl JSONL` on
/// this machine.
fn mpirun_cluster(ranks: usize, args: &[&str], jsonl: &Path) -> Output {
    let mut full = vec![numabench().to_str().unwrap(), "cluster"];
    full.extend_from_slice(args);
    full.extend(["--jsonl", jsonl.to_str().unwrap()]);
    mpirun(ranks, &full)
}

/// The verdict record (last) with its params.
pub fn typed_verdict(records: &[Record]) -> (&Record, ClusterVerdictParams) {
    let last = records.last().expect("records");
    assert!(is(last, "cluster", "verdict"), "{last:?}");
    (last, params_of(last))
}

/// Three ranks, each its own unit (`--per rank`), measured one at a time:
/// every rank's records of every part reach rank 0's file tagged with this
/// host and the rank, every pair ping-pongs, and the exit status is the
/// verdict's.
#[test]
fn every_rank_measures_and_its_records_arrive_tagged() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("cluster.jsonl");
    let args = [&["--sequential", "--per", "rank"][..], &QUICK].concat();
    let output = mpirun_cluster(3, &args, &jsonl);
    let records = typed_records(&jsonl);
    let host = this_host();
    for rank in 0..3 {
        let unit = format!("{host}/rank {rank}");
        let of_rank: Vec<(&Record, ClusterLabels)> = records
            .iter()
            .filter(|r| r.benchmark != "cluster")
            .map(|r| (r, labels(r)))
            .filter(|(_, labels)| labels.rank == Some(rank))
            .collect();
        for (record, labels) in &of_rank {
            assert_eq!(labels.host.as_deref(), Some(host.as_str()), "{record:?}");
        }
        for (part, benchmark, key) in [
            ("topo", "cluster-topo", None),
            ("stream", "bandwidth", Some("triad_bandwidth node ")),
            ("latency", "latency", Some("latency node ")),
            (
                "matrix",
                "matrix-bandwidth",
                Some("matrix read_bandwidth node "),
            ),
            // Every rank on this one host: their pairs are same-host
            // pairs, a metric of their own (issue 21, item 13).
            (
                "pingpong",
                "mpi-pingpong",
                Some("pingpong same-host latency"),
            ),
        ] {
            let found = of_rank.iter().find(|(r, labels)| {
                labels.part.as_deref() == Some(part)
                    && r.benchmark == benchmark
                    && key.is_none_or(|k| {
                        labels
                            .cluster_key
                            .as_deref()
                            .is_some_and(|c| c.starts_with(k))
                    })
            });
            let (_, found) =
                found.unwrap_or_else(|| panic!("rank {rank}: no {part} record\n{}", text(&output)));
            assert_eq!(found.unit.as_deref(), Some(unit.as_str()));
        }
        let (settings, _) = of_rank
            .iter()
            .find(|(r, _)| r.benchmark == "cluster-topo")
            .unwrap();
        let settings = params_of::<ClusterTopoParams>(settings).settings.unwrap();
        assert!(settings.numa_nodes.unwrap() >= 1);
    }
    let pairs: Vec<(u64, u64)> = records
        .iter()
        .filter(|r| is(r, "mpi-pingpong", "latency"))
        .map(|r| {
            assert!(r.value > 0.0);
            let pair: PingpongPairParams = params_of(r);
            (pair.rank_a.unwrap(), pair.rank_b.unwrap())
        })
        .collect();
    assert_eq!(pairs, vec![(0, 1), (0, 2), (1, 2)], "{}", text(&output));
    let (verdict, params) = typed_verdict(&records);
    assert_eq!(params.units, Some(3));
    assert_eq!(params.hosts, Some(1));
    let problems = verdict.value;
    let expected = if problems > 0.0 { 1 } else { 0 };
    assert_eq!(output.status.code(), Some(expected), "{}", text(&output));
    assert_eq!(
        records.iter().filter(|r| r.metric == "outlier").count() as f64,
        problems,
        "one host: nothing can differ or fail here"
    );
}

/// `--per node`: one unit per host, so the second rank on this host stays
/// idle and is named; one unit cannot be an outlier, and the run says so
/// and exits 0.
#[test]
fn extra_ranks_of_a_host_stay_idle_and_one_unit_flags_nothing() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("node.jsonl");
    let output = mpirun_cluster(
        2,
        &["--only", "topo,latency", "--size", "4M", "--repeat", "2"],
        &jsonl,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let records = typed_records(&jsonl);
    assert!(records
        .iter()
        .filter(|r| r.benchmark != "cluster")
        .map(labels)
        .all(|l| l.rank == Some(0) && l.unit.as_deref() == Some(this_host().as_str())));
    assert!(records.iter().any(|r| r.benchmark == "latency"));
    let (verdict, params) = typed_verdict(&records);
    assert_eq!(verdict.value, 0.0);
    let idle = format!("{} (rank 1)", this_host());
    assert_eq!(params.idle_ranks, Some(vec![idle]));
    let notes = params.notes.unwrap_or_default().join("\n");
    assert!(notes.contains("no unit can be an outlier"), "{notes}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("0 outliers, 0 differing settings, 0 failed"),
        "{stdout}"
    );
}

/// Bad input: every rank stops with one line naming the value and status
/// 2 before measuring; an unwritable output ends the job with status 2.
#[test]
fn bad_input_ends_every_rank_with_status_2() {
    let _alone = alone();
    let program = numabench().to_str().unwrap();
    for (args, named) in [
        (vec!["--only", "strem"], "'strem'"),
        (
            vec!["--skip", "topo,stream,latency,matrix,pingpong"],
            "no cluster part",
        ),
        (vec!["--mad-k", "0"], "'0'"),
        (vec!["--min-deviation", "-1"], "'-1'"),
        (vec!["--size", "12Q"], "12Q"),
        (vec!["--per", "socket"], "socket"),
        (vec!["--timeout", "500ms"], "--timeout"),
        (
            vec!["--jsonl", "/nonexistent-dir/c.jsonl"],
            "/nonexistent-dir/c.jsonl",
        ),
    ] {
        let mut full = vec![program, "cluster", "--only", "topo"];
        full.extend(args.iter().copied());
        let output = mpirun(2, &full);
        assert_eq!(output.status.code(), Some(2), "{args:?}\n{}", text(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|line| line.starts_with("numabench: error:"))
            .collect();
        assert!(!lines.is_empty(), "{args:?}\n{stderr}");
        assert!(
            lines.iter().all(|line| line.contains(named)),
            "{args:?}\n{stderr}"
        );
        assert!(
            output.stdout.is_empty()
                || !String::from_utf8_lossy(&output.stdout).contains("cluster:")
        );
    }
}

/// `mpirun` of two ranks on this machine: rank 0 runs `numabench
/// cluster ARGS`, rank 1 the shell command `rank1` (which execs numabench).
fn mpirun_mpmd(options: &[&str], args: &[&str], rank1: &str) -> Output {
    Command::new("timeout")
        .args(["600", "mpirun", "--allow-run-as-root", "--oversubscribe"])
        .args(options)
        .args(["-np", "1"])
        .arg(numabench())
        .args(args)
        .args([":", "-np", "1", "sh", "-c", rank1])
        .output()
        .expect("mpirun runs")
}

/// Sizes for a quick run: a 4 MiB working set, 2 repetitions, a 64 KiB
/// ping-pong.
pub const QUICK: [&str; 6] = ["--size", "4M", "--repeat", "2", "--pingpong-size", "64K"];

/// `cluster` of the ping-pong only, every rank its own unit, with a short
/// exchange (2 repetitions of 64 KiB); further options follow.
pub const PINGPONG: [&str; 9] = [
    "cluster",
    "--per",
    "rank",
    "--only",
    "pingpong",
    "--repeat",
    "2",
    "--pingpong-size",
    "64K",
];

/// A small `cluster` run of every rank measured one at a time, topology
/// and stream only, its working-set size to follow (`--size` last).
pub const SMALL: [&str; 9] = [
    "cluster",
    "--sequential",
    "--per",
    "rank",
    "--only",
    "topo,stream",
    "--repeat",
    "2",
    "--size",
];

/// Rank 1 cannot hold its buffers (a 1.5 GB address-space limit under a
/// 2 GiB working set, which only rank 1 has): its part is reported failed,
/// by host, rank and part, with the limit named, rank 0's records are kept,
/// and the exit status is 1 (not a job-wide refusal: the other ranks could
/// measure).
#[test]
fn a_failing_rank_is_named_and_the_others_records_are_kept() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("fail.jsonl");
    let mut args: Vec<&str> = SMALL.to_vec();
    args.extend(["4M", "--jsonl", jsonl.to_str().unwrap()]);
    let rank1 = format!(
        "ulimit -v 1500000; exec {} {} 2G",
        numabench().display(),
        SMALL.join(" ")
    );
    let output = mpirun_mpmd(&[], &args, &rank1);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let records = typed_records(&jsonl);
    let failed = typed_failed(&records);
    assert_eq!(failed.len(), 1, "{}", text(&output));
    assert_eq!(failed[0].who.host.as_deref(), Some(this_host().as_str()));
    assert_eq!(failed[0].who.rank, Some(1));
    assert_eq!(failed[0].part.as_deref(), Some("stream"));
    // Refused where its buffers are placed, naming the limit, before
    // anything is allocated (no OOM kill, no half-measured part).
    assert!(failed[0].error.as_deref().unwrap().contains("memory limit"));
    assert!(records
        .iter()
        .any(|r| r.benchmark == "bandwidth" && labels(r).rank == Some(0)));
    // Rank 1's topo part still arrived.
    assert!(records
        .iter()
        .any(|r| r.benchmark == "cluster-topo" && labels(r).rank == Some(1)));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("FAILED   {} (rank 1), part stream", this_host())),
        "{stdout}"
    );
}

/// Rank 1 is killed (SIGKILL) 4 s after it started, once the start
/// exchange is over: waiting for its turn, or measuring (it was asked
/// for far more repetitions than it can make in that time). With OpenMPI
/// told not to end the job on a failed process, rank 0 gives up on it
/// after `--timeout`, names it, writes the verdict with its own records,
/// and ends the job (MPI_Abort: MPI_Finalize would wait for the dead).
#[test]
fn a_killed_rank_is_named_after_the_timeout() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("killed.jsonl");
    let mut args: Vec<&str> = SMALL.to_vec();
    args.extend(["4M", "--timeout", "5s", "--jsonl", jsonl.to_str().unwrap()]);
    // Rank 1 repeats its triad 100000 times (every one: no early stop once
    // its figure converges): it cannot be done in 4 s.
    let rank1 = format!(
        "NUMABENCH_FIXED_REPETITIONS=1 exec timeout -s KILL 4 {} {} 4M",
        numabench().display(),
        SMALL.join(" ").replace("--repeat 2", "--repeat 100000")
    );
    let output = mpirun_mpmd(
        &["--mca", "orte_abort_on_non_zero_status", "0"],
        &args,
        &rank1,
    );
    assert_ne!(output.status.code(), Some(0), "{}", text(&output));
    let records = typed_records(&jsonl);
    let failed = typed_failed(&records);
    assert_eq!(failed.len(), 1, "{}", text(&output));
    assert_eq!(failed[0].who.rank, Some(1));
    assert!(failed[0]
        .error
        .as_deref()
        .unwrap()
        .contains("no answer within 5 s"));
    assert!(records
        .iter()
        .any(|r| r.benchmark == "bandwidth" && labels(r).rank == Some(0)));
    assert_eq!(typed_verdict(&records).1.failed, Some(1));
}

/// Ranks bound to a core each (`--bind-to core`): each measures inside its
/// own cpuset, which its settings record names, with threads on exactly
/// those CPUs; the two ranks' CPUs do not overlap.
#[test]
fn each_rank_measures_inside_the_cpus_it_was_given() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("bound.jsonl");
    let output = Command::new("timeout")
        .args(["600", "mpirun", "--allow-run-as-root", "--oversubscribe"])
        .args(["--bind-to", "core", "-np", "2"])
        .arg(numabench())
        .args(["cluster", "--per", "rank", "--only", "topo,stream"])
        .args(["--size", "4M", "--repeat", "2", "--jsonl"])
        .arg(&jsonl)
        .output()
        .unwrap();
    let records = typed_records(&jsonl);
    let mut given = Vec::new();
    for rank in 0..2 {
        let of = |benchmark: &str| {
            records
                .iter()
                .find(|r| r.benchmark == benchmark && labels(r).rank == Some(rank))
                .unwrap_or_else(|| panic!("rank {rank}: no {benchmark}\n{}", text(&output)))
        };
        let allowed = params_of::<ClusterTopoParams>(of("cluster-topo"))
            .allowed_cpus
            .unwrap();
        assert_eq!(allowed.len(), 1, "one core each: {allowed:?}");
        let bandwidth = of("bandwidth");
        let requested = bandwidth.placement.requested_as();
        let cpus = requested
            .unwrap_or_else(|| panic!("placement.requested not typed: {bandwidth:?}"))
            .cpus;
        let expected: Vec<Option<u32>> = allowed.iter().copied().map(Some).collect();
        assert_eq!(cpus, Some(expected), "rank {rank}");
        given.push(allowed);
    }
    assert_ne!(
        given[0], given[1],
        "OpenMPI binds the two ranks to two cores"
    );
}

/// `--per numa`: one unit per NUMA node with CPUs, named `HOST/node N`,
/// each compared on its local figures.
#[test]
fn per_numa_measures_each_node_as_a_unit() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("numa.jsonl");
    let output = mpirun_cluster(
        1,
        &[
            "--per",
            "numa",
            "--only",
            "stream,latency",
            "--size",
            "4M",
            "--repeat",
            "2",
        ],
        &jsonl,
    );
    let records = typed_records(&jsonl);
    let nodes: Vec<u32> = records
        .iter()
        .filter(|r| r.benchmark == "bandwidth")
        .map(|r| stream_labels(r).node)
        .collect();
    assert!(!nodes.is_empty(), "{}", text(&output));
    for node in nodes {
        let unit = format!("{}/node {node}", this_host());
        for key in ["triad_bandwidth local", "latency local"] {
            assert!(
                records
                    .iter()
                    .map(labels)
                    .any(|l| l.unit.as_deref() == Some(unit.as_str())
                        && l.cluster_key.as_deref() == Some(key)),
                "{unit}: no {key}\n{}",
                text(&output)
            );
        }
    }
}

/// Processes whose parent is `parent`, with their command lines.
fn children_of(parent: u32) -> Vec<(u32, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let ppid: u32 = stat[stat.rfind(')')? + 2..]
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            let rank = environ
                .split(|&byte| byte == 0)
                .find_map(|var| var.strip_prefix(b"OMPI_COMM_WORLD_RANK="))
                .map(|value| String::from_utf8_lossy(value).to_string())
                .unwrap_or_default();
            (ppid == parent).then_some((pid, rank))
        })
        .collect()
}

/// Issue 21 item 24: SIGTERM to rank 0 alone (as a batch system's or
/// mpirun's own) while `cluster` measures: rank 0 ends at once with status
/// 143 and one line, its `--jsonl` holds the records measured so far, and
/// no rank survives. Before the fix SIGTERM killed rank 0 by the signal
/// (no line, no status 143).
#[test]
fn sigterm_to_rank_0_keeps_the_records_and_exits_143() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("cluster.jsonl");
    let mut mpirun = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "2"])
        .arg(numabench())
        .args(["cluster", "--sequential", "--per", "rank", "--size", "4M"])
        .args(["--repeat", "200", "--pingpong-size", "64K", "--jsonl"])
        .arg(&jsonl)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    // A record beyond the metadata line: rank 0 has measured something
    // (the file's lines counted as text: it is still being written).
    while std::fs::read_to_string(&jsonl).map_or(0, |text| text.lines().count()) < 2 {
        assert!(start.elapsed().as_secs() < 120, "no record after 120 s");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let ranks = children_of(mpirun.id());
    let rank0 = ranks
        .iter()
        .find(|(_, rank)| rank == "0")
        .unwrap_or_else(|| panic!("rank 0 among {ranks:?}"))
        .0;
    // SAFETY: signals the rank 0 process this test started through mpirun.
    unsafe { libc::kill(rank0 as i32, libc::SIGTERM) };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while mpirun.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            // Leave nothing running behind a failed test.
            for (pid, _) in &ranks {
                // SAFETY: signals a rank this test started.
                unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
            }
            let _ = mpirun.kill();
            let _ = mpirun.wait();
            panic!("mpirun still running 60 s after SIGTERM");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let output = mpirun.wait_with_output().unwrap();
    let output_text = text(&output);
    assert!(
        output_text.contains("cluster: interrupted (signal 15)"),
        "{output_text}"
    );
    assert!(
        output_text.contains("143"),
        "rank 0's exit status\n{output_text}"
    );
    assert!(!typed_records(&jsonl).is_empty());
    for (pid, _) in ranks {
        assert!(
            !Path::new(&format!("/proc/{pid}/cmdline")).exists() || {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                stat.rsplit(')')
                    .next()
                    .is_some_and(|rest| rest.trim_start().starts_with('Z'))
            },
            "rank {pid} survived\n{output_text}"
        );
    }
}
