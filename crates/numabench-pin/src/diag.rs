//! The shim's messages, each one line written with a single `write(2)` (no locks, no
//! panics).
//!
//! Warnings go to the file named by `NUMABENCH_PIN_WARNINGS` when it is set (appended,
//! so every process of a run adds to the same file; `numabench run` reads it after each
//! run and puts the lines in the run's record), else to stderr: a program's stderr is
//! often hidden, and a shim that cannot pin must not go unnoticed. Notes (verbose
//! output) always go to stderr.

use std::ffi::CString;
use std::sync::OnceLock;

/// The warnings file, read once.
fn warnings_file() -> Option<&'static CString> {
    static FILE: OnceLock<Option<CString>> = OnceLock::new();
    FILE.get_or_init(|| {
        std::env::var_os("NUMABENCH_PIN_WARNINGS")
            .filter(|path| !path.is_empty())
            .and_then(|path| CString::new(std::os::unix::ffi::OsStringExt::into_vec(path)).ok())
    })
    .as_ref()
}

/// Writes all of `bytes` to `fd`, ignoring failures.
fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid, initialised buffer of `bytes.len()` bytes.
        let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if written <= 0 {
            if written < 0
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
                continue;
            }
            return;
        }
        bytes = &bytes[written as usize..];
    }
}

/// `numabench-pin: <message>\n` to the warnings file (stderr if there is none or it
/// cannot be opened).
pub(crate) fn warn(message: &str) {
    let line = format!("numabench-pin: {message}\n");
    if let Some(path) = warnings_file() {
        // SAFETY: `path` is NUL-terminated; the flags and mode are plain integers.
        let fd = unsafe {
            libc::open(
                path.as_ptr(),
                // O_NOFOLLOW: a link planted at the name is never written through.
                libc::O_WRONLY
                    | libc::O_APPEND
                    | libc::O_CREAT
                    | libc::O_CLOEXEC
                    | libc::O_NOFOLLOW,
                0o600,
            )
        };
        if fd >= 0 {
            // One write of one short line to an O_APPEND file: lines of concurrent
            // processes do not mix.
            write_all(fd, line.as_bytes());
            // SAFETY: `fd` was opened above and is closed once.
            unsafe { libc::close(fd) };
            return;
        }
    }
    write_all(2, line.as_bytes());
}

/// `numabench-pin: <message>\n` on stderr (what `NUMABENCH_PIN_VERBOSE` asks for).
pub(crate) fn note(message: &str) {
    write_all(2, format!("numabench-pin: {message}\n").as_bytes());
}
