//! Starting a program under a policy and measuring it. The [`Executor`]
//! trait has the real [`ProcessExecutor`] and, in tests, a fake, so the
//! study loop (interleaving, failures) is tested without processes.

use super::counted::{Counting, ProgramCounts};
use super::observe::{observe, Observation};
use super::pin_files::PinFiles;
use super::policy::RunPolicy;
use super::rank_blocks::RankBlocks;
use crate::memory::MemoryPolicy;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;

/// What one run of the program measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunOutcome {
    pub wall_seconds: f64,
    pub user_seconds: f64,
    pub system_seconds: f64,
    /// Peak resident set of the largest process of the tree, KiB.
    pub max_rss_kib: i64,
    pub voluntary_switches: i64,
    pub involuntary_switches: i64,
    /// Exit code, or None when killed by a signal.
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub observation: Option<Observation>,
    /// What the pinning shim warned about during the run (one line each, in the
    /// order written); `None` when the run did not use the shim.
    pub pin_warnings: Option<Vec<String>>,
    /// Per-thread usage, TLP, numastat and perf counts (`None` from
    /// executors that start no process).
    pub counts: Option<ProgramCounts>,
    /// SIGINT or SIGTERM reached numabench while the program ran: the
    /// signal was forwarded to the program's process group and the run
    /// did not end on its own.
    pub interrupted: bool,
}

impl RunOutcome {
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0)
    }
}

/// The program could not be run at all.
#[derive(Debug, Error)]
pub enum RunError {
    #[error("cannot run '{command}': {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("cannot create the pinning shim's files for '{command}': {source}")]
    PinFiles {
        command: String,
        source: std::io::Error,
    },
    #[error("waiting for '{command}' failed: {source}")]
    Wait {
        command: String,
        source: std::io::Error,
    },
}

/// How to start one run.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub command: Vec<String>,
    pub policy: RunPolicy,
    pub show_output: bool,
    /// libnumabench_pin.so, preloaded when the policy pins threads.
    pub pin_library: Option<PathBuf>,
    /// Observation interval, if observing.
    pub observe: Option<Duration>,
}

/// Runs programs.
pub trait Executor {
    fn execute(
        &mut self,
        invocation: &Invocation,
        node_of_cpu: &(dyn Fn(u32) -> Option<u32> + Sync),
    ) -> Result<RunOutcome, RunError>;
}

/// The real thing: fork, apply the policy, exec, wait4.
#[derive(Debug, Default)]
pub struct ProcessExecutor;

fn cpu_set(cpus: &[u32]) -> libc::cpu_set_t {
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

/// The environment a policy adds. With the pinning shim, the shim pins
/// every new thread (OpenMP's workers included) to the next CPU of the
/// order and the main thread when the program loads (an OpenMP program's at
/// its first new thread); before exec the process gets all of the order. Without it, OpenMP
/// programs are pinned by OMP_PLACES/OMP_PROC_BIND over the whole order
/// (setting both would conflict: libgomp binds before the shim re-pins).
pub fn policy_environment(
    policy: &RunPolicy,
    pin_library: Option<&PathBuf>,
) -> Vec<(String, String)> {
    let mut environment = Vec::new();
    let Some(order) = &policy.pin_order else {
        return environment;
    };
    match pin_library {
        Some(library) => {
            let list: Vec<String> = order.iter().map(u32::to_string).collect();
            environment.push(("NUMABENCH_PIN_CPUS".to_string(), list.join(",")));
            // MPI ranks (a launcher names each one's local rank) get blocks of the order.
            environment.extend(policy.rank_blocks.iter().flat_map(RankBlocks::environment));
            let preload = match std::env::var("LD_PRELOAD") {
                Ok(existing) if !existing.is_empty() => format!("{}:{existing}", library.display()),
                _ => library.display().to_string(),
            };
            environment.push(("LD_PRELOAD".to_string(), preload));
        }
        None => {
            let places: Vec<String> = order.iter().map(|cpu| format!("{{{cpu}}}")).collect();
            environment.push(("OMP_PLACES".to_string(), places.join(",")));
            environment.push(("OMP_PROC_BIND".to_string(), "close".to_string()));
        }
    }
    environment
}

/// What the child does between fork and exec: the policy's CPU affinity and
/// memory policy, prepared before fork (nothing, for as-is).
#[derive(Debug)]
pub(crate) struct ChildSetup {
    affinity: Option<libc::cpu_set_t>,
    memory: Option<MemoryPolicy>,
}

impl ChildSetup {
    pub(crate) fn for_invocation(invocation: &Invocation) -> ChildSetup {
        let affinity = match (&invocation.policy.pin_order, &invocation.policy.affinity) {
            // All of the policy's CPUs: OpenMP runtimes size their team and choose how to
            // wait from this mask. The shim then pins each thread, the main one included
            // (see crates/numabench-pin/src/deferred.rs); without it OpenMP binds within the set.
            (Some(order), _) => Some(cpu_set(order)),
            (None, Some(cpus)) => Some(cpu_set(cpus)),
            (None, None) => None,
        };
        ChildSetup {
            affinity,
            memory: invocation.policy.memory.clone(),
        }
    }

    /// Applies the setup to the calling thread. Async-signal-safe: system calls
    /// on data prepared before fork, no allocation.
    fn apply(&self) -> std::io::Result<()> {
        if let Some(set) = &self.affinity {
            // SAFETY: `set` is a cpu_set_t of the size passed.
            if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) }
                != 0
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        if let Some(policy) = &self.memory {
            policy.set_for_this_thread()?;
        }
        Ok(())
    }
}

