//! The monitor's per-rank transition logs and their merge at
//! MPI_Finalize: a rank making far more blocking calls than one log chunk
//! holds, and a process whose threads block at once under
//! MPI_THREAD_MULTIPLE. Both ranks share one CPU (the host has one core),
//! as in the known-share test; every expectation follows from the
//! programs' design (and, where said, from the monitor's per-rank times,
//! which it accounts apart from the merged logs), none from a run. TLP is
//! a share of the host's monitored time, which differs from the ranks'
//! wall times by the skew of two barriers: the bounds leave 5% for it.

use crate::monitor::{compile, host_records, rank_value, records, run_on_one_cpu};
use numabench_schema::Record;
use std::path::Path;

/// Runs `program ARGS` on 2 ranks pinned to one CPU under the monitor;
/// returns the ranks' stdout and the records.
fn monitored(program: &Path, args: &[String], out: &Path) -> (String, Vec<Record>) {
    let output = run_on_one_cpu(program, args, out);
    let (_, records) = records(out);
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        records,
    )
}

/// The one host's TLP_n (one core: n ranks outside).
fn tlp(records: &[Record], n: usize) -> f64 {
    let found = host_records(records, &format!("tlp_{n}"));
    assert_eq!(found.len(), 1, "one host");
    let (record, params) = &found[0];
    assert_eq!(params.cores, Some(1), "{record:?}");
    record.value
}

/// bursts.c: during TB both ranks compute, rank 1 making at least CALLS
/// blocking calls meanwhile (2 x CALLS log entries: several chunks of
/// 65,536, sent to rank 0's merge one by one); then rank 1 waits TC in
/// MPI_Recv. Both are outside during TB except while rank 1 is inside a
/// call, which its own mpi_time bounds: a chunk lost or merged out of
/// order would flip rank 1's side for the rest of the run.
#[test]
fn many_calls_are_merged_exactly_across_log_chunks() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = compile("mpicc", "bursts.c", dir.path());
    let out = dir.path().join("monitor.jsonl");
    let (calls, tb, tc) = (150_000u64, 0.300f64, 0.200f64);
    let args = [
        calls.to_string(),
        (tb * 1e3).to_string(),
        (tc * 1e3).to_string(),
    ];
    let (stdout, records) = monitored(&program, &args, &out);
    let made: u64 = stdout
        .split_whitespace()
        .next()
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no call count in {stdout:?}"));
    assert!(made >= calls, "{made} calls");
    let wall = rank_value(&records, 0, "wall_time").max(rank_value(&records, 1, "wall_time"));
    let inside1 = rank_value(&records, 1, "mpi_time");
    assert!(
        rank_value(&records, 1, "p2p_time") >= 0.95 * tc,
        "rank 1 waits TC"
    );
    // Rank 1's calls of phase 1 took at most its MPI time less phase 2's wait.
    let phase1_inside = (inside1 - 0.95 * tc).max(0.0);
    let both_outside = tlp(&records, 2) * wall;
    assert!(
        both_outside >= 0.95 * (tb - phase1_inside) - 0.02 * wall,
        "TLP_2 {} x wall {wall} < TB {tb} - rank 1 inside {phase1_inside}",
        tlp(&records, 2)
    );
    assert!(
        both_outside <= tb + 0.05 * wall,
        "TLP_2 {} x wall {wall} > TB {tb}",
        tlp(&records, 2)
    );
    // Rank 0 is outside all along but for its send and the barrier.
    assert!(tlp(&records, 1) >= 0.95 * (tb + tc) / wall);
    assert_eq!(tlp(&records, 3), 0.0);
}

/// threads.c under MPI_THREAD_MULTIPLE: rank 0's two threads block at
/// once, TC and 2 TC, while rank 1 computes. Their blocking times add up
/// (3 TC), but the process is inside MPI once, for 2 TC: had each
/// thread's entry and exit gone to the log, the log would show rank 0
/// outside between its threads' entries and the first exit.
#[test]
fn threads_blocked_at_once_count_their_time_and_one_stay_inside() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = compile("mpicc", "threads.c", dir.path());
    let out = dir.path().join("monitor.jsonl");
    let tc = 0.200f64;
    let (_, records) = monitored(&program, &[(tc * 1e3).to_string()], &out);
    let wall = rank_value(&records, 0, "wall_time").max(rank_value(&records, 1, "wall_time"));
    let p2p = rank_value(&records, 0, "p2p_time");
    assert!(p2p >= 0.85 * 3.0 * tc, "rank 0 p2p {p2p} < 3 TC");
    assert!(p2p <= 2.0 * wall, "two threads, each at most the wall time");
    // Rank 0 is inside at least while its second thread waits.
    let both_outside = tlp(&records, 2) * wall;
    assert!(
        both_outside <= wall - 0.9 * 2.0 * tc,
        "TLP_2 {}: rank 0 outside while blocked",
        tlp(&records, 2)
    );
    // Rank 1 computes 2 TC outside MPI.
    assert!(tlp(&records, 1) >= 0.95 * 2.0 * tc / wall);
}
