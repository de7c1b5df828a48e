//! What a run left running after its program ended, and ending it
//! (`numabench run --kill-leftovers`).
//!
//! A program that starts a background process and exits without waiting
//! for it (`sh -c 'sleep 41 &'`) leaves that process running after the run,
//! competing with every later run of every policy. Each run's program leads
//! a process group of its own, so what stays in the group is found by the
//! group id; a daemon that left the group (`setsid()`, `setpgid()`) is found
//! when numabench is a child subreaper ([`become_subreaper`]): once the
//! process that started it ends, the kernel makes numabench its parent, so
//! every process of the run that outlives its parent becomes a child of
//! numabench. Both are searched in /proc after the program was waited for,
//! outside the run's timed region.
//!
//! Processes are named by pid and start time, so a pid the kernel reuses is
//! never taken for a leftover, and a leftover an earlier run left is
//! counted once, by the run that left it ([`Leftovers::known`]).
//!
//! Most runs leave nothing, and two system calls prove it
//! ([`certainly_nothing_left`]) without the /proc scan, whose cost grows
//! with every process of the machine (1-1.5 ms a run with 120 processes on a
//! 2-vCPU EPYC VM: twice hyperfine's whole cost of a run of `true`).

use nix::errno::Errno;
use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::wait::{waitid, waitpid, Id, WaitPidFlag};
use nix::unistd::Pid;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// How long leftovers have to end after SIGTERM before SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// How long a leftover that is already ending (one exit or kill away) is
/// given before it counts: a program may signal its workers and exit
/// without waiting for them.
const SETTLE: Duration = Duration::from_millis(100);

/// Makes this process a child subreaper (`PR_SET_CHILD_SUBREAPER`), so that
/// a run's processes whose parent ends become its children instead of
/// init's and a daemon that left the run's process group is still found.
/// Process-wide: the caller must start no other programs while runs are
/// checked for leftovers (every child of this process that it did not
/// start itself counts as a run's leftover). Whether it took effect.
pub fn become_subreaper() -> bool {
    nix::sys::prctl::set_child_subreaper(true).is_ok()
}

/// One process of /proc: its parent, process group, start time (clock
/// ticks after boot) and command name, and whether it is still running
/// (not a zombie waiting for its parent).
#[derive(Debug, Clone, PartialEq)]
struct ProcessStat {
    parent: i32,
    group: i32,
    start: u64,
    name: String,
    alive: bool,
}

/// Parses a /proc/PID/stat line (the command name, which may hold spaces
/// and parentheses, is between the first `(` and the last `)`).
fn parse_process_stat(stat: &str) -> Option<ProcessStat> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let fields: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    let state = fields.first()?;
    Some(ProcessStat {
        name: stat.get(open + 1..close)?.to_string(),
        parent: fields.get(1)?.parse().ok()?,
        group: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
        alive: !matches!(*state, "Z" | "X" | "x"),
    })
}

/// Every process of /proc now, by pid.
fn processes() -> BTreeMap<i32, ProcessStat> {
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Some(stat) = std::fs::read_to_string(entry.path().join("stat"))
            .ok()
            .as_deref()
            .and_then(parse_process_stat)
        {
            all.insert(pid, stat);
        }
    }
    all
}

/// The running processes a run left: those of process group `group`, and
/// with `subreaper` the children of `this` (numabench, which starts no
/// other process while it checks), with every running descendant of
/// either; except those of `known`, which earlier runs left (pid, start
/// time). In pid order.
fn left_running(
    all: &BTreeMap<i32, ProcessStat>,
    group: i32,
    this: i32,
    subreaper: bool,
    known: &BTreeSet<(i32, u64)>,
) -> Vec<(i32, u64)> {
    let mut found: BTreeSet<i32> = all
        .iter()
        .filter(|(_, stat)| stat.group == group || (subreaper && stat.parent == this))
        .map(|(pid, _)| *pid)
        .collect();
    // Descendants, down to a fixed point (a tree is at most as deep as it is large).
    loop {
        let more: Vec<i32> = all
            .iter()
            .filter(|(pid, stat)| !found.contains(pid) && found.contains(&stat.parent))
            .map(|(pid, _)| *pid)
            .collect();
        if more.is_empty() {
            break;
        }
        found.extend(more);
    }
    found
        .into_iter()
        .filter(|pid| *pid != this)
        .filter_map(|pid| {
            let stat = &all[&pid];
            let key = (pid, stat.start);
            (stat.alive && !known.contains(&key)).then_some(key)
        })
        .collect()
}

