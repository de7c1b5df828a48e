//! Ctrl-C (SIGINT) and SIGTERM: the first one sets a flag that benchmarks
//! check between measurements, so they stop after the current sample and
//! the pipeline closes every output properly; the binary then exits
//! 128 + the signal (130, 143). A second one kills at once.
//!
//! Commands that start programs run each in a process group of its own and
//! hold a [`ChildGroup`] while it runs. A program in its own group no
//! longer receives a terminal's Ctrl-C, and a signal sent to numabench
//! alone (`kill`, `timeout`, a batch system) never reached it: so the
//! handler forwards the signal to every registered group, and after
//! [`GRACE_SECONDS`] (SIGALRM) kills what is left with SIGKILL. A second
//! signal kills the groups at once before exiting, so nothing a command
//! started outlives it.

use nix::sys::signal::{killpg, signal as set_handler, SigHandler, Signal};
use nix::unistd::{alarm, Pid};
use std::sync::atomic::{AtomicI32, Ordering};

/// The first SIGINT or SIGTERM received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// How many process groups can be registered at once (the VM harness runs
/// one QEMU per test thread; commands run one program at a time).
const SLOTS: usize = 32;

/// Process groups of running children (0: free slot).
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

/// Seconds a program has to end after the forwarded signal before the
/// whole group is killed.
pub const GRACE_SECONDS: u32 = 5;

/// Sends `signal` to every registered group. Async-signal-safe.
fn signal_groups(signal: Signal) {
    for slot in &GROUPS {
        let group = slot.load(Ordering::SeqCst);
        if group > 0 {
            // killpg is kill(-group): async-signal-safe.
            let _ = killpg(Pid::from_raw(group), signal);
        }
    }
}

extern "C" fn on_signal(signal: libc::c_int) {
    if let Err(first) = SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst) {
        signal_groups(Signal::SIGKILL);
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + first) };
    }
    // The handler is installed for SIGINT and SIGTERM only, both valid.
    if let Ok(signal) = Signal::try_from(signal) {
        signal_groups(signal);
    }
    // alarm is async-signal-safe; SIGALRM kills what ignored the signal.
    alarm::set(GRACE_SECONDS);
}

extern "C" fn on_alarm(_signal: libc::c_int) {
    signal_groups(Signal::SIGKILL);
}

/// Installs the SIGINT, SIGTERM and SIGALRM handlers (once: later calls,
/// one per program `run` starts, cost no system call).
pub fn install_interrupt_handler() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // SAFETY: the handlers only touch atomics and call kill, alarm and _exit,
        // all async-signal-safe. nix's signal() is glibc's, which restarts
        // interrupted system calls.
        unsafe {
            let _ = set_handler(Signal::SIGINT, SigHandler::Handler(on_signal));
            let _ = set_handler(Signal::SIGTERM, SigHandler::Handler(on_signal));
            let _ = set_handler(Signal::SIGALRM, SigHandler::Handler(on_alarm));
        }
    });
}

/// Sets SIGCHLD back to its default disposition. A process started with
/// SIGCHLD ignored (some supervisors and CI runners start their jobs so,
/// and an ignored disposition survives exec) has its children reaped by
/// the kernel as they end: every wait for one fails with ECHILD ("No child
/// processes"), and the programs it starts inherit the same. Called once
/// at start-up, before any program is started.
pub fn reset_child_signal() {
    // SAFETY: the default disposition installs no handler.
    let _ = unsafe { set_handler(Signal::SIGCHLD, SigHandler::SigDfl) };
}

/// Whether the user (or a batch system) asked to stop.
pub fn interrupted() -> bool {
    SIGNAL.load(Ordering::SeqCst) != 0
}

/// Stops as if numabench had received `signal` (unless a signal came
/// before), forwarding nothing: a program that held the terminal got the
/// terminal's Ctrl-C itself and ended of it, and numabench stops as it would
/// have, had the terminal's signal reached it (`run --show-output`).
pub fn stop_as_if_received(signal: i32) {
    let _ = SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
}

/// The signal that asked to stop (SIGINT or SIGTERM), if any.
pub fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// The exit status a process that stopped on [`signal`] reports: 128 + the
/// signal, as a shell does (130 for SIGINT, 143 for SIGTERM).
pub fn exit_status() -> Option<u8> {
    signal().map(|signal| (128 + signal) as u8)
}

/// A running child's process group, registered so that SIGINT and SIGTERM
/// reach it (see the module). The child must have been started as the
/// leader of a new group (`CommandExt::process_group(0)`). Dropping the
/// guard unregisters it; after an interruption, or if made with
/// [`ChildGroup::kill_on_drop`], dropping also kills what is left of the
/// group, so no process of it survives.
#[derive(Debug)]
pub struct ChildGroup {
    group: i32,
    slot: Option<usize>,
    kill_on_drop: bool,
}

impl ChildGroup {
    /// Registers the group led by `pid` (installing the handlers). If a
    /// signal arrived before (between the start and now), it is forwarded
    /// at once.
    pub fn new(pid: u32) -> ChildGroup {
        install_interrupt_handler();
        let group = pid as i32;
        let slot = GROUPS.iter().position(|slot| {
            slot.compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        });
        if let Some(signal) = signal().and_then(|signal| Signal::try_from(signal).ok()) {
            // Signalling the group of our own child.
            let _ = killpg(Pid::from_raw(group), signal);
        }
        ChildGroup {
            group,
            slot,
            kill_on_drop: false,
        }
    }

    /// Also kills the group when dropped without an interruption (a test's
    /// QEMU, an unwound panic).
    pub fn kill_on_drop(mut self) -> ChildGroup {
        self.kill_on_drop = true;
        self
    }

    /// The process group id.
    pub fn id(&self) -> i32 {
        self.group
    }
}

impl Drop for ChildGroup {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            GROUPS[slot].store(0, Ordering::SeqCst);
        }
        if self.kill_on_drop || interrupted() {
            // Signalling the group of our own child; ESRCH (gone) is fine.
            let _ = killpg(Pid::from_raw(self.group), Signal::SIGKILL);
        }
    }
}

/// Ends the process at once with `status` (`_exit`): no exit handlers run,
/// so an MPI library's, which would wait for ranks still measuring, cannot
/// hold it. For a rank that must stop on SIGTERM with its outputs, which
/// flush every record as it is emitted, as they stand.
pub fn exit_now(status: i32) -> ! {
    // SAFETY: _exit has no preconditions.
    unsafe { libc::_exit(status) }
}
