//! Waiting for a run's program the way hyperfine does (the starting thread
//! blocks in wait4 until the child ends, then has its status and resource
//! usage), while sampling the program's threads from that same thread
//! between waits.
//!
//! A per-thread POSIX timer, armed before the clock starts and disarmed
//! after it stops, sends this thread a signal every sampling interval: its
//! handler does nothing and is installed without `SA_RESTART`, so wait4
//! returns `EINTR`, the thread takes a sample and waits again. Inside the
//! timed region there is only the spawn and wait4, as in hyperfine; a
//! program that ends within the first interval is never interrupted.
//!
//! What came before, measured against hyperfine on `true` (2-CPU VM, median
//! of per-round ratios): a sampler thread started per run 1.11-1.26x (its
//! start and wake-ups competed with the child's start); a pidfd opened for
//! the child and `ppoll`ed with a timeout at the next sample 1.04-1.13x (the
//! pidfd's open, poll and close are in the timed region); no sampling at all
//! 1.02-1.09x (docs/benchmarks.md, `scripts/bench-vs-hyperfine`). A sample
//! is due every interval from `started + interval` on, so a program shorter
//! than the interval is not sampled at all (its record says so with
//! `tlp: null`).
//!
//! Where a timer cannot be made the caller samples from a thread of its
//! own ([`SampleTicks::start`] returns `None`).

use super::observe::tree_tasks;
use crate::counters::{Sampled, TaskSampler};
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

/// The signal the sampling timer sends: a real-time signal of the
/// application's range (glibc keeps the first ones of the kernel's range
/// for itself; `SIGRTMIN()` is past them), so no ordinary signal changes
/// meaning.
fn tick_signal() -> libc::c_int {
    libc::SIGRTMIN() + 4
}

/// Does nothing: the signal's only work is to interrupt wait4.
extern "C" fn on_tick(_signal: libc::c_int) {}

/// Installs [`on_tick`] once, without `SA_RESTART`; whether it is installed.
fn install_tick_handler() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| {
        // SAFETY: sigaction is plain data; all-zero is a valid value (no
        // flags, an empty mask) before the handler is set.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = on_tick as extern "C" fn(libc::c_int) as usize;
        // SAFETY: installs a handler that does nothing (async-signal-safe)
        // for a real-time signal nothing else in numabench uses; a valid
        // action pointer, no old action asked for.
        unsafe { libc::sigaction(tick_signal(), &action, std::ptr::null_mut()) == 0 }
    })
}

/// A POSIX timer that signals the thread that made it; deleted with the thread.
struct ThreadTimer(libc::timer_t);

impl ThreadTimer {
    fn for_this_thread() -> Option<ThreadTimer> {
        if !install_tick_handler() {
            return None;
        }
        // SAFETY: sigevent is plain data; all-zero is valid before the fields are set.
        let mut event: libc::sigevent = unsafe { std::mem::zeroed() };
        event.sigev_notify = libc::SIGEV_THREAD_ID;
        event.sigev_signo = tick_signal();
        // SAFETY: gettid has no preconditions.
        event.sigev_notify_thread_id = unsafe { libc::gettid() };
        let mut timer: libc::timer_t = std::ptr::null_mut();
        // SAFETY: valid pointers to an initialised sigevent and to the id written.
        let made = unsafe { libc::timer_create(libc::CLOCK_MONOTONIC, &mut event, &mut timer) };
        (made == 0).then_some(ThreadTimer(timer))
    }

    /// Arms the timer to fire every `interval` from one `interval` from
    /// now on (`Duration::ZERO`: disarms it).
    fn set(&self, interval: Duration) -> bool {
        let time = libc::timespec {
            tv_sec: interval.as_secs() as libc::time_t,
            tv_nsec: interval.subsec_nanos() as libc::c_long,
        };
        let value = libc::itimerspec {
            it_interval: time,
            it_value: time,
        };
        // SAFETY: a timer this thread made and owns; a valid itimerspec, no
        // old value asked for.
        unsafe { libc::timer_settime(self.0, 0, &value, std::ptr::null_mut()) == 0 }
    }
}

impl Drop for ThreadTimer {
    fn drop(&mut self) {
        // SAFETY: deletes the timer this value owns, once.
        unsafe { libc::timer_delete(self.0) };
    }
}

thread_local! {
    /// This thread's sampling timer, made at its first sampled run.
    static TIMER: Option<ThreadTimer> = ThreadTimer::for_this_thread();
}

/// The sampling timer of the calling thread, armed: a signal every
/// `interval` until dropped, which disarms it. Made on the thread that then
/// waits for the program, before the clock starts.
pub(super) struct SampleTicks {
    interval: Duration,
    /// Not `Send`: dropping disarms the timer of the thread that drops it.
    _this_thread: std::marker::PhantomData<*const ()>,
}

