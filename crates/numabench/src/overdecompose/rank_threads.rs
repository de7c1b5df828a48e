//! A rank's other threads: MPI_Init starts helper threads (OpenMPI's
//! progress and PMIx threads) before the rank knows its CPU, so pinning
//! the main thread alone would leave them free to run on another core.
//! The rank pins every thread of its process to its CPU and counts those
//! whose affinity is not exactly that CPU afterwards.

use nix::errno::Errno;
use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use std::io;

/// The ids of this process's threads now (/proc/self/task).
fn thread_ids() -> io::Result<Vec<libc::pid_t>> {
    let mut ids = Vec::new();
    for entry in std::fs::read_dir("/proc/self/task")? {
        if let Some(id) = entry?
            .file_name()
            .to_str()
            .and_then(|name| name.parse().ok())
        {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// The set holding `cpu` alone (`None` beyond CPU_SETSIZE).
fn single_cpu_set(cpu: u32) -> Option<CpuSet> {
    let mut set = CpuSet::new();
    set.set(cpu as usize).ok()?;
    Some(set)
}

/// Pins every thread of this process to `cpu`. A thread that ended
/// meanwhile is skipped; any other refusal is an error.
pub fn pin_all_threads(cpu: u32) -> io::Result<()> {
    let set = single_cpu_set(cpu).ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
    for id in thread_ids()? {
        // `id` names a thread of this process, or one that ended (ESRCH).
        match sched_setaffinity(Pid::from_raw(id), &set) {
            Ok(()) | Err(Errno::ESRCH) => {}
            Err(error) => return Err(error.into()),
        }
    }
    Ok(())
}

/// How many threads of this process may run anywhere but `cpu` alone.
pub fn threads_not_on(cpu: u32) -> io::Result<usize> {
    let Some(wanted) = single_cpu_set(cpu) else {
        return Ok(thread_ids()?.len());
    };
    let mut astray = 0;
    for id in thread_ids()? {
        if sched_getaffinity(Pid::from_raw(id)).is_ok_and(|set| set != wanted) {
            astray += 1;
        }
    }
    Ok(astray)
}
