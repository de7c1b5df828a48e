//! Tests of the multi-host harness itself ([`crate::hosts`]): real OpenMPI
//! ranks on three network-namespace hosts joined by TCP, with the probe
//! `hosts_probe.c` compiled by `mpicc`.

use crate::hosts::{
    Hosts, HostsConfig, SLOW_HOST_QUOTA_PERCENT, THP_ENABLED_PATH, THP_NEVER_CONTENT,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Iterations of the probe's compute loop (a dependent multiply-add chain:
/// about 0.2-0.5 s of one CPU on an unloaded machine).
const LOOP_ITERATIONS: &str = "100000000";
/// Times each rank runs the loop; its best time counts.
const LOOP_REPEATS: &str = "3";
/// The slow host's loop must take at least this many times as long as the
/// slower of the other hosts'. With a 20 % quota the ratio is about 5 when
/// the other hosts get a whole CPU, about 2.2 when a busy machine gives them
/// half of one (seen here with other builds running), and about 1 without a
/// quota; it stays above 1.5 while they get more than 30 % of a CPU.
const MIN_SLOWDOWN: f64 = 1.5;
/// The slow host's loop may have had a CPU for at most this share of its
/// wall time: the quota (0.2) with room for the scheduler's slack; an
/// unthrottled rank on an idle machine has about 1.
const MAX_SLOW_CPU_SHARE: f64 = 0.3;

/// One line of the probe's output.
#[derive(Debug, Clone)]
struct ProbeRank {
    rank: usize,
    host: String,
    sum: i64,
    loop_s: f64,
    cpu_share: f64,
    cgroup: String,
    thp: String,
}

/// The probe compiled with `mpicc` into a temp dir (kept alive by the caller).
fn build_probe() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("numabench-hosts-probe-")
        .tempdir()
        .expect("temp dir");
    let source = dir.path().join("hosts_probe.c");
    std::fs::write(&source, include_str!("hosts_probe.c")).expect("write probe source");
    let binary = dir.path().join("hosts_probe");
    let out = Command::new("mpicc")
        .args(["-O1", "-o"])
        .arg(&binary)
        .arg(&source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run mpicc (Debian package libopenmpi-dev): {e}"));
    assert!(
        out.status.success(),
        "mpicc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, binary)
}

/// Runs `cmd`, asserts success, parses the probe's output.
fn run_probe(mut cmd: Command, expected_size: usize) -> Vec<ProbeRank> {
    let out = cmd.output().expect("start mpirun");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "mpirun failed ({}):\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}\n--- command ---\n{cmd:?}",
        out.status
    );
    let context = || format!("--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    let mut lines = stdout.lines().skip_while(|l| !l.starts_with("size="));
    let size: usize = lines
        .next()
        .and_then(|l| l.strip_prefix("size=")?.parse().ok())
        .unwrap_or_else(|| panic!("no size line\n{}", context()));
    assert_eq!(size, expected_size, "MPI_COMM_WORLD size\n{}", context());
    let ranks: Vec<ProbeRank> = lines
        .take(size)
        .map(|l| parse_line(l).unwrap_or_else(|| panic!("bad probe line {l:?}\n{}", context())))
        .collect();
    assert_eq!(ranks.len(), size, "one line per rank\n{}", context());
    for (i, r) in ranks.iter().enumerate() {
        assert_eq!(r.rank, i, "lines in rank order\n{}", context());
    }
    ranks
}

fn parse_line(line: &str) -> Option<ProbeRank> {
    let (head, thp) = line.split_once(" thp=")?;
    let field = |key: &str| {
        head.split_whitespace()
            .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
            .map(str::to_string)
    };
    Some(ProbeRank {
        rank: field("rank")?.parse().ok()?,
        host: field("host")?,
        sum: field("sum")?.parse().ok()?,
        loop_s: field("loop_s")?.parse().ok()?,
        cpu_share: field("cpu_share")?.parse().ok()?,
        cgroup: field("cgroup")?,
        thp: thp.to_string(),
    })
}

fn create(config: HostsConfig) -> Hosts {
    Hosts::create(config).unwrap_or_else(|e| panic!("{e}"))
}

/// Tears `hosts` down and asserts nothing is left of them.
fn teardown_leaves_nothing(hosts: Hosts) {
    let footprint = hosts.footprint();
    hosts.teardown().unwrap_or_else(|e| panic!("{e}"));
    let left = footprint.remaining();
    assert!(left.is_empty(), "left after teardown: {left:?}");
}

fn machine_hostname() -> String {
    let out = Command::new("hostname").output().expect("hostname");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn three_hosts_name_themselves_and_allreduce_over_tcp() {
    let (_dir, probe) = build_probe();
    let hosts = create(HostsConfig {
        count: 3,
        ..Default::default()
    });
    let names = hosts.names();
    assert_eq!(names.len(), 3);
    assert_eq!(
        names.iter().collect::<BTreeSet<_>>().len(),
        3,
        "distinct names {names:?}"
    );
    assert!(!names.contains(&machine_hostname()));

    let ranks = run_probe(hosts.mpirun(2, &probe, &[]), 6);
    let expected_sum = (1..=6).sum::<i64>();
    for r in &ranks {
        assert_eq!(
            r.sum, expected_sum,
            "MPI_Allreduce on rank {}: {ranks:?}",
            r.rank
        );
        assert_eq!(
            r.host,
            names[r.rank / 2],
            "rank {} runs on host {}: {ranks:?}",
            r.rank,
            r.rank / 2
        );
    }
    teardown_leaves_nothing(hosts);
}

#[test]
fn slow_host_computes_markedly_slower() {
    let (_dir, probe) = build_probe();
    let hosts = create(HostsConfig {
        count: 3,
        slow_host: Some(1),
        ..Default::default()
    });
    let names = hosts.names();
    let cgroup = hosts
        .footprint()
        .cgroup_name
        .expect("slow host has a cgroup");
    let ranks = run_probe(hosts.mpirun(1, &probe, &[LOOP_ITERATIONS, LOOP_REPEATS]), 3);
    for r in &ranks {
        assert_eq!(r.host, names[r.rank]);
        assert!(r.loop_s > 0.0, "rank {} timed its loop: {ranks:?}", r.rank);
        // Only the slow host's processes are in the quota group.
        assert_eq!(
            r.cgroup.ends_with(&format!("/{cgroup}")),
            r.rank == 1,
            "cpu cgroup of rank {}: {ranks:?}",
            r.rank
        );
    }
    let others = ranks[0].loop_s.max(ranks[2].loop_s);
    let ratio = ranks[1].loop_s / others;
    eprintln!(
        "loop times (best of {LOOP_REPEATS}): {:?} s, CPU shares {:?}; slow host / slower other = {ratio:.2}",
        ranks.iter().map(|r| r.loop_s).collect::<Vec<_>>(),
        ranks.iter().map(|r| r.cpu_share).collect::<Vec<_>>()
    );
    assert!(
        ranks[1].cpu_share > 0.0 && ranks[1].cpu_share <= MAX_SLOW_CPU_SHARE,
        "host 1 under a {SLOW_HOST_QUOTA_PERCENT}% CPU quota had a CPU {:.2} of its loops' time \
         (need <= {MAX_SLOW_CPU_SHARE}): {ranks:?}",
        ranks[1].cpu_share
    );
    assert!(
        ratio >= MIN_SLOWDOWN,
        "host 1 under a {SLOW_HOST_QUOTA_PERCENT}% CPU quota ran its loop only {ratio:.2}x as long as the \
         others (need >= {MIN_SLOWDOWN}; the others' CPU shares say how busy the machine was): {ranks:?}"
    );
    teardown_leaves_nothing(hosts);
}

#[test]
fn thp_never_host_sees_never_and_doctor_reports_it() {
    let (_dir, probe) = build_probe();
    let machine_thp = std::fs::read_to_string(THP_ENABLED_PATH)
        .unwrap_or_else(|e| panic!("{THP_ENABLED_PATH}: {e}"));
    assert_ne!(
        machine_thp.trim(),
        THP_NEVER_CONTENT.trim(),
        "this machine has THP never already: the test could not tell the hosts apart"
    );
    let hosts = create(HostsConfig {
        count: 3,
        thp_never_host: Some(2),
        ..Default::default()
    });
    let names = hosts.names();
    let ranks = run_probe(hosts.mpirun(1, &probe, &[]), 3);
    for r in &ranks {
        assert_eq!(r.host, names[r.rank]);
        let expected = if r.rank == 2 {
            THP_NEVER_CONTENT
        } else {
            &machine_thp
        };
        assert_eq!(
            r.thp,
            expected.trim(),
            "THP setting rank {} reads: {ranks:?}",
            r.rank
        );
    }
    // numabench doctor, run on each host, reads the host's own setting.
    let numabench = Path::new(env!("CARGO_BIN_EXE_numabench"));
    for i in 0..3 {
        let out = hosts
            .on_host(i, numabench, &["doctor", "--json"])
            .output()
            .expect("run numabench doctor");
        let text = String::from_utf8_lossy(&out.stdout);
        let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!(
                "doctor on host {i}: not JSON ({e}):\n{text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let found = json["findings"]
            .as_array()
            .and_then(|f| f.iter().find(|x| x["check"] == "transparent_huge_pages"))
            .and_then(|x| x["found"].as_str())
            .unwrap_or_else(|| panic!("no transparent_huge_pages finding on host {i}: {json}"))
            .to_string();
        assert_eq!(
            found.starts_with("enabled = never"),
            i == 2,
            "doctor's THP finding on host {i}: {found}"
        );
    }
    teardown_leaves_nothing(hosts);
}

#[test]
fn teardown_after_a_failed_assertion_leaves_nothing() {
    let footprint = std::sync::Mutex::new(None);
    let result = std::panic::catch_unwind(|| {
        let hosts = create(HostsConfig {
            count: 2,
            slow_host: Some(0),
            thp_never_host: Some(1),
        });
        *footprint.lock().unwrap() = Some(hosts.footprint());
        assert!(
            hosts.names().is_empty(),
            "deliberate failure with hosts alive"
        );
    });
    assert!(result.is_err(), "the closure was meant to fail");
    let footprint = footprint.into_inner().unwrap().expect("hosts were created");
    let left = footprint.remaining();
    assert!(left.is_empty(), "left after a failed test: {left:?}");
}

#[test]
fn leftovers_of_a_dead_run_are_removed() {
    // A pid that no longer runs: a finished child's.
    let mut child = Command::new("true").spawn().expect("spawn true");
    let dead = child.id();
    child.wait().expect("wait");
    let stale = format!("nbh254-{dead}-sw");
    let status = Command::new("ip")
        .args(["netns", "add", &stale])
        .status()
        .expect("ip netns add");
    assert!(status.success(), "cannot make the stale namespace {stale}");
    let hosts = create(HostsConfig {
        count: 1,
        ..Default::default()
    });
    let list = Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip netns list");
    let _ = Command::new("ip").args(["netns", "del", &stale]).status();
    assert!(
        !String::from_utf8_lossy(&list.stdout).contains(&stale),
        "stale namespace {stale} survived Hosts::create"
    );
    teardown_leaves_nothing(hosts);
}
