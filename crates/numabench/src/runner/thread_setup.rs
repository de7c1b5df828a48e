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
use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use std::io;

/// What a policy sets on the starting thread (nothing, for as-is).
#[derive(Debug, Clone)]
pub(crate) struct ThreadSetup {
    affinity: Option<CpuSet>,
    memory: Option<MemoryPolicy>,
}

/// A CPU set of `cpus` (those below CPU_SETSIZE).
pub(crate) fn cpu_set(cpus: &[u32]) -> CpuSet {
    let mut set = CpuSet::new();
    for &cpu in cpus {
        // A CPU beyond the set's size is left out.
        let _ = set.set(cpu as usize);
    }
    set
}

/// The calling thread's affinity (pid 0).
fn get_affinity() -> io::Result<CpuSet> {
    Ok(sched_getaffinity(Pid::from_raw(0))?)
}

/// Sets the calling thread's affinity (pid 0).
fn set_affinity(set: &CpuSet) -> io::Result<()> {
    Ok(sched_setaffinity(Pid::from_raw(0), set)?)
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
                let applied = saved.and_then(|saved| {
                    policy.write_kernel_weights()?;
                    policy.set_for_this_thread().map(|()| saved)
                });
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
