//! One-line messages on stderr, written with a single `write(2)` (no locks, no panics).

/// Writes `numabench-pin: <message>\n` to stderr, ignoring failures.
pub(crate) fn warn(message: &str) {
    let line = format!("numabench-pin: {message}\n");
    let mut bytes = line.as_bytes();
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid, initialised buffer of `bytes.len()` bytes.
        let written = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
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