/// Whether the run whose program led process group `group` certainly left
/// nothing: no process is in that group (`kill(-group, 0)` fails with
/// ESRCH; EPERM means one exists), and, when `subreaper`, this process has
/// no child at all (`waitid` without waiting fails with ECHILD). Exact: a
/// process of the run outside the group descends from the run's program,
/// which ended, so its topmost surviving ancestor was made a child of this
/// subreaper; without the subreaper the scan finds only the group's
/// members and their descendants, none when the group is empty.
fn certainly_nothing_left(group: i32, subreaper: bool) -> bool {
    let group_empty = matches!(killpg(Pid::from_raw(group), None), Err(Errno::ESRCH));
    let no_children = || {
        let flags = WaitPidFlag::WEXITED
            | WaitPidFlag::WSTOPPED
            | WaitPidFlag::WCONTINUED
            | WaitPidFlag::WNOHANG
            | WaitPidFlag::WNOWAIT;
        matches!(waitid(Id::All, flags), Err(Errno::ECHILD))
    };
    group_empty && (!subreaper || no_children())
}

/// Reaps the zombies among this process's children (processes of a run that ended after the kernel made numabench their
/// parent), each by its pid: a wait for any child could take a run's own
/// program from the wait that times it.
fn reap_orphans(all: &BTreeMap<i32, ProcessStat>, this: i32) {
    for (pid, stat) in all {
        if stat.parent == this && !stat.alive {
            // Our own child, a zombie: this wait returns at once.
            let _ = waitpid(Pid::from_raw(*pid), Some(WaitPidFlag::WNOHANG));
        }
    }
}

/// What one run left running.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeftoverReport {
    /// How many processes were still running after the program ended.
    pub count: usize,
    /// Their distinct command names, sorted.
    pub names: Vec<String>,
    /// Whether they were ended (`--kill-leftovers`, or an interrupted run).
    pub killed: bool,
    /// How many survived SIGKILL (a process stuck in the kernel).
    pub survivors: usize,
}

/// The leftovers seen by the runs so far, so that a process one run left is
/// counted by that run alone.
#[derive(Debug, Default)]
pub struct Leftovers {
    known: BTreeSet<(i32, u64)>,
}

