//! numabench under a private single-node Slurm (tests/mpi/slurm.rs):
//! `srun --mpi=pmix` launches `numabench cluster` ranks that measure and
//! report to rank 0 tagged, bad input under srun ends with status 2 and
//! one line per rank, `numabench run --mpi-monitor -- srun ...` monitors
//! srun's ranks, and the private Slurm is gone after a test, also after one
//! that fails. A Slurm that cannot start or launch ranks fails the test,
//! saying why.

use crate::cluster::{
    is, labels, numabench, params_of, text, this_host, typed_failed, typed_records, typed_verdict,
    QUICK, SMALL,
};
use crate::monitor::rank_params;
use crate::slurm::{processes_with_conf, Slurm, MPI_PLUGIN};
use numabench_schema::benchmark;
use numabench_schema::params::{ClusterLabels, PingpongPairParams};
use numabench_schema::Record;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// A running private Slurm, or a failed test saying why not.
fn slurm() -> Slurm {
    Slurm::start().unwrap_or_else(|why| panic!("a private Slurm did not start: {why}"))
}

/// `-N1 -n <ranks> --mpi=pmix` followed by `program` and its arguments.
fn srun_args<'a>(ranks: &'a str, program: &'a str, args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["-N1", "-n", ranks, "--mpi", MPI_PLUGIN, program];
    all.extend_from_slice(args);
    all
}

/// Asserts that `slurm` stops leaving nothing behind.
fn assert_stops_cleanly(slurm: Slurm) {
    let conf = slurm.conf().to_path_buf();
    let dir = slurm.dir().to_path_buf();
    let teardown = slurm.stop();
    assert!(teardown.clean(), "{teardown:?}");
    assert!(processes_with_conf(&conf).is_empty());
    assert!(!dir.exists(), "{}", dir.display());
}

/// Two ranks started by srun (one job of two ranks: rank 0's verdict
/// counts both units) each measure with `--per rank --sequential` and
/// ping-pong with the other; their records reach rank 0's file tagged
/// with this host and their rank; two units flag nothing, so exit 0.
#[test]
fn srun_launches_cluster_ranks_whose_records_arrive_tagged() {
    let _alone = crate::alone();
    let slurm = slurm();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("cluster.jsonl");
    let jsonl_arg = jsonl.to_str().unwrap();
    let output = slurm.srun(&srun_args(
        "2",
        numabench().to_str().unwrap(),
        &[
            &["cluster", "--sequential", "--per", "rank"][..],
            &["--only", "topo,latency,pingpong"],
            &QUICK,
            &["--jsonl", jsonl_arg],
        ]
        .concat(),
    ));
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        text(&output),
        slurm.logs()
    );
    let records = typed_records(&jsonl);
    let host = this_host();
    assert_eq!(slurm.node(), host);
    for rank in 0..2 {
        let of_rank: Vec<(&Record, ClusterLabels)> = records
            .iter()
            .filter(|r| r.benchmark != "cluster")
            .map(|r| (r, labels(r)))
            .filter(|(_, labels)| labels.rank == Some(rank))
            .collect();
        for part in ["topo", "latency"] {
            assert!(
                of_rank
                    .iter()
                    .any(|(_, labels)| labels.part.as_deref() == Some(part)),
                "rank {rank}: no {part} record\n{}",
                text(&output)
            );
        }
        let unit = format!("{host}/rank {rank}");
        for (record, labels) in &of_rank {
            assert_eq!(labels.host.as_deref(), Some(host.as_str()), "{record:?}");
            assert_eq!(labels.unit.as_deref(), Some(unit.as_str()), "{record:?}");
        }
    }
    let pairs: Vec<(u64, u64)> = records
        .iter()
        .filter(|r| is(r, "mpi-pingpong", "latency"))
        .map(|r| {
            assert!(r.value > 0.0, "{r:?}");
            let pair: PingpongPairParams = params_of(r);
            (
                pair.rank_a.unwrap_or_else(|| panic!("no rank_a: {r:?}")),
                pair.rank_b.unwrap_or_else(|| panic!("no rank_b: {r:?}")),
            )
        })
        .collect();
    assert_eq!(pairs, vec![(0, 1)], "{}", text(&output));
    let (verdict, params) = typed_verdict(&records);
    assert_eq!(params.units, Some(2), "{verdict:?}");
    assert_eq!(params.hosts, Some(1), "{verdict:?}");
    assert_eq!(verdict.value, 0.0, "{verdict:?}");
    assert_stops_cleanly(slurm);
}

