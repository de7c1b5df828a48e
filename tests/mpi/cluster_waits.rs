//! How `cluster`'s ranks wait (issue 21, items 14 and 17), with real
//! OpenMPI ranks on this machine: a rank waiting for its turn sleeps
//! instead of spinning, and a rank stopped (SIGSTOP) in the middle of the
//! ping-pong is named, skipped for the rest of the run, and does not hang
//! the job, while a pair only slowed past twice the timeout names no one.

use crate::cluster::{
    alone, is, labels, numabench, params_of, typed_failed, typed_records, typed_verdict, PINGPONG,
};
use numabench_schema::params::PingpongPairParams;
use numabench_schema::read::{read_results, Mode, Results};
use numabench_schema::Record;
use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `timeout -k 5 150 mpirun -np RANKS numabench ARGS`, started in the
/// background with its output in `dir`.
fn spawn_mpirun(dir: &Path, ranks: usize, args: &[&str]) -> Child {
    Command::new("timeout")
        .args(["--kill-after=5", "150", "mpirun"])
        .args(["--allow-run-as-root", "--oversubscribe"])
        .args(["-np", &ranks.to_string()])
        .arg(numabench())
        .args(args)
        .stdout(Stdio::from(File::create(dir.join("stdout")).unwrap()))
        .stderr(Stdio::from(File::create(dir.join("stderr")).unwrap()))
        .spawn()
        .expect("mpirun runs")
}

fn output_text(dir: &Path) -> String {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    format!("stdout:\n{}\nstderr:\n{}", read("stdout"), read("stderr"))
}

/// The pid of the numabench rank `rank` whose command line holds `marker`
/// (a path unique to one test), found through /proc.
fn rank_pid(marker: &str, rank: usize) -> Option<u32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline);
        if !cmdline.contains(marker) || !cmdline.contains("cluster") {
            continue;
        }
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let wanted = format!("OMPI_COMM_WORLD_RANK={rank}");
        if environ
            .split(|&b| b == 0)
            .any(|var| var == wanted.as_bytes())
        {
            return Some(pid);
        }
    }
    None
}

/// User plus system CPU time of `pid` so far (/proc/PID/stat), in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (in parentheses): state is field 3,
    // utime 14 and stime 15.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    ticks / hz
}

/// The records of `jsonl` so far (none while it does not exist yet), read
/// leniently: a line still being written is skipped.
fn records_so_far(jsonl: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(jsonl).unwrap_or_default();
    read_results(&jsonl.display().to_string(), &text, Mode::Lenient)
        .map(Results::into_records)
        .unwrap_or_default()
}

/// Waits up to `limit` for `found` to hold of the records written so far.
fn wait_for(jsonl: &Path, limit: Duration, found: impl Fn(&[Record]) -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if found(&records_so_far(jsonl)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Item 17: with `--sequential --per rank`, ranks 1 and 2 wait for their
/// turn while rank 0 measures a long latency chase. Each waiting rank's
/// CPU time over 2 s of that wait must stay under 5% of a CPU. Before,
/// they sat in OpenMPI's blocking receive, which spins: each used most of
/// a CPU (and slowed the host's measuring rank, which on the namespace
/// hosts flagged the undisturbed host running mpirun).
#[test]
fn ranks_waiting_for_their_turn_use_under_5_percent_of_a_cpu() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("waits.jsonl");
    let marker = jsonl.to_str().unwrap();
    let args = [
        "cluster",
        "--sequential",
        "--per",
        "rank",
        "--only",
        "topo,latency",
        "--size",
        "1G",
        "--repeat",
        "3",
        "--jsonl",
        marker,
    ];
    let mut child = spawn_mpirun(dir.path(), 3, &args);
    let of_rank =
        |records: &[Record], rank: i64| records.iter().any(|r| labels(r).rank == Some(rank));
    // Rank 0's topo record: the start exchange is over and it measures.
    let started = wait_for(&jsonl, Duration::from_secs(120), |r| of_rank(r, 0));
    assert!(started, "rank 0 never wrote\n{}", output_text(dir.path()));
    let pids: Vec<u32> = [1, 2]
        .iter()
        .map(|&rank| rank_pid(marker, rank).expect("waiting rank found"))
        .collect();
    let before: Vec<f64> = pids.iter().map(|&pid| cpu_seconds(pid)).collect();
    let window = Instant::now();
    std::thread::sleep(Duration::from_secs(2));
    let after: Vec<f64> = pids.iter().map(|&pid| cpu_seconds(pid)).collect();
    let seconds = window.elapsed().as_secs_f64();
    let so_far = records_so_far(&jsonl);
    let waited_throughout = !of_rank(&so_far, 1)
        && !so_far
            .iter()
            .any(|r| labels(r).rank == Some(0) && r.metric == "latency");
    let status = child.wait().unwrap();
    assert!(
        waited_throughout,
        "rank 0 finished its latency within the window: the 1G chase is too short here\n{}",
        output_text(dir.path())
    );
    for (rank, (b, a)) in before.iter().zip(&after).enumerate() {
        let share = (a - b) / seconds;
        assert!(
            share < 0.05,
            "rank {} used {:.0}% of a CPU while waiting\n{}",
            rank + 1,
            share * 100.0,
            output_text(dir.path())
        );
    }
    // 0, or 1 when this shared machine's noise made an outlier (ranks of
    // one host measured one after another): never a failure or an error.
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "{status:?}\n{}",
        output_text(dir.path())
    );
    let records = typed_records(&jsonl);
    assert_eq!(typed_verdict(&records).1.failed, Some(0));
}

