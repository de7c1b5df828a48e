//! Pinning the calling thread to one CPU.

use std::io;
use thiserror::Error;

/// Why a thread could not be pinned.
#[derive(Debug, Error)]
pub enum PinError {
    /// sched_setaffinity refused (CPU offline or outside our cpuset).
    #[error("cannot pin to CPU {cpu}: {source}")]
    Refused { cpu: u32, source: io::Error },
    /// The thread was pinned but runs elsewhere (should never happen).
    #[error("pinned to CPU {expected} but running on CPU {actual}")]
    NotOnCpu { expected: u32, actual: u32 },
    /// The worker ran on another CPU by the time its work ended: its
    /// affinity was changed from outside (a cgroup cpuset, taskset), so
    /// part of the measurement did not run where it was asked to.
    #[error("a worker pinned to CPU {expected} was on CPU {actual} when its work ended (its affinity was changed from outside)")]
    LeftCpu { expected: u32, actual: u32 },
    /// The system would not start another thread (thread or memory limit).
    #[error("cannot start one of {threads} worker threads: {source}")]
    Spawn { threads: usize, source: io::Error },
}

/// Pins the calling thread to `cpu` and checks with sched_getcpu that it
/// now runs there.
pub fn pin_current_thread(cpu: u32) -> Result<(), PinError> {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: CPU_SET only writes within the set; cpu is bounds-checked by the macro's caller below.
    if (cpu as usize) >= libc::CPU_SETSIZE as usize {
        return Err(PinError::Refused {
            cpu,
            source: io::Error::from_raw_os_error(libc::EINVAL),
        });
    }
    // SAFETY: cpu < CPU_SETSIZE (checked above).
    unsafe { libc::CPU_SET(cpu as usize, &mut set) };
    // SAFETY: pid 0 is the calling thread; set is a valid cpu_set_t of the size given.
    let result =
        unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if result != 0 {
        return Err(PinError::Refused {
            cpu,
            source: io::Error::last_os_error(),
        });
    }
    let actual = current_cpu();
    if actual != cpu {
        return Err(PinError::NotOnCpu {
            expected: cpu,
            actual,
        });
    }
    Ok(())
}

/// The CPU the calling thread runs on now.
pub fn current_cpu() -> u32 {
    // SAFETY: sched_getcpu has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    u32::try_from(cpu).unwrap_or(u32::MAX)
}
