//! A policy's CPU affinity and memory policy, applied to the thread that
//! starts the program just around the start and restored right after. A
//! child inherits both from the thread that creates it, so the program gets
//! them from its first instruction without any work between fork and exec:
//! std's `Command` then starts it with posix_spawn (clone with
//! CLONE_VM|CLONE_VFORK, as hyperfine's runs start) instead of copying this
//! process with fork and running a pre-exec step in the copy, and the timed
//! region holds only the spawn itself.

use super::executor::Invocation;
use crate::memory::syscalls::{set_mempolicy, thread_mempolicy};
use crate::memory::MemoryPolicy;
use std::io;

/// What a policy sets on the starting thread (nothing, for as-is).
#[derive(Debug, Clone)]
pub(crate) struct ThreadSetup {
    affinity: Option<libc::cpu_set_t>,
    memory: Option<MemoryPolicy>,
}

/// A CPU set of `cpus` (those below CPU_SETSIZE).
pub(crate) fn cpu_set(cpus: &[u32]) -> libc::cpu_set_t {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if (cpu as usize) < libc::CPU_SETSIZE as usize {
            // SAFETY: cpu < CPU_SETSIZE.
            unsafe { libc::CPU_SET(cpu as usize, &mut set) };
        }
    }
    set
}

fn get_affinity() -> io::Result<libc::cpu_set_t> {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a cpu_set_t of the size passed; 0 is the calling thread.
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(set)
}

fn set_affinity(set: &libc::cpu_set_t) -> io::Result<()> {
    // SAFETY: `set` is a cpu_set_t of the size passed; 0 is the calling thread.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl ThreadSetup {
    pub(crate) fn for_invocation(invocation: &Invocation) -> ThreadSetup {
        let affinity = match (&invocation.policy.pin_order, &invocation.policy.affinity) {
            // All of the policy's CPUs: OpenMP runtimes size their team and choose how to
            // wait from this mask. The shim then pins each thread, the main one included
            // (see crates/numabench-pin/src/deferred.rs); without it OpenMP binds within the set.
            (Some(order), _) => Some(cpu_set(order)),
            (None, Some(cpus)) => Some(cpu_set(cpus)),
            (None, None) => None,
        };
        ThreadSetup {
            affinity,
            memory: invocation.policy.memory.clone(),
        }
    }

    /// Runs `start` on the calling thread with this setup applied, then puts
    /// the thread's own affinity and memory policy back, whatever `start`
    /// returned. An error applying the setup is returned before `start` runs.
    pub(crate) fn around<T>(&self, start: impl FnOnce() -> T) -> io::Result<T> {
        let saved_affinity = match &self.affinity {
            Some(set) => {
                let saved = get_affinity()?;
                set_affinity(set)?;
                Some(saved)
            }
            None => None,
        };
        let saved_memory = match &self.memory {
            Some(policy) => {
                let saved = thread_mempolicy();
                let applied = saved.and_then(|saved| policy.set_for_this_thread().map(|()| saved));
                match applied {
                    Ok(saved) => Some(saved),
                    Err(error) => {
                        if let Some(set) = &saved_affinity {
                            set_affinity(set)?;
                        }
                        return Err(error);
                    }
                }
            }
            None => None,
        };
        let started = start();
        if let Some((mode, nodes)) = saved_memory {
            set_mempolicy(mode, &nodes)?;
        }
        if let Some(set) = &saved_affinity {
            set_affinity(set)?;
        }
        Ok(started)
    }
}