/// Bad input under srun: every rank prints one line naming the value and
/// srun ends with status 2, nothing measured; an output file rank 0
/// cannot create ends the job with status 2 too (MPI_Abort).
#[test]
fn srun_bad_input_exits_2_with_one_line_per_rank() {
    let _alone = crate::alone();
    let slurm = slurm();
    let program = numabench().to_str().unwrap();
    let output = slurm.srun(&srun_args(
        "2",
        program,
        &["cluster", "--only", "topo", "--per", "socket"],
    ));
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("numabench: error:"))
        .collect();
    assert_eq!(lines.len(), 2, "one line per rank\n{stderr}");
    assert!(lines.iter().all(|line| line.contains("socket")), "{stderr}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("cluster:"));

    let output = slurm.srun(&srun_args(
        "2",
        program,
        &[
            "cluster",
            "--only",
            "topo",
            "--jsonl",
            "/nonexistent-dir/c.jsonl",
        ],
    ));
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("/nonexistent-dir/c.jsonl"),
        "{}",
        text(&output)
    );
    assert_stops_cleanly(slurm);
}

/// `numabench run --mpi-monitor -- srun ...`: srun forwards numabench's
/// LD_PRELOAD and NUMABENCH_MPI_MONITOR_OUT to its ranks, the monitor
/// runs in both, and its records come back through run's output: each
/// rank's 14 metrics (7 small messages each, as the program sends) and
/// the host's TLP.
#[test]
fn run_mpi_monitor_monitors_ranks_started_by_srun() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let program = crate::monitor::compile("mpif90", "calls.f90", dir.path());
    crate::monitor::library();
    let slurm = slurm();
    let jsonl = dir.path().join("monitor.jsonl");
    let output = slurm
        .command(numabench().to_str().unwrap())
        .env_remove("NUMABENCH_MPI_LIB")
        .env_remove("LD_PRELOAD")
        .args(["run", "--mpi-monitor", "--repeat", "1", "--jsonl"])
        .arg(&jsonl)
        .args(["--", "srun"])
        .args(srun_args("2", program.to_str().unwrap(), &[]))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let records = typed_records(&jsonl);
    let monitor: Vec<&Record> = records
        .iter()
        .filter(|r| r.benchmark == benchmark::MPI_MONITOR)
        .collect();
    // 2 ranks x 14 metrics, 3 call types (Send, Recv, Allreduce) x 3, the
    // host's tlp_1..4, the job's 3 POP efficiencies.
    assert_eq!(monitor.len(), 2 * 14 + 9 + 4 + 3, "{}", text(&output));
    for rank in 0..2 {
        let small = monitor
            .iter()
            .find(|r| r.metric == "small_messages" && rank_params(r).rank == Some(rank))
            .unwrap_or_else(|| panic!("rank {rank}: no small_messages"));
        let params = rank_params(small);
        assert_eq!(small.value, 7.0, "{small:?}");
        assert_eq!(
            params.host.as_deref(),
            Some(this_host().as_str()),
            "{small:?}"
        );
        assert_eq!(params.ranks, Some(2), "{small:?}");
    }
    assert_stops_cleanly(slurm);
}