/// Item 14: four ranks (`--per rank`, ping-pong only, `--timeout 3s`):
/// pairs run in the order (0,1) (0,2) (0,3) (1,2) (1,3) (2,3). Once the
/// (0,3) pair's records are written, rank 2 is stopped with SIGSTOP: the
/// next pair (1,2), led by rank 1, has a partner that no longer answers.
/// Rank 1 times out its exchange and names rank 2, rank 0 skips rank 2 for
/// the rest of the run ((2,3) is never measured, (1,3) is), writes the
/// verdict with rank 2 failed (and only it) and ends the job. Before, rank
/// 1 blocked in its send for ever, rank 0 blamed rank 1 (the silent
/// leader), and then rank 2 again with the next pair: two failures, the
/// wrong rank first.
#[test]
fn a_rank_stopped_mid_pingpong_is_named_and_skipped() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("stopped.jsonl");
    let marker = jsonl.to_str().unwrap();
    let args = [&PINGPONG[..], &["--timeout", "3s", "--jsonl", marker]].concat();
    let start = Instant::now();
    let mut child = spawn_mpirun(dir.path(), 4, &args);
    let pair = has_pair;
    let reached = wait_for(&jsonl, Duration::from_secs(120), |r| pair(r, 0, 3));
    assert!(
        reached,
        "pair (0,3) never measured\n{}",
        output_text(dir.path())
    );
    let stopped = rank_pid(marker, 2).expect("rank 2 found");
    // SAFETY: kill has no memory preconditions; the pid is rank 2's.
    unsafe { libc::kill(stopped as i32, libc::SIGSTOP) };
    // Rank 0 writes the verdict: the run did not hang on the stopped rank.
    let ended = wait_for(&jsonl, Duration::from_secs(120), |r| {
        r.last().is_some_and(|last| last.metric == "verdict")
    });
    let took = start.elapsed();
    // Then rank 0 ends the job (MPI_Abort). OpenMPI's own clean-up of a
    // stopped process once hung mpirun here after every rank had exited:
    // whatever it does, leave no stopped process behind.
    let mut status = None;
    for _ in 0..300 {
        status = child.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: as above (the process may be gone already).
    unsafe { libc::kill(stopped as i32, libc::SIGKILL) };
    if status.is_none() {
        // `timeout` ends mpirun with SIGKILL at worst.
        let _ = child.wait();
    }
    assert!(
        ended,
        "no verdict after {took:?}: the job hung\n{}",
        output_text(dir.path())
    );
    assert!(
        status.is_none_or(|status| !status.success()),
        "{status:?}\n{}",
        output_text(dir.path())
    );
    let records = typed_records(&jsonl);
    let failed = typed_failed(&records);
    assert_eq!(failed.len(), 1, "{failed:?}\n{}", output_text(dir.path()));
    assert_eq!(failed[0].who.rank, Some(2));
    assert_eq!(failed[0].part.as_deref(), Some("pingpong"));
    let error = failed[0].error.as_deref().unwrap();
    assert!(
        error.contains("did not answer the ping-pong with rank 1 within 3 s"),
        "{error}"
    );
    assert!(pair(&records, 1, 3), "(1,3) measured after the stop");
    assert!(!pair(&records, 2, 3), "(2,3) skipped");
    assert_eq!(typed_verdict(&records).1.failed, Some(1));
    let stdout = std::fs::read_to_string(dir.path().join("stdout")).unwrap();
    assert!(
        stdout.contains("(rank 2), part pingpong: did not answer"),
        "{stdout}"
    );
}

/// Whether `records` hold the bandwidth record of the pair (`a`, `b`).
fn has_pair(records: &[Record], a: u64, b: u64) -> bool {
    records
        .iter()
        .filter(|r| is(r, "mpi-pingpong", "bandwidth"))
        .map(params_of::<PingpongPairParams>)
        .any(|p| p.rank_a == Some(a) && p.rank_b == Some(b))
}

