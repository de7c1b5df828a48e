//! Watching a plugin's child process: its pipe is read until the child
//! ends, the `--timeout` passes, or numabench receives SIGINT or SIGTERM.
//! The child runs in its own process group, so a signal sent to numabench
//! alone (a batch system's SIGTERM, `kill` from a script) is forwarded to
//! the whole group by the parent, which waits [`GRACE`], then sends
//! SIGKILL to whatever is left, and reaps the child: no process of the
//! plugin outlives numabench.
//!
//! The handlers are installed only while a child runs and the previous
//! ones are restored after ([`SignalGuard`]); a Ctrl-C recorded before by
//! [`crate::interrupt`] counts as a SIGINT.

use nix::sys::signal::{
    killpg, sigaction, signal as set_handler, SaFlags, SigAction, SigHandler, SigSet, Signal,
};
use nix::unistd::{setpgid, Pid};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// How long a stopped child has between the forwarded signal (or the
/// timeout's SIGTERM) and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);

/// How often the parent looks at the signals, the clock and the child.
const TICK: Duration = Duration::from_millis(50);

/// The last SIGINT or SIGTERM received while a child ran (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    SIGNAL.store(signal, Ordering::SeqCst);
}

/// SIGINT and SIGTERM handlers that record the signal for the parent to
/// forward; dropping the guard restores the handlers that were there.
pub struct SignalGuard {
    previous: [(Signal, Option<SigAction>); 2],
}

impl SignalGuard {
    /// Installs the recording handlers and clears any earlier signal.
    pub fn install() -> Self {
        SIGNAL.store(0, Ordering::SeqCst);
        // No flags, nothing masked: as a zeroed sigaction with an empty mask.
        let action = SigAction::new(
            SigHandler::Handler(on_signal),
            SaFlags::empty(),
            SigSet::empty(),
        );
        let install = |signal: Signal| {
            // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
            let previous = unsafe { sigaction(signal, &action) }.ok();
            (signal, previous)
        };
        Self {
            previous: [install(Signal::SIGINT), install(Signal::SIGTERM)],
        }
    }
}

impl Drop for SignalGuard {
    fn drop(&mut self) {
        for (signal, previous) in &self.previous {
            if let Some(previous) = previous {
                // SAFETY: `previous` is what sigaction returned for this signal.
                let _ = unsafe { sigaction(*signal, previous) };
            }
        }
    }
}

/// In the child, right after fork: its own process group, and the default
/// action for the signals the parent forwards.
pub fn in_child() {
    let _ = setpgid(Pid::from_raw(0), Pid::from_raw(0));
    // SAFETY: restoring the default action installs no handler.
    unsafe {
        let _ = set_handler(Signal::SIGINT, SigHandler::SigDfl);
        let _ = set_handler(Signal::SIGTERM, SigHandler::SigDfl);
    }
}

/// In the parent, right after fork: the same process group as
/// [`in_child`] sets (whichever runs first wins the race; both agree).
pub fn own_group(pid: libc::pid_t) {
    // pid is our child; a failure (it already did it) is harmless.
    let _ = setpgid(Pid::from_raw(pid), Pid::from_raw(pid));
}

/// How the child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It ended by itself: the raw wait status.
    Status(libc::c_int),
    /// The timeout passed; it was stopped.
    TimedOut,
    /// numabench received this signal; it was forwarded and the child stopped.
    Interrupted(libc::c_int),
}

/// Whether `pid` has ended, without reaping it (its process group stays
/// reserved until it is reaped).
fn ended(pid: libc::pid_t) -> bool {
    // SAFETY: info is a valid out-parameter for waitid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child; WNOWAIT leaves it waitable.
    let result = unsafe {
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    // SAFETY: waitid filled info (si_pid 0 when nothing has ended).
    result == 0 && unsafe { info.si_pid() } == pid
}

/// Reaps `pid` and returns its wait status.
fn reap(pid: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    // SAFETY: pid is our child; status is a valid out-parameter.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
        && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
    {}
    status
}

/// Sends `signal` to the child's group, waits up to [`GRACE`], then
/// SIGKILLs the group (the child, a zombie at worst, still holds its id)
/// and reaps the child.
fn stop(pid: libc::pid_t, signal: libc::c_int) {
    // The process group of our child, made at fork (kill(-pid)); a signal
    // nix does not name (none is forwarded) goes out as SIGKILL below only.
    if let Ok(signal) = Signal::try_from(signal) {
        let _ = killpg(Pid::from_raw(pid), signal);
    }
    let deadline = Instant::now() + GRACE;
    while !ended(pid) && Instant::now() < deadline {
        std::thread::sleep(TICK);
    }
    // The unreaped child keeps the group id from reuse.
    let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    reap(pid);
}

/// Reads everything the child writes on `pipe` and waits for it to end,
/// stopping it at `timeout` or on SIGINT/SIGTERM. Returns the text read
/// and how the child ended; the child is reaped in every case.
pub fn supervise(pid: libc::pid_t, pipe: OwnedFd, timeout: Duration) -> (String, Ending) {
    let fd = pipe.as_raw_fd();
    // SAFETY: fd is the open read end of the pipe, owned by `pipe`.
    unsafe { libc::fcntl(fd, libc::F_SETFL, libc::O_NONBLOCK) };
    let deadline = Instant::now() + timeout;
    let mut bytes = Vec::new();
    let mut open = true;
    let drain = |bytes: &mut Vec<u8>, open: &mut bool| {
        let mut chunk = [0u8; 65536];
        while *open {
            // SAFETY: chunk is valid for chunk.len() bytes.
            let read = unsafe { libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len()) };
            match read {
                0 => *open = false,
                n if n > 0 => bytes.extend_from_slice(&chunk[..n as usize]),
                _ => match std::io::Error::last_os_error().kind() {
                    std::io::ErrorKind::Interrupted => {}
                    std::io::ErrorKind::WouldBlock => break,
                    _ => *open = false,
                },
            }
        }
    };
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    loop {
        let signal = match SIGNAL.load(Ordering::SeqCst) {
            0 if crate::interrupt::interrupted() => libc::SIGINT,
            signal => signal,
        };
        if signal != 0 {
            stop(pid, signal);
            return (text(bytes), Ending::Interrupted(signal));
        }
        let now = Instant::now();
        if now >= deadline {
            stop(pid, libc::SIGTERM);
            return (text(bytes), Ending::TimedOut);
        }
        let wait = TICK.min(deadline - now);
        if open {
            let mut poll = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd; a signal interrupts it (EINTR), which is fine.
            unsafe { libc::poll(&mut poll, 1, wait.as_millis().max(1) as libc::c_int) };
            drain(&mut bytes, &mut open);
        } else {
            std::thread::sleep(wait);
        }
        if ended(pid) {
            drain(&mut bytes, &mut open);
            return (text(bytes), Ending::Status(reap(pid)));
        }
    }
}