/// The one way every run starts, whatever its policy: fork, `setup` in the
/// child (nothing for as-is), exec. Always installing the pre-exec step keeps
/// std from starting some policies with posix_spawn and others with fork, so
/// the comparison is between policies, not start paths. The command holds
/// `setup` until it is dropped.
pub(crate) fn start_command(
    invocation: &Invocation,
    setup: Arc<ChildSetup>,
    environment: Vec<(String, String)>,
) -> Command {
    let mut command = Command::new(&invocation.command[0]);
    command.args(&invocation.command[1..]);
    command.envs(environment);
    if !invocation.show_output {
        command.stdout(Stdio::null()).stderr(Stdio::null());
    }
    command.stdin(Stdio::null());
    // Its own process group, so that SIGINT/SIGTERM to numabench reach every process of the run.
    command.process_group(0);
    // SAFETY: the closure runs between fork and exec and only makes async-signal-safe
    // system calls on data prepared before fork (ChildSetup::apply).
    unsafe {
        command.pre_exec(move || setup.apply());
    }
    command
}

impl Executor for ProcessExecutor {
    fn execute(
        &mut self,
        invocation: &Invocation,
        node_of_cpu: &(dyn Fn(u32) -> Option<u32> + Sync),
    ) -> Result<RunOutcome, RunError> {
        let program = &invocation.command[0];
        let mut environment =
            policy_environment(&invocation.policy, invocation.pin_library.as_ref());
        // With the shim: a counter shared by every process of this run, and a file for its warnings.
        let pin_files = match (&invocation.policy.pin_order, &invocation.pin_library) {
            (Some(_), Some(_)) => {
                let files = PinFiles::create().map_err(|source| RunError::PinFiles {
                    command: program.clone(),
                    source,
                })?;
                environment.extend(files.environment());
                Some(files)
            }
            _ => None,
        };
        let mut command = start_command(
            invocation,
            Arc::new(ChildSetup::for_invocation(invocation)),
            environment,
        );
        // Opened by the thread that forks, so the child inherits the counters.
        let counting = Counting::before_start();
        let started = Instant::now();
        let child = command.spawn().map_err(|source| RunError::Spawn {
            command: program.clone(),
            source,
        })?;
        let pid = child.id();
        let group = crate::interrupt::ChildGroup::new(pid);
        let done = AtomicBool::new(false);
        let sampler = Counting::sampler(pid);
        let (waited, observation) = std::thread::scope(|scope| {
            let done = &done;
            let observer = invocation.observe.map(|interval| {
                scope.spawn(move || observe(pid, interval, started, done, node_of_cpu))
            });
            let mut status = 0;
            // SAFETY: rusage is plain data filled by wait4.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            let result = loop {
                // SAFETY: waits for our own child; pointers are valid for the call.
                let result = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
                if result >= 0
                    || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
                {
                    break result;
                }
            };
            let wall = started.elapsed().as_secs_f64();
            done.store(true, Ordering::Release);
            let observation = observer.map(|handle| handle.join().unwrap_or_default());
            ((result, status, usage, wall), observation)
        });
        let (result, status, usage, wall_seconds) = waited;
        let interrupted = crate::interrupt::interrupted();
        drop(group);
        let counts = counting.after_exit(sampler.map(|sampler| sampler.stop()));
        if result < 0 {
            return Err(RunError::Wait {
                command: program.clone(),
                source: std::io::Error::last_os_error(),
            });
        }
        let exit = std::process::ExitStatus::from_raw(status);
        let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 * 1e-6;
        Ok(RunOutcome {
            wall_seconds,
            user_seconds: seconds(usage.ru_utime),
            system_seconds: seconds(usage.ru_stime),
            max_rss_kib: usage.ru_maxrss,
            voluntary_switches: usage.ru_nvcsw,
            involuntary_switches: usage.ru_nivcsw,
            exit_code: exit.code(),
            signal: exit.signal(),
            observation,
            pin_warnings: pin_files.map(|files| files.warnings()),
            counts: Some(counts),
            interrupted,
        })
    }
}