/// A test that fails while a job step runs (a task and its slurmstepd,
/// reparented away from slurmd) leaves nothing behind: the guard's drop
/// ends every process of the instance and removes its temp dir.
#[test]
fn a_failing_test_leaves_no_slurm_behind() {
    let _alone = crate::alone();
    let mut seen = None;
    let mut client = None;
    let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let slurm = slurm();
        seen = Some((slurm.conf().to_path_buf(), slurm.dir().to_path_buf()));
        client = Some(
            slurm
                .command("srun")
                .args(["-n1", "sleep", "300"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        );
        let running = |conf: &Path| {
            let names: Vec<String> = processes_with_conf(conf)
                .into_iter()
                .map(|(_, name)| name)
                .collect();
            names.iter().any(|name| name == "sleep")
                && names.iter().any(|name| name == "slurmstepd")
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !running(slurm.conf()) {
            assert!(
                std::time::Instant::now() < deadline,
                "the job step never ran\n{}",
                slurm.logs()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("a deliberate failure while a job step runs");
    }));
    let message = failed.expect_err("the test body fails");
    assert_eq!(
        message.downcast_ref::<&str>(),
        Some(&"a deliberate failure while a job step runs"),
        "it failed for another reason"
    );
    if let Some(mut client) = client {
        let _ = client.wait();
    }
    let (conf, dir) = seen.expect("Slurm started");
    assert_eq!(processes_with_conf(&conf), Vec::new());
    assert!(!dir.exists(), "{}", dir.display());
}

/// scripts/slurm-check, the health check of the README: a clean run
/// exits 0 and leaves the node idle; a run in which a rank fails its part
/// (rank 1 cannot allocate under a 1.5 GB address-space limit) exits 1,
/// names the node and drains it, the reason naming the results file.
#[test]
fn slurm_check_drains_the_node_numabench_flags() {
    let _alone = crate::alone();
    let slurm = slurm();
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/slurm-check");
    let check = |numabench: &Path, ranks: &str, out: &Path, args: &[&str]| {
        slurm
            .command(script.to_str().unwrap())
            .env("NUMABENCH", numabench)
            .env("RANKS_PER_NODE", ranks)
            .env("CHECK_OUT", out)
            .arg(slurm.node())
            .args(args)
            .output()
            .unwrap()
    };
    let state = || {
        let output = slurm
            .command("sinfo")
            .args(["--noheader", "--Node", "--format=%T|%E"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    };

    let clean = dir.path().join("clean.jsonl");
    let output = check(numabench(), "1", &clean, &["--only", "topo"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let clean_records = typed_records(&clean);
    let (verdict, _) = typed_verdict(&clean_records);
    assert_eq!(verdict.value, 0.0, "{verdict:?}");
    assert!(state().starts_with("idle|"), "{}", state());

    // Rank 1 runs numabench with a 2 GB working set under `ulimit -v`.
    let wrapper = dir.path().join("numabench-rank1-limited");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nif [ \"$SLURM_PROCID\" = 1 ]; then\n  ulimit -v 1500000\n  \
             exec {0} {1} 2G\nfi\n\
             exec {0} \"$@\"\n",
            numabench().display(),
            SMALL.join(" ")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let failing = dir.path().join("failing.jsonl");
    // SMALL at 4M, less the `cluster --sequential` that the script adds.
    let mut args: Vec<&str> = SMALL[2..].to_vec();
    args.push("4M");
    let output = check(&wrapper, "2", &failing, &args);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let records = typed_records(&failing);
    let failed = typed_failed(&records);
    assert_eq!(failed.len(), 1, "{}", text(&output));
    assert_eq!(failed[0].who.rank, Some(1), "{failed:?}");
    assert_eq!(
        failed[0].who.host.as_deref(),
        Some(slurm.node()),
        "{failed:?}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout
            .lines()
            .any(|line| line == format!("drained {}", slurm.node())),
        "{}",
        text(&output)
    );
    let drained = state();
    assert!(
        drained.starts_with("drain")
            && drained.contains(&format!("numabench cluster: {}", failing.display())),
        "{drained}"
    );
    assert_stops_cleanly(slurm);
}
