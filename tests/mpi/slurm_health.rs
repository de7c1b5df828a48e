//! `numabench check` as Slurm's `HealthCheckProgram` in the private Slurm
//! (tests/mpi/slurm.rs): slurmd runs a wrapper of `numabench check --drain
//! --undrain` every few seconds against a baseline written on this node.
//! Healthy, the node stays idle; under a CPU quota (1 ms of CPU in every
//! 5 ms) that slows its bandwidth (a cgroup the wrapper joins while a flag
//! file exists) the
//! check drains it with a `numabench:` reason; once the quota is lifted
//! the check resumes it; a reason someone else set is kept, whatever the
//! check finds. Every check ends within Slurm's 60 s.

use crate::cluster::numabench;
use crate::slurm::Slurm;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// CPU time the slow node's check gets in every [`SLOW_PERIOD_US`], in
/// microseconds: the kernel's least quota (1 ms). Each timed bandwidth
/// repetition of the baseline's 32 MiB needs more CPU than this on any
/// host (2 threads or more reading at 30 GB/s still need over 2 ms), so
/// every repetition waits for the next period, however fast the build or
/// the host: the slowdown is the quota's, not the binary's pace.
const SLOW_QUOTA_US: u64 = 1_000;

/// The quota's period in microseconds: a fifth of a CPU, short enough
/// that no repetition fits in one period's allowance.
const SLOW_PERIOD_US: u64 = 5_000;

/// How long one condition may take to show: a check interval, a check
/// (several times longer under the quota) and its retries.
const WAIT: Duration = Duration::from_secs(150);

/// A cgroup whose tasks get [`SLOW_QUOTA_US`] of CPU per [`SLOW_PERIOD_US`] (cgroup v1
/// `cpu` controller, else v2 `cpu.max`); removed when dropped.
struct SlowCgroup {
    dir: PathBuf,
}

impl SlowCgroup {
    fn create() -> SlowCgroup {
        let name = format!("numabench-check-test-{}", std::process::id());
        let mounts = fs::read_to_string("/proc/mounts").unwrap();
        let v1 = mounts.lines().find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.len() > 3
                && fields[2] == "cgroup"
                && fields[3].split(',').any(|option| option == "cpu"))
            .then(|| PathBuf::from(fields[1]))
        });
        if let Some(root) = v1 {
            let dir = root.join(&name);
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("cpu.cfs_period_us"), SLOW_PERIOD_US.to_string()).unwrap();
            fs::write(dir.join("cpu.cfs_quota_us"), SLOW_QUOTA_US.to_string()).unwrap();
            return SlowCgroup { dir };
        }
        let v2 = mounts.lines().find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.len() > 2 && fields[2] == "cgroup2").then(|| PathBuf::from(fields[1]))
        });
        let root =
            v2.unwrap_or_else(|| panic!("no cgroup v1 cpu controller nor cgroup v2 mounted"));
        let dir = root.join(&name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("cpu.max"),
            format!("{SLOW_QUOTA_US} {SLOW_PERIOD_US}"),
        )
        .unwrap_or_else(|error| panic!("cgroup v2 cpu.max in {}: {error}", dir.display()));
        SlowCgroup { dir }
    }
}