impl Leftovers {
    /// Checks what the run whose program led process group `group` left
    /// running, after its program was waited for (the wait is for the
    /// program's own pid, so nothing here can take it), and with `end_them`
    /// ends them: SIGTERM, up to [`KILL_GRACE`] for them to end, then
    /// SIGKILL; the ones that become numabench's children are reaped.
    pub fn check(&mut self, group: i32, end_them: bool) -> LeftoverReport {
        let this = std::process::id() as i32;
        let subreaper = nix::sys::prctl::get_child_subreaper().unwrap_or(false);
        if certainly_nothing_left(group, subreaper) {
            return LeftoverReport::default();
        }
        let find = |known: &BTreeSet<(i32, u64)>| {
            let all = processes();
            if subreaper {
                reap_orphans(&all, this);
            }
            let found = left_running(&all, group, this, subreaper, known);
            (all, found)
        };
        let settled = Instant::now() + SETTLE;
        let (mut all, mut found) = find(&self.known);
        while !found.is_empty() && Instant::now() < settled {
            std::thread::sleep(Duration::from_millis(10));
            (all, found) = find(&self.known);
        }
        let names: BTreeSet<String> = found
            .iter()
            .filter_map(|(pid, _)| all.get(pid).map(|stat| stat.name.clone()))
            .collect();
        let mut report = LeftoverReport {
            count: found.len(),
            names: names.into_iter().collect(),
            killed: end_them && !found.is_empty(),
            survivors: 0,
        };
        if !report.killed {
            self.known.extend(found);
            return report;
        }
        for (signal, wait) in [(Signal::SIGTERM, KILL_GRACE), (Signal::SIGKILL, KILL_GRACE)] {
            let until = Instant::now() + wait;
            loop {
                // Each round signals what is there now: a leftover may have started another.
                let (all, found) = find(&self.known);
                if found.is_empty() || Instant::now() >= until {
                    report.survivors = found.len();
                    break;
                }
                // The group of the run's own program; ESRCH (none left in it) is fine.
                let _ = killpg(Pid::from_raw(group), signal);
                for (pid, start) in &found {
                    // Named by pid and start time, read again just now: not a reused pid.
                    if all.get(pid).is_some_and(|stat| stat.start == *start) {
                        let _ = kill(Pid::from_raw(*pid), signal);
                    }
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            if report.survivors == 0 {
                break;
            }
        }
        let (_, survivors) = find(&self.known);
        report.survivors = survivors.len();
        self.known.extend(survivors);
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    /// Whether `pid` names a running process (not gone, not a zombie).
    fn running(pid: i32) -> bool {
        processes().get(&pid).is_some_and(|stat| stat.alive)
    }

    fn stat(parent: i32, group: i32, start: u64, alive: bool) -> ProcessStat {
        ProcessStat {
            parent,
            group,
            start,
            name: "p".into(),
            alive,
        }
    }

    #[test]
    fn a_stat_line_with_an_awkward_name_is_parsed() {
        let line = "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 96 0 0 0 0 0 0 0 20 0 1 0 123456 2433024 214 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
        let parsed = parse_process_stat(line).unwrap();
        assert_eq!(parsed.name, "a (b) c");
        assert_eq!(
            (parsed.parent, parsed.group, parsed.start),
            (17, 4242, 123456)
        );
        assert!(parsed.alive);
        assert!(
            !parse_process_stat(&line.replace(") S ", ") Z "))
                .unwrap()
                .alive
        );
    }

    /// The group's members, the subreaper's children and their descendants
    /// count; zombies, earlier runs' leftovers and this process do not;
    /// without the subreaper only the group is searched.
    #[test]
    fn the_group_and_the_reparented_with_their_descendants_are_found() {
        let this = 100;
        let all: BTreeMap<i32, ProcessStat> = [
            (100, stat(1, 100, 1, true)),    // numabench
            (200, stat(100, 200, 5, true)),  // in the run's group, reparented
            (201, stat(200, 201, 6, true)),  // its child, in a group of its own
            (300, stat(100, 300, 7, true)),  // a setsid daemon, reparented
            (301, stat(100, 301, 8, false)), // a zombie
            (400, stat(1, 200, 9, true)),    // in the group, another parent
            (500, stat(1, 500, 10, true)),   // unrelated
            (600, stat(100, 600, 2, true)),  // left by an earlier run
        ]
        .into_iter()
        .collect();
        let known = BTreeSet::from([(600, 2)]);
        let found = left_running(&all, 200, this, true, &known);
        let pids: Vec<i32> = found.iter().map(|(pid, _)| *pid).collect();
        assert_eq!(pids, [200, 201, 300, 400]);
        let group_only: Vec<i32> = left_running(&all, 200, this, false, &known)
            .iter()
            .map(|(pid, _)| *pid)
            .collect();
        assert_eq!(group_only, [200, 201, 400]);
    }

    /// A program that ended and was waited for leaves its group empty: the
    /// two system calls say so without a /proc scan, and the check agrees.
    #[test]
    fn an_ended_program_leaves_nothing_and_no_scan_is_needed() {
        let status = std::process::Command::new("true")
            .process_group(0)
            .spawn()
            .unwrap();
        let group = status.id() as i32;
        let mut status = status;
        assert!(status.wait().unwrap().success());
        assert!(certainly_nothing_left(group, false));
        assert_eq!(
            Leftovers::default().check(group, false),
            LeftoverReport::default()
        );
    }

    /// A real leftover: a shell that starts `sleep` in the background and
    /// exits. Counted, then ended with `kill`.
    #[test]
    fn a_background_sleep_is_found_and_killed() {
        let child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 > /dev/null 2>&1 & echo $!"])
            .process_group(0)
            .output()
            .unwrap();
        let sleep: i32 = String::from_utf8_lossy(&child.stdout)
            .trim()
            .parse()
            .unwrap();
        let group = nix::unistd::getpgid(Some(Pid::from_raw(sleep)))
            .unwrap()
            .as_raw();
        assert!(
            !certainly_nothing_left(group, false),
            "the sleep is in the group"
        );
        let mut leftovers = Leftovers::default();
        let seen = leftovers.check(group, false);
        assert_eq!((seen.count, seen.killed), (1, false), "{seen:?}");
        assert_eq!(seen.names, ["sleep"]);
        assert!(running(sleep));
        // Counted by the run that left it alone.
        assert_eq!(leftovers.check(group, false).count, 0);
        let mut fresh = Leftovers::default();
        let killed = fresh.check(group, true);
        assert_eq!(
            (killed.count, killed.killed, killed.survivors),
            (1, true, 0)
        );
        // Not our child (the test process is no subreaper): init reaps it.
        let until = Instant::now() + Duration::from_secs(10);
        while running(sleep) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(sleep), "the leftover survived");
    }
}