impl SampleTicks {
    /// Arms the calling thread's timer; `None` when it has none (no handler
    /// or no timer could be made) or it could not be armed.
    pub(super) fn start(interval: Duration) -> Option<SampleTicks> {
        let armed = TIMER.with(|timer| timer.as_ref().is_some_and(|timer| timer.set(interval)));
        armed.then_some(SampleTicks {
            interval,
            _this_thread: std::marker::PhantomData,
        })
    }
}

impl Drop for SampleTicks {
    fn drop(&mut self) {
        TIMER.with(|timer| {
            if let Some(timer) = timer {
                timer.set(Duration::ZERO);
            }
        });
    }
}

/// Waits until the child `pid` ends (wait4), taking a sample of its process
/// tree each time `ticks` interrupts the wait once a sample is due: every
/// interval from `started + interval` on. Without ticks it only waits. The
/// wall time runs from `started` to wait4's return.
///
/// The wait also returns when the child stops (`WUNTRACED`: SIGSTOP,
/// SIGTSTP, or SIGTTOU/SIGTTIN for touching a terminal from the
/// background), which would otherwise leave numabench waiting for a
/// program that can never end: `on_stop` is told the signal, and must
/// resume the child or end it; the wait goes on.
pub(super) fn wait_for_child(
    pid: u32,
    started: Instant,
    ticks: Option<&SampleTicks>,
    on_stop: &mut dyn FnMut(i32),
) -> Waited {
    let mut sampling = ticks.map(|ticks| (TaskSampler::new(true), started + ticks.interval));
    let mut status = 0;
    // SAFETY: rusage is plain data filled by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let result = loop {
        // SAFETY: waits for our own child; pointers are valid for the call.
        let result =
            unsafe { libc::wait4(pid as libc::pid_t, &mut status, libc::WUNTRACED, &mut usage) };
        if result >= 0 && libc::WIFSTOPPED(status) {
            on_stop(libc::WSTOPSIG(status));
            continue;
        }
        if result >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
        {
            break result;
        }
        // A tick (or another signal): sample if one is due, then wait again.
        if let (Some((sampler, due)), Some(ticks)) = (&mut sampling, ticks) {
            if Instant::now() >= *due {
                *due = sampler.sample(tree_tasks(pid), ticks.interval);
            }
        }
    };
    let wall_seconds = started.elapsed().as_secs_f64();
    Waited {
        result,
        status,
        usage,
        wall_seconds,
        sampled: sampling.map(|(sampler, _)| sampler.finish()),
    }
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
        let ticks = SampleTicks::start(Duration::from_millis(10)).expect("a timer");
        let started = Instant::now();
        let child = Command::new("sleep").arg("0.2").spawn().unwrap();
        let waited = wait_for_child(child.id(), started, Some(&ticks), &mut |_| {});
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
        let ticks = SampleTicks::start(Duration::from_secs(30)).expect("a timer");
        let started = Instant::now();
        let child = Command::new("true").spawn().unwrap();
        let waited = wait_for_child(child.id(), started, Some(&ticks), &mut |_| {});
        assert_eq!(waited.result, child.id() as libc::pid_t);
        assert!(waited.wall_seconds < 10.0, "{}", waited.wall_seconds);
        assert_eq!(waited.sampled.expect("sampled").runnable.samples(), 0);
    }

    /// A program that stops itself is reported to `on_stop` with the
    /// signal, and the wait goes on after it is resumed. Before the fix the
    /// wait (without WUNTRACED) never returned for a stopped program.
    #[test]
    fn a_stopped_program_is_reported_and_the_wait_goes_on() {
        let child = Command::new("sh")
            .args(["-c", "kill -STOP $$; exit 3"])
            .spawn()
            .unwrap();
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        let mut stops = Vec::new();
        let waited = wait_for_child(child.id(), Instant::now(), None, &mut |signal| {
            stops.push(signal);
            nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT).unwrap();
        });
        assert_eq!(stops, [libc::SIGSTOP]);
        assert_eq!(waited.result, child.id() as libc::pid_t);
        assert!(libc::WIFEXITED(waited.status) && libc::WEXITSTATUS(waited.status) == 3);
    }

    /// Sleeps 20 ms in nanosleep, which a handled signal always interrupts;
    /// whether it was interrupted.
    fn sleep_interrupted() -> bool {
        let time = libc::timespec {
            tv_sec: 0,
            tv_nsec: 20_000_000,
        };
        // SAFETY: a valid timespec; no remainder asked for.
        let slept = unsafe { libc::nanosleep(&time, std::ptr::null_mut()) };
        slept != 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
    }

    /// Armed, the ticks interrupt this thread's blocking calls; dropped,
    /// they stop: nothing after a run is interrupted.
    #[test]
    fn ticks_interrupt_the_wait_and_stop_when_dropped() {
        let ticks = SampleTicks::start(Duration::from_millis(1)).expect("a timer");
        assert!(sleep_interrupted(), "armed ticks did not interrupt");
        drop(ticks);
        assert!(
            !sleep_interrupted(),
            "a tick came after the ticks were dropped"
        );
    }
}