/// Nanoseconds the main thread of `pid` has run so far, from
/// /proc/PID/task/PID/schedstat (None where the kernel does not keep it).
fn ran_ns(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/schedstat")).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Continues the stopped `pid` and waits until it has run 1 ms (up to
/// 500 ms; 20 ms where schedstat is missing): long enough to answer the
/// exchange it was stopped in, too short to get far with the next ones.
fn continue_briefly(pid: u32) {
    let before = ran_ns(pid);
    // SAFETY: kill has no memory preconditions; the pid is a rank's.
    unsafe { libc::kill(pid as i32, libc::SIGCONT) };
    let Some(before) = before else {
        std::thread::sleep(Duration::from_millis(20));
        return;
    };
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(500)
        && ran_ns(pid).is_some_and(|now| now < before + 1_000_000)
    {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// A pair slowed past twice `--timeout` names no one, as long as each of
/// its exchanges answers in time. Three ranks, `--timeout 4s`: once pair
/// (0,2) is written, pair (1,2), led by rank 1, is next, and rank 2 is
/// stopped for 1 s ten times over, continued between the stops for as
/// long as it takes to run 1 ms. No exchange waits past 4 s, but the pair
/// takes more than 10 s, longer than the 8 s rank 0 waits for a word from
/// a leader. Before, rank 1 sent nothing to rank 0 until its pair was
/// done, and rank 0 named it ("no answer within 8 s") though it was
/// measuring: the same happened in CI to a pair slowed only by a busy
/// host. Now a leader says it is alive every quarter of the timeout.
#[test]
fn a_pair_slower_than_twice_the_timeout_names_no_one() {
    const STOPS: u32 = 10;
    const STOPPED: Duration = Duration::from_secs(1);
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("slowed.jsonl");
    let marker = jsonl.to_str().unwrap();
    // 30 repetitions: the pair runs far longer than rank 2 does between
    // the stops, so every stop falls inside it. Each bandwidth sample
    // moves 64 MiB each way: 0.13 s for 30 at 30 GB/s, 0.35 s here at
    // 11 GB/s.
    // PINGPONG's command and parts, with its own sizes.
    let sizes = ["--repeat", "30", "--pingpong-size", "64K"];
    let args = [
        &PINGPONG[..5],
        &sizes,
        &["--timeout", "4s", "--jsonl", marker],
    ]
    .concat();
    assert_eq!(
        args[..5],
        ["cluster", "--per", "rank", "--only", "pingpong"]
    );
    let mut child = spawn_mpirun(dir.path(), 3, &args);
    let start = Instant::now();
    let slowed = loop {
        if let Some(pid) = rank_pid(marker, 2) {
            break pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "rank 2 never started\n{}",
            output_text(dir.path())
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let reached = wait_for(&jsonl, Duration::from_secs(120), |r| has_pair(r, 0, 2));
    assert!(
        reached,
        "pair (0,2) never measured\n{}",
        output_text(dir.path())
    );
    let mut stops_before_the_pair_ended = 0;
    for _ in 0..STOPS {
        if has_pair(&records_so_far(&jsonl), 1, 2) {
            break;
        }
        // SAFETY: kill has no memory preconditions; the pid is rank 2's.
        unsafe { libc::kill(slowed as i32, libc::SIGSTOP) };
        std::thread::sleep(STOPPED);
        continue_briefly(slowed);
        stops_before_the_pair_ended += 1;
    }
    let status = child.wait().unwrap();
    let records = typed_records(&jsonl);
    let failed = typed_failed(&records);
    assert!(failed.is_empty(), "{failed:?}\n{}", output_text(dir.path()));
    // 0, or 1 when this shared machine's noise made an outlier.
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "{status:?}\n{}",
        output_text(dir.path())
    );
    assert!(has_pair(&records, 1, 2), "(1,2) measured");
    // The stops did slow the pair past twice the timeout (else this test
    // proved nothing: the pair ended before them).
    assert!(
        stops_before_the_pair_ended * STOPPED > Duration::from_secs(8),
        "the pair ended after {stops_before_the_pair_ended} stops of {STOPPED:?}: raise --repeat"
    );
}

/// Item 18: `--pairing rounds` among four ranks measures ceil(log2 4) = 2
/// rounds of disjoint pairs, each round's pairs at once: (0,1) with (2,3),
/// then (0,2) with (1,3), four pairs instead of six, every rank with two
/// partners, each pair record naming the rule. On one host nothing is a
/// host-to-host suspect, so no pair is measured again. Before, `--pairing`
/// did not exist (status 2).
#[test]
fn rounds_measure_disjoint_pairs_at_once() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("rounds.jsonl");
    let jsonl_arg = jsonl.to_str().unwrap();
    let args = [
        &PINGPONG[..],
        &["--pairing", "rounds", "--jsonl", jsonl_arg],
    ]
    .concat();
    let mut child = spawn_mpirun(dir.path(), 4, &args);
    let status = child.wait().unwrap();
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "{status:?}\n{}",
        output_text(dir.path())
    );
    let records = typed_records(&jsonl);
    let mut pairs: Vec<(u64, u64)> = records
        .iter()
        .filter(|r| is(r, "mpi-pingpong", "latency"))
        .map(params_of::<PingpongPairParams>)
        .map(|p| {
            assert!(p
                .pair_rule
                .as_deref()
                .unwrap()
                .starts_with("rounds of disjoint pairs"));
            (p.rank_a.unwrap(), p.rank_b.unwrap())
        })
        .collect();
    pairs.sort_unstable();
    assert_eq!(
        pairs,
        vec![(0, 1), (0, 2), (1, 3), (2, 3)],
        "{}",
        output_text(dir.path())
    );
    assert_eq!(typed_verdict(&records).1.failed, Some(0));
}
