//! The terminal, for a run that shows its output (`run --show-output`).
//!
//! Each run's program leads a process group of its own (so that a signal to
//! numabench can be forwarded to everything it started). A process of a
//! background group that changes the terminal's settings (`tcsetattr`: a
//! pager, an editor, `stty`) or reads from it is stopped by the kernel
//! with SIGTTOU or SIGTTIN. So, where numabench holds its terminal (its
//! group is the foreground one), the program's group gets it for the run,
//! as a shell gives a job the terminal, and numabench takes it back after.
//! While the program holds it, the terminal's Ctrl-C and Ctrl-\ reach the
//! program alone: a program that dies of them stops numabench as the
//! signal would have (see [`ends_like_the_keyboard`]).

use nix::sys::signal::{signal, SigHandler, Signal};
use nix::unistd::{getpgrp, tcgetpgrp, tcsetpgrp, Pid};
use std::io::IsTerminal;
use std::os::fd::{AsFd, BorrowedFd};

/// The terminal handed to a run's program group; dropping it takes the
/// terminal back.
pub(super) struct Foreground {
    terminal: BorrowedFd<'static>,
    group: Pid,
    /// Numabench's own group, the terminal's foreground before.
    ours: Pid,
    /// SIGTTOU's disposition before: numabench ignores SIGTTOU while it is
    /// in the background, so that taking the terminal back (or writing to
    /// it with `stty tostop`) does not stop numabench itself.
    ttou_before: SigHandler,
}

/// The first of stdin, stdout and stderr that is a terminal.
fn terminal() -> Option<BorrowedFd<'static>> {
    // SAFETY: descriptors 0, 1 and 2 stay open for the life of the process.
    [0, 1, 2]
        .into_iter()
        .map(|fd| unsafe { BorrowedFd::borrow_raw(fd) })
        .find(|fd| fd.is_terminal())
}

impl Foreground {
    /// Makes `group` (a program just started as the leader of a new group)
    /// the terminal's foreground group, when numabench's own group is it
    /// now; `None` (nothing changed) otherwise: no terminal, or numabench
    /// runs in the background of one.
    pub(super) fn give(group: Pid) -> Option<Foreground> {
        let terminal = terminal()?;
        let ours = getpgrp();
        if tcgetpgrp(terminal.as_fd()).ok()? != ours {
            return None;
        }
        // SAFETY: ignoring a signal installs no handler. After the spawn:
        // the program exec'd with the disposition it inherited.
        let ttou_before = unsafe { signal(Signal::SIGTTOU, SigHandler::SigIgn) }.ok()?;
        if tcsetpgrp(terminal.as_fd(), group).is_err() {
            // SAFETY: restores the disposition read above.
            let _ = unsafe { signal(Signal::SIGTTOU, ttou_before) };
            return None;
        }
        Some(Foreground {
            terminal,
            group,
            ours,
            ttou_before,
        })
    }

    /// Whether the program's group holds the terminal now.
    pub(super) fn program_holds_it(&self) -> bool {
        tcgetpgrp(self.terminal.as_fd()) == Ok(self.group)
    }
}

impl Drop for Foreground {
    fn drop(&mut self) {
        // SIGTTOU is ignored: a background group may take the terminal.
        let _ = tcsetpgrp(self.terminal.as_fd(), self.ours);
        // SAFETY: restores the disposition `give` read.
        let _ = unsafe { signal(Signal::SIGTTOU, self.ttou_before) };
    }
}

/// Whether a program that held the terminal and was killed by `signal`
/// ended as the terminal's Ctrl-C (SIGINT) or Ctrl-\ (SIGQUIT) would have
/// ended numabench, had numabench held the terminal: then numabench stops
/// as if it got the signal (a shell does the same for its jobs).
pub(super) fn ends_like_the_keyboard(signal: Option<i32>) -> bool {
    signal == Some(Signal::SIGINT as i32) || signal == Some(Signal::SIGQUIT as i32)
}
