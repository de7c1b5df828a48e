//! Tests of the multi-host harness itself ([`crate::hosts`]): real OpenMPI
//! ranks on three network-namespace hosts joined by TCP, with the probe
//! `hosts_probe.c` compiled by `mpicc`.

use crate::hosts::{
    Footprint, Hosts, HostsConfig, SLOW_HOST_QUOTA_PERCENT, THP_ENABLED_PATH, THP_NEVER_CONTENT,
};
use numabench::doctor::{CheckId, DoctorReport};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Iterations of the probe's compute loop (a dependent multiply-add chain:
/// about 0.2-0.5 s of one CPU on an unloaded machine).
const LOOP_ITERATIONS: &str = "100000000";
/// Times each rank runs the loop; its best time counts.
const LOOP_REPEATS: &str = "3";
/// The slow host's loop must take at least this many times as long as the
/// slower of the other hosts'. Each host's cgroup has CPU shares ahead of
/// unrelated work on the machine, so an unthrottled host measured alone gets
/// about a whole CPU and the ratio is about 1 / 0.2 = 5; without the quota it
/// is about 1.
const MIN_SLOWDOWN: f64 = 2.0;
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
    cpus: String,
    tag: String,
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
        cpus: field("cpus")?,
        tag: field("tag")?,
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
    let _alone = crate::alone();
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

    // The variable reaches every rank through `mpirun -x`.
    let tag = "given-to-mpirun";
    let ranks = run_probe(
        hosts.mpirun_env(2, &probe, &[], &[("HOSTS_PROBE_TAG", tag)]),
        6,
    );
    let expected_sum = (1..=6).sum::<i64>();
    for r in &ranks {
        assert_eq!(r.tag, tag, "environment of rank {}: {ranks:?}", r.rank);
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
    let _alone = crate::alone();
    let (_dir, probe) = build_probe();
    let hosts = create(HostsConfig {
        count: 3,
        slow_host: Some(1),
        ..Default::default()
    });
    let names = hosts.names();
    assert_eq!(hosts.footprint().cgroup_names, names, "one cgroup per host");
    let ranks = run_probe(hosts.mpirun(1, &probe, &[LOOP_ITERATIONS, LOOP_REPEATS]), 3);
    for r in &ranks {
        assert_eq!(r.host, names[r.rank]);
        assert!(r.loop_s > 0.0, "rank {} timed its loop: {ranks:?}", r.rank);
        // Each rank is in its own host's group (the slow one has the quota).
        assert_eq!(
            r.cgroup,
            format!("/{}", names[r.rank]),
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

/// This process's `Cpus_allowed_list`.
fn own_cpus() -> String {
    std::fs::read_to_string("/proc/self/status")
        .expect("read /proc/self/status")
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("Cpus_allowed_list")
        .trim()
        .to_string()
}

#[test]
fn mpirun_options_come_before_the_program() {
    let _alone = crate::alone();
    let (_dir, probe) = build_probe();
    let cpus = own_cpus();
    let hosts = create(HostsConfig {
        count: 2,
        ..Default::default()
    });
    // OpenMPI's default binds each of these single ranks to one core (the
    // harness documents it); `--bind-to none` leaves them the whole cpuset.
    let bound = run_probe(hosts.mpirun(1, &probe, &[]), 2);
    let free = run_probe(
        hosts.mpirun_opts(1, &["--bind-to", "none"], &probe, &[], &[]),
        2,
    );
    for r in &free {
        assert_eq!(
            r.cpus, cpus,
            "rank {} with --bind-to none: {free:?}",
            r.rank
        );
    }
    if cpus.contains([',', '-']) {
        for r in &bound {
            assert_ne!(r.cpus, cpus, "rank {} bound by default: {bound:?}", r.rank);
        }
    }
    teardown_leaves_nothing(hosts);
}

#[test]
fn thp_never_host_sees_never_and_doctor_reports_it() {
    let _alone = crate::alone();
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
        let report: DoctorReport = serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!(
                "doctor on host {i}: not doctor's report ({e}):\n{text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let found = report
            .findings
            .iter()
            .find(|finding| finding.check == CheckId::TransparentHugePages)
            .map(|finding| finding.found.clone())
            .unwrap_or_else(|| panic!("no transparent_huge_pages finding on host {i}: {report:?}"));
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
    let _alone = crate::alone();
    let footprint = std::sync::Mutex::new(None);
    let result = std::panic::catch_unwind(|| {
        let hosts = create(HostsConfig {
            count: 2,
            slow_host: Some(0),
            thp_never_host: Some(1),
            private_shm: true,
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

/// Runs a setup command of a test, asserting success.
fn sh(program: &str, args: &[&str]) {
    let status = Command::new(program)
        .args(args)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(status.success(), "`{program} {}` failed", args.join(" "));
}

#[test]
fn leftovers_of_a_dead_run_are_removed() {
    let _alone = crate::alone();
    // What a run killed before its teardown leaves, under a pid that no
    // longer runs (a finished child's): a namespace, its temp dir with the
    // cgroup hierarchy still mounted there, and a host's group in it.
    let mut child = Command::new("true").spawn().expect("spawn true");
    let dead = child.id();
    child.wait().expect("wait");
    let stale_ns = format!("nbh254-{dead}-sw");
    sh("ip", &["netns", "add", &stale_ns]);
    let stale_dir = std::env::temp_dir().join(format!("numabench-hosts-{dead}-stale"));
    let stale_mount = stale_dir.join("cgroup-cpu");
    std::fs::create_dir_all(&stale_mount).expect("mkdir stale mount point");
    let mount = stale_mount.to_string_lossy().into_owned();
    sh("mount", &["-t", "cgroup", "-o", "cpu", "nbcpu", &mount]);
    let stale_group = format!("nbh254-{dead}-h0");
    std::fs::create_dir(stale_mount.join(&stale_group)).expect("mkdir stale cgroup");
    let stale = Footprint {
        namespaces: vec![stale_ns.clone()],
        temp_dir: stale_dir.clone(),
        cgroup_names: vec![stale_group],
    };
    let made = stale.remaining();
    for kind in ["network namespace", "mount", "temp dir", "cgroup"] {
        assert!(
            made.iter().any(|m| m.starts_with(kind)),
            "stale {kind} was made: {made:?}"
        );
    }

    let hosts = create(HostsConfig {
        count: 1,
        ..Default::default()
    });
    let left = stale.remaining();
    // Clean up by hand whatever the harness missed, then judge.
    let _ = Command::new("ip")
        .args(["netns", "del", &stale_ns])
        .status();
    let _ = std::fs::remove_dir(stale_mount.join(&stale.cgroup_names[0]));
    let _ = Command::new("umount").arg(&mount).status();
    let _ = std::fs::remove_dir_all(&stale_dir);
    assert!(left.is_empty(), "Hosts::create left a dead run's {left:?}");
    teardown_leaves_nothing(hosts);
}
