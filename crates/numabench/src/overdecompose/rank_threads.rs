//! A rank's other threads: MPI_Init starts helper threads (OpenMPI's
//! progress and PMIx threads) before the rank knows its CPU, so pinning
//! the main thread alone would leave them free to run on another core.
//! The rank pins every thread of its process to its CPU and counts those
//! whose affinity is not exactly that CPU afterwards.

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
fn single_cpu_set(cpu: u32) -> Option<libc::cpu_set_t> {
    if cpu as usize >= libc::CPU_SETSIZE as usize {
        return None;
    }
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: cpu < CPU_SETSIZE (checked above), so CPU_SET writes within the set.
    unsafe { libc::CPU_SET(cpu as usize, &mut set) };
    Some(set)
}

/// Pins every thread of this process to `cpu`. A thread that ended
/// meanwhile is skipped; any other refusal is an error.
pub fn pin_all_threads(cpu: u32) -> io::Result<()> {
    let set = single_cpu_set(cpu).ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
    for id in thread_ids()? {
        // SAFETY: `set` is a valid cpu_set_t of the size given; `id` names a
        // thread of this process (or one that ended: ESRCH).
        let result =
            unsafe { libc::sched_setaffinity(id, std::mem::size_of::<libc::cpu_set_t>(), &set) };
        if result != 0 {
            let error = io::Error::last_os_error();
            if error.raw_os_error() != Some(libc::ESRCH) {
                return Err(error);
            }
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
        // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` is a writable cpu_set_t of the size given.
        let result = unsafe {
            libc::sched_getaffinity(id, std::mem::size_of::<libc::cpu_set_t>(), &mut set)
        };
        // SAFETY: both sets are valid cpu_set_t values.
        let same = unsafe { libc::CPU_EQUAL(&set, &wanted) };
        if result == 0 && !same {
            astray += 1;
        }
    }
    Ok(astray)
}
