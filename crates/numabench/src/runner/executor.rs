//! Starting a program under a policy and measuring it. The [`Executor`]
//! trait has the real [`ProcessExecutor`] and, in tests, a fake, so the
//! study loop (interleaving, failures) is tested without processes.

use super::counted::{Counting, ProgramCounts};
use super::leftovers::{LeftoverReport, Leftovers};
use super::observe::{observe, Observation};
use super::pin_files::PinFiles;
use super::policy::RunPolicy;
use super::rank_blocks::RankBlocks;
use super::terminal::{ends_like_the_keyboard, Foreground};
use super::thread_setup::ThreadSetup;
use super::wait::{wait_for_child, SampleTicks, Waited};
use crate::counters::TLP_INTERVAL;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
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
    /// The signal that stopped the program (SIGSTOP, SIGTSTP, SIGTTOU,
    /// SIGTTIN): a stopped program can never end, so its process group was
    /// killed (`signal` is then SIGKILL).
    pub stop_signal: Option<i32>,
    /// What the run left running after its program ended (`None` from
    /// executors that start no process).
    pub leftovers: Option<LeftoverReport>,
}

impl RunOutcome {
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0)
    }
}

/// The program could not be run at all.
///
/// Always the user's fault: the program named, and where it is run from
/// (the pinning shim's files are written beside the run's, where the user
/// sent it).
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

crate::error::all_faulty!(Usage: RunError);

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
    /// End what the run leaves running after its program ended
    /// (`--kill-leftovers`; see [`Leftovers::check`]).
    pub kill_leftovers: bool,
}

/// Runs programs.
pub trait Executor {
    fn execute(
        &mut self,
        invocation: &Invocation,
        node_of_cpu: &(dyn Fn(u32) -> Option<u32> + Sync),
    ) -> Result<RunOutcome, RunError>;

    /// Records the last [`Executor::execute`] made beside its outcome (the
    /// MPI monitor's), which the rounds emit right after the run's own
    /// record, so that a study stopped later keeps them; taken once.
    fn take_records(&mut self) -> Vec<crate::output::Record> {
        Vec::new()
    }
}

/// The real thing: posix_spawn from a thread set up with the policy, wait4
/// (sampling the program's threads between waits), then a check of what
/// the run left running. With `--show-output` the program gets the
/// terminal for its run ([`Foreground`]).
#[derive(Debug, Default)]
pub struct ProcessExecutor {
    /// What earlier runs left, so each leftover counts once.
    leftovers: Leftovers,
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

/// The command of one run, whatever its policy: the program, its arguments
/// and the policy's environment, with no pre-exec step, so std starts it with
/// posix_spawn (a vfork-style clone) as hyperfine does. The policy's affinity
/// and memory policy reach the program by inheritance from the starting
/// thread ([`ThreadSetup::around`]), the same path for every policy.
pub(crate) fn start_command(
    invocation: &Invocation,
    environment: Vec<(String, String)>,
) -> Command {
    let mut command = Command::new(&invocation.command[0]);
    command.args(&invocation.command[1..]);
    command.envs(environment);
    if !invocation.show_output {
        command.stdout(Stdio::null()).stderr(Stdio::null());
    }
    command.stdin(Stdio::null());
    // Its own process group, so that SIGINT/SIGTERM to numabench reach every process of the run
    // (posix_spawn sets it: no fork of numabench is needed for it).
    command.process_group(0);
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
        let mut command = start_command(invocation, environment);
        let setup = ThreadSetup::for_invocation(invocation);
        // Opened by the thread that starts the program, so the child inherits the counters.
        let counting = Counting::before_start();
        // The program's threads are sampled by this thread while it waits,
        // woken by its timer (wait.rs), armed here before the clock; where no
        // timer can be made, by a sampler thread started before the clock and
        // told the program's pid after the spawn.
        let ticks = SampleTicks::start(TLP_INTERVAL);
        let sampled_pid = ticks.is_none().then(|| Arc::new(AtomicU32::new(0)));
        let sampler = sampled_pid
            .as_ref()
            .and_then(|pid| Counting::sampler(Arc::clone(pid)));
        // The clock starts just before the spawn and stops when wait4 returns, as hyperfine's:
        // everything prepared above (files, environment, counters, numastat) is outside, and
        // so is the thread's setup, applied before and restored after.
        let mut started = Instant::now();
        let spawned = setup
            .around(|| {
                started = Instant::now();
                command.spawn()
            })
            .and_then(|child| child);
        let child = match spawned {
            Ok(child) => child,
            Err(source) => {
                if let Some(sampler) = sampler {
                    sampler.stop();
                }
                return Err(RunError::Spawn {
                    command: program.clone(),
                    source,
                });
            }
        };
        let pid = child.id();
        let group = crate::interrupt::ChildGroup::new(pid);
        let program_group = Pid::from_raw(pid as i32);
        let foreground = invocation
            .show_output
            .then(|| Foreground::give(program_group))
            .flatten();
        let mut resumed = false;
        let mut stop_signal = None;
        let mut on_stop = |signal: i32| {
            let touched_terminal =
                signal == Signal::SIGTTOU as i32 || signal == Signal::SIGTTIN as i32;
            // Stopped for touching the terminal in the instant between its start and the
            // handover: it holds the terminal now, so it may go on (once).
            if touched_terminal
                && !resumed
                && foreground
                    .as_ref()
                    .is_some_and(Foreground::program_holds_it)
            {
                resumed = true;
                let _ = killpg(program_group, Signal::SIGCONT);
            } else {
                // A stopped program never ends: end its group (SIGKILL ends stopped processes).
                stop_signal = Some(signal);
                let _ = killpg(program_group, Signal::SIGKILL);
            }
        };
        let done = AtomicBool::new(false);
        if let (Some(sampled_pid), Some(sampler)) = (&sampled_pid, &sampler) {
            sampled_pid.store(pid, Ordering::Release);
            sampler.wake();
        }
        let (waited, observation) = std::thread::scope(|scope| {
            let done = &done;
            let observer = invocation.observe.map(|interval| {
                scope.spawn(move || observe(pid, interval, started, done, node_of_cpu))
            });
            let waited = wait_for_child(pid, started, ticks.as_ref(), &mut on_stop);
            done.store(true, Ordering::Release);
            let observation = observer.map(|handle| {
                handle.thread().unpark();
                handle.join().unwrap_or_default()
            });
            (waited, observation)
        });
        // Disarmed once the clock has stopped.
        drop(ticks);
        let Waited {
            result,
            status,
            usage,
            wall_seconds,
            sampled,
        } = waited;
        let wait_error = (result < 0).then(std::io::Error::last_os_error);
        let held_terminal = foreground.is_some();
        // Numabench's terminal again, before anything is written to it.
        drop(foreground);
        let exit = std::process::ExitStatus::from_raw(status);
        if held_terminal && wait_error.is_none() && ends_like_the_keyboard(exit.signal()) {
            crate::interrupt::stop_as_if_received(exit.signal().unwrap_or_default());
        }
        let interrupted = crate::interrupt::interrupted();
        // Outside the timed region; after an interruption nothing of the run may outlive it.
        let leftovers = self
            .leftovers
            .check(pid as i32, invocation.kill_leftovers || interrupted);
        drop(group);
        let sampled = sampled.or_else(|| sampler.map(|sampler| sampler.stop()));
        let counts = counting.after_exit(sampled);
        if let Some(source) = wait_error {
            return Err(RunError::Wait {
                command: program.clone(),
                source,
            });
        }
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
            stop_signal,
            leftovers: Some(leftovers),
        })
    }
}
