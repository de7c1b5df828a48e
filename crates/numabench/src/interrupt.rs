//! Ctrl-C: the first SIGINT sets a flag that benchmarks check between
//! measurements, so they stop after the current sample and the pipeline
//! closes every output properly. A second SIGINT kills at once.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_signal: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
}

/// Installs the SIGINT handler (idempotent).
pub fn install_interrupt_handler() {
    // SAFETY: the handler only touches an atomic and calls _exit, both async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t);
    }
}

/// Whether the user asked to stop.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
