//! The C API (`include/numabench_pin.h`).

use crate::{affinity, cpulist};
use libc::c_int;
use std::io;
use std::sync::OnceLock;

/// Sets the calling thread's `errno`.
fn set_errno(value: c_int) {
    // SAFETY: __errno_location returns the calling thread's errno, valid for the
    // thread's lifetime.
    unsafe { *libc::__errno_location() = value };
}

/// `-1` with `errno` from `error` (EIO if it carries no OS error).
fn fail(error: &io::Error) -> c_int {
    set_errno(error.raw_os_error().unwrap_or(libc::EIO));
    -1
}

/// The CPUs the process may use, ascending: the calling thread's affinity at the first
/// successful call, kept for the life of the process (so pinning with this API does not
/// shrink it).
fn allowed() -> io::Result<&'static [usize]> {
    static ALLOWED: OnceLock<Vec<usize>> = OnceLock::new();
    if let Some(cpus) = ALLOWED.get() {
        return Ok(cpus);
    }
    let cpus = affinity::get_self()?;
    if cpus.is_empty() {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    Ok(ALLOWED.get_or_init(|| cpus))
}

/// Number of CPUs in the process's allowed set; -1 with errno on failure.
#[unsafe(no_mangle)]
pub extern "C" fn numabench_pin_cpu_count() -> c_int {
    match allowed() {
        Ok(cpus) => c_int::try_from(cpus.len()).unwrap_or(c_int::MAX),
        Err(error) => fail(&error),
    }
}

/// Pins the calling thread to the `n`-th (modulo the count) allowed CPU; returns that
/// CPU, or -1 with errno (EINVAL for a negative `n`, else sched_setaffinity's).
#[unsafe(no_mangle)]
pub extern "C" fn numabench_pin_thread(n: c_int) -> c_int {
    let Ok(n) = usize::try_from(n) else {
        set_errno(libc::EINVAL);
        return -1;
    };
    let cpus = match allowed() {
        Ok(cpus) => cpus,
        Err(error) => return fail(&error),
    };
    let cpu = cpus[n % cpus.len()];
    match affinity::set_self(&[cpu]) {
        Ok(()) => c_int::try_from(cpu).unwrap_or(c_int::MAX),
        Err(error) => fail(&error),
    }
}

/// The allowed CPUs of NUMA node `node`; EINVAL if the node does not exist or has none.
fn node_cpus(node: c_int) -> io::Result<Vec<usize>> {
    let invalid = || io::Error::from_raw_os_error(libc::EINVAL);
    let node = usize::try_from(node).map_err(|_| invalid())?;
    let path = format!("/sys/devices/system/node/node{node}/cpulist");
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Err(invalid()),
        Err(error) => return Err(error),
    };
    let listed = cpulist::parse(&text).map_err(|_| invalid())?;
    let allowed = allowed()?;
    let cpus: Vec<usize> = listed
        .into_iter()
        .filter(|cpu| allowed.binary_search(cpu).is_ok())
        .collect();
    if cpus.is_empty() {
        return Err(invalid());
    }
    Ok(cpus)
}

/// Pins the calling thread to all allowed CPUs of NUMA node `node`; 0, or -1 with errno
/// (EINVAL: no such node, or none of its CPUs allowed).
#[unsafe(no_mangle)]
pub extern "C" fn numabench_pin_self_to_node(node: c_int) -> c_int {
    match node_cpus(node).and_then(|cpus| affinity::set_self(&cpus)) {
        Ok(()) => 0,
        Err(error) => fail(&error),
    }
}