impl Drop for SlowCgroup {
    fn drop(&mut self) {
        // Emptied when the checks in it ended; rmdir removes an empty cgroup.
        for _ in 0..50 {
            if fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// Seconds since the epoch, as the wrapper's `date +%s.%N`.
fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// One completed check of the wrapper's log: exit status, start, end.
#[derive(Debug, Clone, Copy)]
struct Check {
    status: i32,
    start: f64,
    end: f64,
}

fn checks(log: &Path) -> Vec<Check> {
    fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            Some(Check {
                status: fields.first()?.parse().ok()?,
                start: fields.get(1)?.parse().ok()?,
                end: fields.get(2)?.parse().ok()?,
            })
        })
        .collect()
}

/// The node's state and reason, as `sinfo -N -o '%T|%E'` prints them.
fn state(slurm: &Slurm) -> (String, String) {
    let output = slurm
        .command("sinfo")
        .args(["--noheader", "-N", "-n", slurm.node(), "-o", "%T|%E"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let (state, reason) = text.split_once('|').unwrap_or((&text, ""));
    (state.to_string(), reason.to_string())
}

/// A passing check's.
const PASSED: Option<i32> = Some(0);
/// The status of a check that found the node slow.
const SLOW: Option<i32> = Some(1);

/// Waits until a check that started after `since` has ended with `status`
/// (any, with `None`) and the node is in a state `ready` accepts; the
/// checks seen and the state. A check on this shared host may find the
/// node slow because a neighbour loads it (and rightly drain it): a phase
/// that needs a passing check waits for one, as an administrator's next
/// interval would.
fn wait_for(
    slurm: &Slurm,
    log: &Path,
    since: f64,
    what: &str,
    status: Option<i32>,
    ready: impl Fn(&str, &str) -> bool,
) -> (Vec<Check>, String, String) {
    let deadline = Instant::now() + WAIT;
    loop {
        let all = checks(log);
        let ended = all
            .iter()
            .any(|c| c.start > since && status.is_none_or(|status| c.status == status));
        let (state, reason) = state(slurm);
        if ended && ready(&state, &reason) {
            return (all, state, reason);
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not within {WAIT:?}: state {state:?}, reason {reason:?}, checks {all:?}\n\
             check output:\n{}\n{}",
            fs::read_to_string(log.with_file_name("check.out")).unwrap_or_default(),
            slurm.logs()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn scontrol(slurm: &Slurm, args: &[&str]) {
    let output = slurm.command("scontrol").args(args).output().unwrap();
    assert!(
        output.status.success(),
        "scontrol {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_health_check_drains_a_slow_node_resumes_it_and_keeps_others_reasons() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let baseline = dir.path().join("baseline.json");
    // This shared host's noise is far above a real node's, and lasts: its
    // memory latency once went from 60 to over 100 ns for minutes in the
    // middle of this test (a neighbour, or the guest's memory moved), and
    // kept the node drained after the quota was lifted. Generous
    // tolerances, still far inside what the quota costs: a fifth of a CPU
    // cuts bandwidth by 80% or more (-50% allowed) and multiplies a chase's
    // time several-fold (+300% allowed).
    let written = Command::new(numabench())
        .args(["check", "--write-baseline", baseline.to_str().unwrap()])
        .args(["--size", "32M", "--repeat", "3", "--runs", "3"])
        .args(["--tolerance", "bandwidth=50%,latency=300%"])
        .output()
        .unwrap();
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    let cgroup = SlowCgroup::create();
    let tasks = if cgroup.dir.join("cgroup.procs").exists() {
        cgroup.dir.join("cgroup.procs")
    } else {
        cgroup.dir.join("tasks")
    };
    let flag = dir.path().join("slow");
    let log = dir.path().join("checks.log");
    let wrapper = dir.path().join("health-check");
    let conf_placeholder = dir.path().join("slurm.conf.path");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n\
             # A HealthCheckProgram as an administrator writes it.\n\
             # slurmd starts one on every interval: never two at once.\n\
             exec 9>>{lock}; flock -n 9 || exit 0\n\
             [ -s {conf} ] || exit 0\n\
             export SLURM_CONF=\"${{SLURM_CONF:-$(cat {conf})}}\"\n\
             export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n\
             [ -e {flag} ] && echo $$ > {tasks}\n\
             start=$(date +%s.%N)\n\
             {numabench} check --baseline {baseline} --drain --undrain >> {out} 2>&1 9>&-\n\
             status=$?\n\
             echo \"$status $start $(date +%s.%N)\" >> {log}\n\
             exit $status\n",
            conf = conf_placeholder.display(),
            flag = flag.display(),
            tasks = tasks.display(),
            numabench = numabench().display(),
            baseline = baseline.display(),
            out = dir.path().join("check.out").display(),
            lock = dir.path().join("wrapper.lock").display(),
            log = log.display(),
        ),
    )
    .unwrap();
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    let slurm = Slurm::start_with(&format!(
        "HealthCheckProgram={}\nHealthCheckInterval=5\nHealthCheckNodeState=ANY\n",
        wrapper.display()
    ))
    .unwrap_or_else(|why| panic!("a private Slurm did not start: {why}"));
    fs::write(&conf_placeholder, slurm.conf().display().to_string()).unwrap();

    // Healthy: a check passes and the node is idle, with no reason. A
    // check that a neighbour's load made slow drains it meanwhile (rightly:
    // see wait_for), and the next passing one resumes it: the node's state
    // is read after the check, so it waits for idle too.
    let since = now();
    let (_, state, reason) = wait_for(
        &slurm,
        &log,
        since,
        "a healthy check, the node idle",
        PASSED,
        |state, _| state == "idle",
    );
    assert_eq!((state.as_str(), reason.as_str()), ("idle", "none"));

    // Slow: drained with numabench's reason.
    fs::write(&flag, "").unwrap();
    let since = now();
    let (_, state, reason) = wait_for(
        &slurm,
        &log,
        since,
        "the slow node drained",
        SLOW,
        |state, _| state.starts_with("drain"),
    );
    assert!(reason.starts_with("numabench: node 0 "), "{reason}");
    let sinfo = slurm
        .command("sinfo")
        .args(["-R", "-o", "%E | %U | %H | %N"])
        .output()
        .unwrap();
    eprintln!(
        "drained: {state}\nsinfo -R:\n{}",
        String::from_utf8_lossy(&sinfo.stdout)
    );

    // The quota lifted: resumed by the next healthy check.
    fs::remove_file(&flag).unwrap();
    let since = now();
    let (_, state, reason) = wait_for(
        &slurm,
        &log,
        since,
        "the node resumed",
        PASSED,
        |state, _| state == "idle",
    );
    assert_eq!(reason, "none", "{state}");

    // Someone else's reason: kept while slow, and not resumed after.
    scontrol(
        &slurm,
        &[
            "update",
            &format!("NodeName={}", slurm.node()),
            "State=DRAIN",
            "Reason=memory replaced, burn-in pending",
        ],
    );
    fs::write(&flag, "").unwrap();
    let since = now();
    let (_, _, reason) = wait_for(&slurm, &log, since, "a slow check", SLOW, |_, _| true);
    assert_eq!(reason, "memory replaced, burn-in pending");
    fs::remove_file(&flag).unwrap();
    let since = now();
    let (_, state, reason) = wait_for(&slurm, &log, since, "a healthy check", PASSED, |_, _| true);
    assert!(state.starts_with("drain"), "{state}");
    assert_eq!(reason, "memory replaced, burn-in pending");

    // Every check ended within Slurm's 60 s.
    let all = checks(&log);
    let longest = all.iter().map(|c| c.end - c.start).fold(0.0, f64::max);
    eprintln!("{} checks, the longest {longest:.1} s", all.len());
    assert!(longest < 60.0, "{all:?}");
    drop(slurm);
    drop(cgroup);
}
