//! Pinning the calling thread to one CPU.

use nix::errno::Errno;
use nix::sched::{sched_getcpu, sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use std::io;
use thiserror::Error;

/// Why a thread could not be pinned.
///
/// Always the system's fault: the kernel refused or moved a thread.
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

crate::error::all_faulty!(System: PinError);

/// Pins the calling thread to `cpu` and checks with sched_getcpu that it
/// now runs there.
pub fn pin_current_thread(cpu: u32) -> Result<(), PinError> {
    let refused = |errno: Errno| PinError::Refused {
        cpu,
        source: io::Error::from(errno),
    };
    // A CPU beyond the set's size is EINVAL, as the kernel says for one it lacks.
    let mut set = CpuSet::new();
    set.set(cpu as usize).map_err(refused)?;
    // Pid 0 is the calling thread.
    sched_setaffinity(Pid::from_raw(0), &set).map_err(refused)?;
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
    sched_getcpu().map_or(u32::MAX, |cpu| u32::try_from(cpu).unwrap_or(u32::MAX))
}
