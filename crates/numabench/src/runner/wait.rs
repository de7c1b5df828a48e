//! Waiting for a run's program the way hyperfine does (the starting thread
//! blocks until the child ends, then reads its status and resource usage
//! with wait4), while sampling the program's threads from that same
//! thread between waits.
//!
//! Sampling from the waiting thread, woken by a pidfd when the child ends
//! or by the timeout when a sample is due, starts no thread per run: with
//! a sampler thread started for every run, `numabench run` reported `true`
//! 3-10% slower than hyperfine on a 2-CPU VM (the thread's start and its
//! wake-ups competed with the child's start on the CPUs), against about 2%
//! without one. The first sample is taken one interval after the start, so
//! a program shorter than the interval is not sampled at all (no TLP and no
//! per-thread usage: its record says so with `tlp: null`).
//!
//! Kernels before Linux 5.3 have no pidfd: there the caller samples from a
//! thread of its own ([`pidfd_supported`] tells it which).

use super::observe::tree_tasks;
use crate::counters::{Sampled, TaskSampler};
use nix::poll::{ppoll, PollFd, PollFlags};
use nix::sys::time::TimeSpec;
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// What waiting for the program gave: wait4's result (the pid, or -1 with
/// errno set), status and resource usage, the wall time from `started` to
/// wait4's return, and what sampling saw (`None` when not sampled here).
pub(super) struct Waited {
    pub result: libc::pid_t,
    pub status: i32,
    pub usage: libc::rusage,
    pub wall_seconds: f64,
    pub sampled: Option<Sampled>,
}

/// A pidfd for process `pid` (Linux 5.3 and later).
fn pidfd_open(pid: libc::pid_t) -> std::io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags (0) and returns a new file
    // descriptor or -1; no memory is passed.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd is a descriptor the kernel just opened for us and nothing
    // else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Whether this kernel has pidfd_open (checked once, on this process).
pub(super) fn pidfd_supported() -> bool {
    static SUPPORTED: OnceLock<bool> = OnceLock::new();
    // SAFETY: getpid has no preconditions.
    *SUPPORTED.get_or_init(|| pidfd_open(unsafe { libc::getpid() }).is_ok())
}

/// Waits until the child `pid` ends (wait4, retried on EINTR), taking a
/// sample of its process tree every `interval` from `started + interval` on
/// while `sample` is set and the kernel has pidfds; without them it only
/// waits. The wall time runs from `started` to wait4's return.
pub(super) fn wait_for_child(pid: u32, started: Instant, sample: Option<Duration>) -> Waited {
    let sampled = sample.and_then(|interval| {
        let pidfd = pidfd_open(pid as libc::pid_t).ok()?;
        Some(sample_until_exit(pid, &pidfd, started, interval))
    });
    let mut status = 0;
    // SAFETY: rusage is plain data filled by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let result = loop {
        // SAFETY: waits for our own child; pointers are valid for the call.
        let result = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if result >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
        {
            break result;
        }
    };
    Waited {
        result,
        status,
        usage,
        wall_seconds: started.elapsed().as_secs_f64(),
        sampled,
    }
}

/// Samples the tree of `pid` every `interval` until its pidfd says it
/// ended (the child is then a zombie, left for wait4 to reap).
fn sample_until_exit(pid: u32, pidfd: &OwnedFd, started: Instant, interval: Duration) -> Sampled {
    let mut sampler = TaskSampler::new(true);
    let mut due = started + interval;
    loop {
        let now = Instant::now();
        if now >= due {
            due = sampler.sample(tree_tasks(pid), interval);
            continue;
        }
        let mut fds = [PollFd::new(pidfd.as_fd(), PollFlags::POLLIN)];
        match ppoll(&mut fds, Some(TimeSpec::from(due - now)), None) {
            // Readable: the child ended.
            Ok(ready) if ready > 0 => break,
            // A sample is due, or a signal (SIGINT/SIGTERM are forwarded by
            // their handler) interrupted the wait: look again.
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            // Anything else: stop sampling and leave the wait to wait4.
            Err(_) => break,
        }
    }
    sampler.finish()
}

#[cfg(test)]
// The children are reaped by `wait_for_child` (wait4), which clippy cannot see.
#[allow(clippy::zombie_processes)]
mod tests {
    use super::*;
    use std::process::Command;

    /// A program that runs for several intervals is sampled, and its
    /// thread is seen; the wall time covers its run.
    #[test]
    fn a_program_is_sampled_while_it_runs_and_reaped_after() {
        if !pidfd_supported() {
            eprintln!("this kernel has no pidfd_open: nothing to test here");
            return;
        }
        let started = Instant::now();
        let child = Command::new("sleep").arg("0.2").spawn().unwrap();
        let waited = wait_for_child(child.id(), started, Some(Duration::from_millis(10)));
        assert_eq!(waited.result, child.id() as libc::pid_t);
        assert_eq!(waited.status, 0);
        assert!(waited.wall_seconds >= 0.2, "{}", waited.wall_seconds);
        let sampled = waited.sampled.expect("sampled");
        assert!(sampled.runnable.samples() >= 5, "{:?}", sampled.runnable);
        assert_eq!(
            sampled.last_usage.keys().copied().collect::<Vec<_>>(),
            vec![child.id()]
        );
    }

    /// A program that ends before the first interval is not sampled, and
    /// its end is noticed at once: the wait is not held to the interval.
    #[test]
    fn a_program_shorter_than_the_interval_is_not_sampled_and_not_delayed() {
        if !pidfd_supported() {
            eprintln!("this kernel has no pidfd_open: nothing to test here");
            return;
        }
        let started = Instant::now();
        let child = Command::new("true").spawn().unwrap();
        let waited = wait_for_child(child.id(), started, Some(Duration::from_secs(30)));
        assert_eq!(waited.result, child.id() as libc::pid_t);
        assert!(waited.wall_seconds < 10.0, "{}", waited.wall_seconds);
        assert_eq!(waited.sampled.expect("sampled").runnable.samples(), 0);
    }
}
