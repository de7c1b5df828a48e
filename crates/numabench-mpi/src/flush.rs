//! What a rank knows so far, written while it runs, so that a job that
//! never reaches MPI_Finalize (killed by the scheduler, one rank crashing)
//! still leaves its records: every `NUMABENCH_MPI_FLUSH` seconds (default
//! 10; 0: never) and when the rank receives SIGTERM, a thread of the
//! monitor calls the snapshot it was given (each rank writes its own
//! partial file, see `lifecycle`). The thread sleeps in `poll` between
//! snapshots; the calls' hot path is untouched.
//!
//! SIGTERM: a handler is installed only where the program left SIGTERM at
//! its default action. It writes one byte to a pipe (async-signal-safe);
//! the thread takes the snapshot, restores the default action and raises
//! SIGTERM again, so the rank still dies of SIGTERM, as it would have.

use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::Duration;

/// Env variable: seconds between partial snapshots.
pub const FLUSH_ENV: &str = "NUMABENCH_MPI_FLUSH";
/// Seconds between snapshots when the variable is unset.
pub const DEFAULT_SECONDS: f64 = 10.0;

/// The write end of the thread's pipe (-1: none).
static PIPE: AtomicI32 = AtomicI32::new(-1);
/// True while our SIGTERM handler is installed.
static HANDLING: AtomicBool = AtomicBool::new(false);
static THREAD: Mutex<Option<JoinHandle<()>>> = Mutex::new(None);

/// The interval `text` asks for: `None` for 0 (no periodic snapshot), an
/// error naming the value when it is not a non-negative number of seconds.
pub fn parse_interval(text: &str) -> Result<Option<Duration>, String> {
    match text.trim().parse::<f64>() {
        Ok(0.0) => Ok(None),
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 => {
            Ok(Some(Duration::from_secs_f64(seconds.max(0.001))))
        }
        _ => Err(format!(
            "{FLUSH_ENV}='{text}' is not a number of seconds (0: never)"
        )),
    }
}

/// The interval from the environment; a bad value is said once on stderr
/// and the default used (the program must still run).
pub fn interval() -> Option<Duration> {
    match std::env::var(FLUSH_ENV) {
        Ok(text) => parse_interval(&text).unwrap_or_else(|error| {
            eprintln!("numabench-mpi: {error}; using {DEFAULT_SECONDS} s");
            Some(Duration::from_secs_f64(DEFAULT_SECONDS))
        }),
        Err(_) => Some(Duration::from_secs_f64(DEFAULT_SECONDS)),
    }
}

extern "C" fn on_sigterm(_: c_int) {
    let fd = PIPE.load(Ordering::Acquire);
    // SAFETY: write(2) is async-signal-safe; one byte from a static.
    let written = fd >= 0 && unsafe { libc::write(fd, b"t".as_ptr().cast(), 1) } == 1;
    if !written {
        die_of_sigterm();
    }
}

/// Restores SIGTERM's default action and raises it.
fn die_of_sigterm() {
    // SAFETY: signal and raise are async-signal-safe; SIG_DFL is valid.
    unsafe {
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
        libc::raise(libc::SIGTERM);
    }
}

/// Installs the SIGTERM handler where SIGTERM has its default action.
fn handle_sigterm() {
    // SAFETY: sigaction is plain data; all zeroes is a valid empty one.
    let mut current: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: queries only (null new action); `current` is writable.
    unsafe { libc::sigaction(libc::SIGTERM, std::ptr::null(), &mut current) };
    if current.sa_sigaction != libc::SIG_DFL {
        return;
    }
    // SAFETY: as above.
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = on_sigterm as extern "C" fn(c_int) as usize;
    action.sa_flags = libc::SA_RESTART;
    // SAFETY: a valid action with an async-signal-safe handler.
    if unsafe { libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut()) } == 0 {
        HANDLING.store(true, Ordering::Release);
    }
}

/// Starts the snapshot thread (once): `snapshot` runs every `interval`
/// and on SIGTERM.
pub fn start(interval: Option<Duration>, snapshot: Box<dyn Fn() + Send>) {
    let mut thread = THREAD.lock().unwrap_or_else(|poison| poison.into_inner());
    if thread.is_some() {
        return;
    }
    let mut fds = [0 as c_int; 2];
    // SAFETY: `fds` has room for the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        eprintln!("numabench-mpi: no pipe for the partial snapshots: none will be written");
        return;
    }
    let [read_end, write_end] = fds;
    PIPE.store(write_end, Ordering::Release);
    let timeout = interval.map_or(-1, |every| every.as_millis().min(i32::MAX as u128) as c_int);
    let spawned = std::thread::Builder::new()
        .name("numabench-flush".into())
        .spawn(move || loop {
            let mut poll = libc::pollfd {
                fd: read_end,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let ready = unsafe { libc::poll(&mut poll, 1, timeout) };
            if ready == 0 {
                snapshot();
                continue;
            }
            if ready < 0 {
                continue; // EINTR
            }
            let mut byte = 0u8;
            // SAFETY: reads one byte into a local.
            let read = unsafe { libc::read(read_end, (&mut byte as *mut u8).cast(), 1) };
            if read != 1 {
                continue;
            }
            if byte == b't' {
                snapshot();
                die_of_sigterm();
            }
            // SAFETY: closes our own read end once.
            unsafe { libc::close(read_end) };
            return;
        });
    match spawned {
        Ok(handle) => {
            *thread = Some(handle);
            handle_sigterm();
        }
        Err(error) => {
            eprintln!("numabench-mpi: no thread for the partial snapshots ({error})");
            PIPE.store(-1, Ordering::Release);
            // SAFETY: our own descriptors, closed once.
            unsafe {
                libc::close(read_end);
                libc::close(write_end);
            }
        }
    }
}

/// Stops the thread (at MPI_Finalize): SIGTERM gets its default action
/// back first, so that a SIGTERM from now on still ends the rank.
pub fn stop() {
    let Some(handle) = THREAD
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
        .take()
    else {
        return;
    };
    if HANDLING.swap(false, Ordering::AcqRel) {
        // SAFETY: restores the default action.
        unsafe { libc::signal(libc::SIGTERM, libc::SIG_DFL) };
    }
    let fd = PIPE.swap(-1, Ordering::AcqRel);
    // SAFETY: one byte to our own pipe, then its write end closed once.
    unsafe {
        libc::write(fd, b"s".as_ptr().cast(), 1);
        libc::close(fd);
    }
    let _ = handle.join();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_is_seconds_zero_for_never_and_a_bad_one_is_named() {
        assert_eq!(parse_interval("10"), Ok(Some(Duration::from_secs(10))));
        assert_eq!(parse_interval("0.5"), Ok(Some(Duration::from_millis(500))));
        assert_eq!(parse_interval("0"), Ok(None));
        let error = parse_interval("-1").unwrap_err();
        assert!(error.contains("'-1'"), "{error}");
        assert!(parse_interval("soon").is_err());
    }
}
