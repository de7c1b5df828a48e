//! What one thread has used so far, from /proc/PID/task/TID/stat (user and
//! system time, in clock ticks; its state; the CPU it last ran on) and
//! /proc/PID/task/TID/status (voluntary and involuntary context switches).
//! The kernel reports times in clock ticks (`sysconf(_SC_CLK_TCK)`, 100 per
//! second on Linux): a thread's figure is exact to one tick.

use super::proc_file::read_proc_file;
use serde::Serialize;
use std::path::Path;

/// One thread's counters at one moment (or the difference of two).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ThreadUsage {
    pub tid: u32,
    /// The CPU it last ran on.
    pub cpu: u32,
    pub user_seconds: f64,
    pub system_seconds: f64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
}

/// The fields of a stat line this module needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TaskStat {
    /// `R` running or runnable, `S` sleeping, `D` waiting for I/O, ...
    pub state: char,
    pub utime_ticks: u64,
    pub stime_ticks: u64,
    pub processor: u32,
}

/// Seconds per clock tick: the resolution of the per-thread times.
pub fn tick_seconds() -> f64 {
    // SAFETY: sysconf has no memory effects.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    1.0 / if ticks > 0 { ticks as f64 } else { 100.0 }
}

/// Parses a /proc stat line: state (field 3), utime (14), stime (15),
/// processor (39), counted after the parenthesised command name (which may
/// hold spaces and parentheses).
pub fn parse_stat(stat: &str) -> Option<TaskStat> {
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    Some(TaskStat {
        state: fields.first()?.chars().next()?,
        utime_ticks: fields.get(11)?.parse().ok()?,
        stime_ticks: fields.get(12)?.parse().ok()?,
        processor: fields.get(36)?.parse().ok()?,
    })
}

/// `voluntary_ctxt_switches` and `nonvoluntary_ctxt_switches` of a
/// /proc status file.
pub fn parse_switches(status: &str) -> Option<(u64, u64)> {
    let field = |name: &str| {
        status.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == name).then(|| value.trim().parse().ok())?
        })
    };
    Some((
        field("voluntary_ctxt_switches")?,
        field("nonvoluntary_ctxt_switches")?,
    ))
}

/// The counters of the task whose /proc directory is `task_dir`
/// (`/proc/PID/task/TID`); `None` when it has gone.
pub fn read_task(task_dir: &Path, tid: u32) -> Option<ThreadUsage> {
    let mut buffer = Vec::new();
    let stat = parse_stat(read_proc_file(&task_dir.join("stat"), &mut buffer)?)?;
    let (voluntary, involuntary) =
        parse_switches(read_proc_file(&task_dir.join("status"), &mut buffer)?)?;
    let tick = tick_seconds();
    Some(ThreadUsage {
        tid,
        cpu: stat.processor,
        user_seconds: micro(stat.utime_ticks as f64 * tick),
        system_seconds: micro(stat.stime_ticks as f64 * tick),
        voluntary_switches: voluntary,
        involuntary_switches: involuntary,
    })
}

/// The counters of thread `tid` of this process.
pub fn read_own_thread(tid: u32) -> Option<ThreadUsage> {
    read_task(Path::new(&format!("/proc/self/task/{tid}")), tid)
}

/// The thread ids of this process now.
pub fn own_threads() -> Vec<u32> {
    let mut tids: Vec<u32> = std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_string_lossy().parse().ok())
        .collect();
    tids.sort_unstable();
    tids
}

/// The calling thread's id.
pub fn current_tid() -> u32 {
    // SAFETY: gettid has no memory effects.
    unsafe { libc::gettid() as u32 }
}

/// Seconds rounded to the microsecond (tick multiples without the float
/// noise of subtracting them), never negative.
pub(super) fn micro(seconds: f64) -> f64 {
    (seconds.max(0.0) * 1e6).round() / 1e6
}

impl ThreadUsage {
    /// What the thread used between `earlier` and `self` (the CPU is the
    /// later one).
    pub fn since(&self, earlier: &ThreadUsage) -> ThreadUsage {
        ThreadUsage {
            tid: self.tid,
            cpu: self.cpu,
            user_seconds: micro(self.user_seconds - earlier.user_seconds),
            system_seconds: micro(self.system_seconds - earlier.system_seconds),
            voluntary_switches: self
                .voluntary_switches
                .saturating_sub(earlier.voluntary_switches),
            involuntary_switches: self
                .involuntary_switches
                .saturating_sub(earlier.involuntary_switches),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_command_name() {
        let mut fields: Vec<String> = (3..=52).map(|field| field.to_string()).collect();
        fields[0] = "R".into();
        fields[11] = "250".into();
        fields[12] = "7".into();
        fields[36] = "3".into();
        let stat = format!("99 (a (b) c) {}", fields.join(" "));
        assert_eq!(
            parse_stat(&stat),
            Some(TaskStat {
                state: 'R',
                utime_ticks: 250,
                stime_ticks: 7,
                processor: 3
            })
        );
        assert_eq!(parse_stat("99 (x) R 1 2"), None);
    }

    #[test]
    fn switches_come_from_the_status_file() {
        let status = "Name:\tx\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n";
        assert_eq!(parse_switches(status), Some((12, 3)));
        assert_eq!(parse_switches("Name:\tx\n"), None);
    }

    /// This thread's CPU time, in seconds.
    fn thread_cpu_seconds() -> f64 {
        crate::counters::thread_cpu_time().as_secs_f64()
    }

    /// A thread that spins for 5 ticks of CPU time is seen using them, to
    /// within the tick truncation of its user and its system figure.
    #[test]
    fn a_spinning_thread_shows_its_cpu_time() {
        let tid = current_tid();
        let tick = tick_seconds();
        let before = read_own_thread(tid).expect("own thread");
        let start = thread_cpu_seconds();
        let mut x = 0u64;
        while thread_cpu_seconds() - start < 5.0 * tick {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let spent = thread_cpu_seconds() - start;
        let used = read_own_thread(tid).unwrap().since(&before);
        let seen = used.user_seconds + used.system_seconds;
        assert!(seen >= spent - 2.0 * tick - 1e-9, "{used:?} spent {spent}");
        assert!(seen <= spent + 2.0 * tick + 1e-9, "{used:?} spent {spent}");
        assert!(own_threads().contains(&tid));
    }
}
