//! The LD_PRELOAD `pthread_create` shim.
//!
//! Environment (read once, at the first `pthread_create` of the process):
//!
//! - `NUMABENCH_PIN_CPUS` — CPU list (`0,2,1,3`, `0-3`, ...) in the order threads get
//!   them. Unset or empty: the shim only forwards to libc.
//! - `NUMABENCH_PIN_SKIP` — entries reserved for threads not created by
//!   `pthread_create` (default 1: the main thread).
//! - `NUMABENCH_PIN_VERBOSE=1` — one line per pinned thread on stderr.
//! - `NUMABENCH_PIN_COUNTER` — a file shared by every process of the run (see
//!   [`crate::counter`]; `numabench run` creates one per run). With it, indices count
//!   across processes and each process's main thread takes one too.
//! - `NUMABENCH_PIN_WARNINGS` — where warnings go (see [`crate::diag`]).
//! - `NUMABENCH_PIN_RANKS` (`compact`, `scatter`, `k-per-core:K`) and, for
//!   `k-per-core`, `NUMABENCH_PIN_CORES` — rank-aware pinning (see [`crate::ranks`]): a
//!   process that its launcher names an MPI rank (local rank and size in its
//!   environment) pins its main thread and every thread it creates within its own block
//!   of the list, counting its own threads; processes that are not ranks (the launcher)
//!   are pinned by the rules below.
//!
//! A rank keeps to the cpuset it was given: when its affinity at load is narrower than
//! the list, its block is intersected with it, and if nothing is left the rank keeps
//! that cpuset unpinned, with a warning. Affinity the shim itself set (the CPU a forked
//! process was pinned to, recorded in the counter file; numabench's pin of the run's
//! first process) is not a cpuset given by the launcher. The given cpuset is passed on
//! to programs the rank execs (`NUMABENCH_PIN_RANK_GIVEN`), which would otherwise take
//! the rank's own pin for it.
//!
//! Rule without a counter file: the thread created by the `k`-th call (`k = 0, 1, ...`,
//! counted by one atomic counter in call order, across all creating threads) is pinned
//! to `cpus[(k + skip) % cpus.len()]`; other processes start counting afresh.
//!
//! Rule with a counter file: every thread of every process the command starts takes the
//! next index `i` of the shared counter and runs on `cpus[i % cpus.len()]` (skip does
//! not apply): a new thread when `pthread_create` is called, a forked child's thread in
//! the child right after `fork`, and a new program's main thread when the shim loads,
//! unless that process took its index at `fork` already. The first program's main
//! thread thus takes index 0. A process with an OpenMP runtime loaded takes its main
//! thread's index at its first `pthread_create` instead (see [`crate::deferred`]):
//! `numabench run` gives the process all of the list's CPUs at exec, and the runtime
//! sizes its team from that mask.
//!
//! An MPI rank is exec'd on its whole block (the shim's `execve`, [`crate::exec`]), and
//! with an OpenMP runtime loaded its main thread is pinned when the runtime starts its
//! first thread; threads whose start routine is not the runtime's (the MPI library's,
//! started in `MPI_Init`) run on the whole block and take no slot of it.

use crate::counter::Counter;
use crate::ranks::{self, Block, Rule};
use crate::{affinity, counter, cpulist, deferred, diag};
use libc::{c_int, c_void, pthread_attr_t, pthread_t};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// A thread start routine. `C-unwind`: `pthread_exit` and cancellation unwind (forced
/// unwinding) through the start routine and our trampoline.
pub type StartRoutine = unsafe extern "C-unwind" fn(*mut c_void) -> *mut c_void;

/// libc's `pthread_create`, as found with `dlsym(RTLD_NEXT, ..)`.
type CreateFn = unsafe extern "C" fn(
    *mut pthread_t,
    *const pthread_attr_t,
    Option<StartRoutine>,
    *mut c_void,
) -> c_int;

/// What the environment asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// CPUs in the order threads get them; never empty.
    pub cpus: Vec<usize>,
    /// Entries reserved for threads not created through `pthread_create`.
    pub skip: usize,
    /// Print a line per pinned thread.
    pub verbose: bool,
}

impl Plan {
    /// The plan from the values of `NUMABENCH_PIN_CPUS`, `NUMABENCH_PIN_SKIP` and
    /// `NUMABENCH_PIN_VERBOSE`; `Ok(None)` when there is nothing to pin. A malformed
    /// skip is an error as well as a malformed list.
    pub fn from_values(
        cpus: Option<&str>,
        skip: Option<&str>,
        verbose: Option<&str>,
    ) -> Result<Option<Plan>, String> {
        let Some(cpus) = cpus else { return Ok(None) };
        let cpus = cpulist::parse(cpus).map_err(|error| format!("NUMABENCH_PIN_CPUS: {error}"))?;
        if cpus.is_empty() {
            return Ok(None);
        }
        let skip = match skip.map(str::trim) {
            None | Some("") => 1,
            Some(text) => text.parse::<usize>().map_err(|_| {
                format!("NUMABENCH_PIN_SKIP: '{text}' is not a non-negative integer")
            })?,
        };
        let verbose = verbose.is_some_and(|value| !matches!(value.trim(), "" | "0"));
        Ok(Some(Plan {
            cpus,
            skip,
            verbose,
        }))
    }

    /// The CPU of shared-counter index `index` (skip does not apply).
    pub fn cpu_at(&self, index: usize) -> usize {
        self.cpus[index % self.cpus.len()]
    }

    /// The CPU of the thread created by the `index`-th `pthread_create` call.
    pub fn cpu_for(&self, index: usize) -> usize {
        let len = self.cpus.len();
        self.cpus[(index % len + self.skip % len) % len]
    }
}

/// Read once; `None` when the shim has nothing to do (or the environment was malformed,
/// which is reported once).
fn plan() -> Option<&'static Plan> {
    static PLAN: OnceLock<Option<Plan>> = OnceLock::new();
    PLAN.get_or_init(|| {
        let var = |name: &str| std::env::var(name).ok();
        match Plan::from_values(
            var("NUMABENCH_PIN_CPUS").as_deref(),
            var("NUMABENCH_PIN_SKIP").as_deref(),
            var("NUMABENCH_PIN_VERBOSE").as_deref(),
        ) {
            Ok(plan) => plan,
            Err(error) => {
                diag::warn(&format!("{error}; threads are not pinned"));
                None
            }
        }
    })
    .as_ref()
}

/// The shared counter of the run (`NUMABENCH_PIN_COUNTER`), mapped once; `None`
/// without one (or when it cannot be mapped, which is reported once).
fn shared_counter() -> Option<&'static Counter> {
    static COUNTER: OnceLock<Option<Counter>> = OnceLock::new();
    COUNTER
        .get_or_init(|| {
            let path = std::env::var("NUMABENCH_PIN_COUNTER").ok()?;
            if path.is_empty() {
                return None;
            }
            Counter::open(&path)
                .map_err(|error| {
                    diag::warn(&format!(
                        "NUMABENCH_PIN_COUNTER '{path}': {error}; each process counts its own threads"
                    ))
                })
                .ok()
        })
        .as_ref()
}

/// Pins the calling thread, the main thread of process `pid`, to the CPU of the next
/// shared index, and registers the process.
#[cfg_attr(test, allow(dead_code))] // Reached through AT_LOAD, which unit tests leave out.
fn pin_process(plan: &Plan, counter: &Counter, pid: u32) {
    let index = counter.take();
    let cpu = plan.cpu_at(index);
    let pinned = match affinity::set_self(&[cpu]) {
        Ok(()) => {
            OWN_PIN.store(cpu, Ordering::Relaxed);
            if plan.verbose {
                diag::note(&format!("process {pid} main thread {index} -> CPU {cpu}"));
            }
            true
        }
        Err(error) => {
            diag::warn(&format!("cannot pin process {pid} to CPU {cpu}: {error}"));
            false
        }
    };
    register(counter, pid, pinned.then_some(cpu));
}

/// Registers process `pid` in the counter file, warning when it is full.
fn register(counter: &Counter, pid: u32, cpu: Option<usize>) {
    if !counter.register(pid, cpu) {
        diag::warn(&format!(
            "more than {} processes in this run: an exec after fork takes a second CPU",
            counter::PROCESS_SLOTS
        ));
    }
}

/// This process as an MPI rank under rank-aware pinning.
#[derive(Debug)]
struct Rank {
    rank: usize,
    size: usize,
    /// Its CPUs; `None` when it keeps the cpuset it was given.
    block: Option<Block>,
}

/// Index of the next thread of this rank within its block (0 is the main thread).
static RANK_NEXT: AtomicUsize = AtomicUsize::new(1);

/// The variable that passes a rank's given cpuset to the programs it execs:
/// `RANK:SIZE:LIST`, LIST empty when it was given every CPU of the list.
const GIVEN_VARIABLE: &str = "NUMABENCH_PIN_RANK_GIVEN";

/// The cpuset this rank was given, `None` when it is not narrower than the list; and
/// whether a process of the same rank found it before this program was exec'd (and
/// warned about it if need be).
///
/// A mask equal to the rank's block is not a given cpuset either: it is the one the
/// shim's `execve` gave the rank (see [`exec_cpus`]).
fn given_cpuset(
    plan: &Plan,
    rank: usize,
    size: usize,
    block: &[usize],
) -> (Option<Vec<usize>>, bool) {
    let inherited = std::env::var(GIVEN_VARIABLE).ok().and_then(|text| {
        let mut parts = text.splitn(3, ':');
        let same = parts.next()? == rank.to_string() && parts.next()? == size.to_string();
        same.then(|| cpulist::parse(parts.next()?).ok())?
    });
    if let Some(cpus) = inherited {
        return ((!cpus.is_empty()).then_some(cpus), true);
    }
    let Ok(given) = affinity::get_self() else {
        return (None, false);
    };
    let pid = std::process::id();
    let own_pin = shared_counter().is_some_and(|counter| match counter.registered_cpu(pid) {
        Some(cpu) => given == [cpu],
        // The run's first process: numabench pinned it to the list's first CPU.
        None => !counter.is_registered(pid) && counter.registered() == 0 && given == plan.cpus[..1],
    });
    let mut block = block.to_vec();
    block.sort_unstable();
    block.dedup();
    let narrower = !plan.cpus.iter().all(|cpu| given.binary_search(cpu).is_ok());
    (
        (narrower && !own_pin && given != block).then_some(given),
        false,
    )
}

/// The rank this process is, when a rank rule is set and its launcher names its local
/// rank; read once (at load).
fn rank(plan: &Plan) -> Option<&'static Rank> {
    static RANK: OnceLock<Option<Rank>> = OnceLock::new();
    RANK.get_or_init(|| {
        let var = |name: &str| std::env::var(name).ok();
        let rule = Rule::from_values(
            var("NUMABENCH_PIN_RANKS").as_deref(),
            var("NUMABENCH_PIN_CORES").as_deref(),
        );
        let (rule, (rank, size)) = match (rule, ranks::local_rank(&var)) {
            (Ok(Some(rule)), Ok(Some(local))) => (rule, local),
            (Ok(None), _) | (_, Ok(None)) => return None,
            (Err(error), _) | (_, Err(error)) => {
                diag::warn(&format!("{error}; ranks are pinned as plain processes"));
                return None;
            }
        };
        let mut block = ranks::block(&rule, &plan.cpus, rank, size);
        let (given, inherited) = given_cpuset(plan, rank, size, &block.cpus);
        let list = |cpus: &[usize]| -> String {
            cpus.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
        };
        let value = format!("{rank}:{size}:{}", given.as_deref().map_or(String::new(), list));
        // SAFETY: this runs once, first from the shim's constructor (before `main`, while
        // the process has one thread), so nothing reads the environment concurrently.
        unsafe { std::env::set_var(GIVEN_VARIABLE, value) };
        if let Some(given) = &given {
            let start = block.cpu(0);
            let kept: Vec<usize> = block
                .cpus
                .iter()
                .copied()
                .filter(|cpu| given.contains(cpu))
                .collect();
            if kept.is_empty() {
                if !inherited {
                    diag::warn(&format!(
                    "rank {rank} of {size}: its CPUs ({}) are all outside the cpuset it was given ({}); it keeps that cpuset, unpinned",
                    list(&block.cpus),
                    list(given)
                ));
                }
                return Some(Rank { rank, size, block: None });
            }
            let start = kept.iter().position(|cpu| *cpu == start).unwrap_or(0);
            block = Block { cpus: kept, start };
        }
        Some(Rank {
            rank,
            size,
            block: Some(block),
        })
    })
    .as_ref()
}

/// The CPU the shim pinned this process's main thread (or this forked child) to;
/// `usize::MAX` when it pinned none. An `execve` from a process still on it hands the
/// new program a wider mask ([`exec_cpus`]).
static OWN_PIN: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Pins the calling thread, the main thread of a process of this rank (or a forked
/// child), to the CPU of its in-rank `index`.
fn pin_in_rank(rank: &Rank, block: &Block, index: usize, verbose: bool, who: &str) {
    let cpu = block.cpu(index);
    match affinity::set_self(&[cpu]) {
        Ok(()) => {
            OWN_PIN.store(cpu, Ordering::Relaxed);
            if verbose {
                diag::note(&format!(
                    "rank {} of {} {who} -> CPU {cpu}",
                    rank.rank, rank.size
                ));
            }
        }
        Err(error) => diag::warn(&format!(
            "cannot pin rank {} {who} to CPU {cpu}: {error}",
            rank.rank
        )),
    }
}

/// The CPUs a program this process execs should start on, when the shim should widen
/// its mask: only when the calling thread is still on the one CPU the shim pinned the
/// process to (a launcher that bound the process itself is left alone), and the new
/// program is an MPI rank under a rank rule (`env` reads the environment passed to
/// execve). The result is the rank's block: the caller's own block when the caller is
/// that rank already (`sh -c 'exec prog'` as the rank), else the block the new program
/// will compute. An OpenMP runtime in the new program then sizes its team, and chooses
/// how it waits, from the rank's CPUs, as it would from a launcher's binding.
pub(crate) fn exec_cpus(env: &dyn Fn(&str) -> Option<String>) -> Option<Vec<usize>> {
    let own = OWN_PIN.load(Ordering::Relaxed);
    if own == usize::MAX || affinity::get_self().ok()? != [own] {
        return None;
    }
    let (local, size) = ranks::local_rank(env).ok()??;
    if let Some(caller) = plan().and_then(rank) {
        if (caller.rank, caller.size) == (local, size) {
            return caller.block.as_ref().map(|block| block.cpus.clone());
        }
    }
    let plan = Plan::from_values(
        env("NUMABENCH_PIN_CPUS").as_deref(),
        env("NUMABENCH_PIN_SKIP").as_deref(),
        None,
    )
    .ok()??;
    let rule = Rule::from_values(
        env("NUMABENCH_PIN_RANKS").as_deref(),
        env("NUMABENCH_PIN_CORES").as_deref(),
    )
    .ok()??;
    Some(ranks::block(&rule, &plan.cpus, local, size).cpus)
}

/// The CPU the shim pinned this process to, if any (restored when an exec fails).
pub(crate) fn own_pin() -> Option<usize> {
    Some(OWN_PIN.load(Ordering::Relaxed)).filter(|cpu| *cpu != usize::MAX)
}

/// Runs when the shim is loaded into a program (before its `main`): with a plan and a
/// shared counter, the main thread takes its index (unless its process took one at
/// fork) and forked children will take theirs.
#[cfg_attr(test, allow(dead_code))] // Reached through AT_LOAD, which unit tests leave out.
extern "C" fn at_load() {
    let Some(plan) = plan() else { return };
    let pid = std::process::id();
    // Read once here, while the process has one thread (it sets a variable).
    let in_block = rank(plan).is_some_and(|rank| rank.block.is_some());
    // Looked up now: a forked child that execs should not need the loader's locks.
    let _ = crate::exec::real_execve();
    let registered = shared_counter().is_some_and(|counter| counter.is_registered(pid));
    // A rank starts on its whole block (the shim's execve gives it), a first process
    // on the whole list; a process pinned at fork is on one CPU already.
    let wide = affinity::get_self().is_ok_and(|cpus| cpus.len() > 1);
    if (in_block || !registered) && wide && deferred::openmp_runtime().is_some() {
        // Pinned at its first pthread_create, after the runtime read its mask.
        deferred::defer();
    } else {
        pin_main_thread(plan, pid);
    }
    // SAFETY: registers a plain function that lives as long as the process (the shim is
    // preloaded, never unloaded).
    let result = unsafe { libc::pthread_atfork(None, None, Some(in_forked_child)) };
    if result != 0 {
        diag::warn("pthread_atfork failed: forked children keep their parent's CPU");
    }
}

/// Pins the main thread of a new program (process `pid`): in its rank's block, or to the
/// next shared index unless its process took one at fork.
fn pin_main_thread(plan: &Plan, pid: u32) {
    if let Some(rank) = rank(plan) {
        if let Some(block) = &rank.block {
            pin_in_rank(rank, block, 0, plan.verbose, "main thread");
        }
        if let Some(counter) = shared_counter().filter(|counter| !counter.is_registered(pid)) {
            register(counter, pid, rank.block.as_ref().map(|block| block.cpu(0)));
        }
    } else {
        let Some(counter) = shared_counter() else {
            return;
        };
        if !counter.is_registered(pid) {
            pin_process(plan, counter, pid);
        }
    }
}

/// In the child of a `fork`: its only thread takes the next index.
#[cfg_attr(test, allow(dead_code))] // Reached through AT_LOAD, which unit tests leave out.
extern "C" fn in_forked_child() {
    let Some(plan) = plan() else { return };
    if let Some(rank) = rank(plan) {
        if let Some(block) = &rank.block {
            let index = RANK_NEXT.fetch_add(1, Ordering::Relaxed);
            pin_in_rank(rank, block, index, plan.verbose, "forked process");
        }
    } else if let Some(counter) = shared_counter() {
        pin_process(plan, counter, std::process::id());
    }
}

/// [`at_load`] as an ELF constructor. Not in unit tests: they run in the test harness.
#[cfg(not(test))]
#[used]
#[unsafe(link_section = ".init_array")]
static AT_LOAD: extern "C" fn() = at_load;

/// libc's `pthread_create`, looked up once.
fn real_create() -> Option<CreateFn> {
    static REAL: OnceLock<Option<CreateFn>> = OnceLock::new();
    *REAL.get_or_init(|| {
        // SAFETY: the name is a NUL-terminated C string; RTLD_NEXT looks in the objects
        // loaded after this one.
        let symbol = unsafe { libc::dlsym(libc::RTLD_NEXT, c"pthread_create".as_ptr()) };
        if symbol.is_null() {
            diag::warn("cannot find the real pthread_create (dlsym(RTLD_NEXT) failed)");
            return None;
        }
        // SAFETY: the symbol `pthread_create` of libc has exactly this signature (the
        // start routine pointer differs only in its unwinding ABI, not its calling
        // convention).
        Some(unsafe { std::mem::transmute::<*mut c_void, CreateFn>(symbol) })
    })
}

/// Creation order of the threads this shim pins.
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// What the trampoline needs; boxed by `pthread_create`, freed by the new thread.
struct Start {
    routine: StartRoutine,
    arg: *mut c_void,
    /// The thread's index; `None` for a helper thread of an OpenMP rank, which takes
    /// no slot of the block.
    index: Option<usize>,
    /// One CPU, or a helper thread's whole block.
    cpus: Vec<usize>,
    verbose: bool,
}

/// First code of every thread created while a plan is active: pin, then run the user's
/// start routine. Nothing with a destructor is live across the user's call, so forced
/// unwinding (`pthread_exit`, cancellation) passes through cleanly.
unsafe extern "C-unwind" fn trampoline(data: *mut c_void) -> *mut c_void {
    // SAFETY: `data` is the `Box<Start>` leaked by `pthread_create` for this thread
    // alone; it is reclaimed exactly once, here.
    let start = unsafe { Box::from_raw(data.cast::<Start>()) };
    let Start {
        routine,
        arg,
        index,
        cpus,
        verbose,
    } = *start;
    match (affinity::set_self(&cpus), index) {
        (Ok(()), Some(index)) if verbose => {
            diag::note(&format!("thread {index} -> CPU {}", cpus[0]))
        }
        (Ok(()), None) if verbose => diag::note(&format!(
            "helper thread (not the OpenMP runtime's) -> CPUs {cpus:?}"
        )),
        (Ok(()), _) => {}
        (Err(error), Some(_)) => {
            diag::warn(&format!("cannot pin thread to CPU {}: {error}", cpus[0]))
        }
        (Err(error), None) => diag::warn(&format!(
            "cannot move a helper thread to its rank's CPUs {cpus:?}: {error}"
        )),
    }
    // The box's Vec is freed here, before the user's code runs.
    drop(cpus);
    // SAFETY: the routine and argument the caller handed to pthread_create, called on
    // the new thread as pthread_create would.
    unsafe { routine(arg) }
}

/// `pthread_create`, interposed: with a plan, the new thread starts in [`trampoline`].
///
/// # Safety
///
/// Same contract as libc's `pthread_create`.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_create(
    thread: *mut pthread_t,
    attr: *const pthread_attr_t,
    start_routine: Option<StartRoutine>,
    arg: *mut c_void,
) -> c_int {
    let Some(real) = real_create() else {
        return libc::ENOSYS;
    };
    let (Some(plan), Some(routine)) = (plan(), start_routine) else {
        // SAFETY: forwarding the caller's arguments unchanged.
        return unsafe { real(thread, attr, start_routine, arg) };
    };
    let rank = rank(plan);
    // In a rank with an OpenMP runtime, the MPI library's own threads (started in
    // MPI_Init, before the team) neither take a slot of the block nor end the main
    // thread's deferred pin: the team's threads take the block's CPUs in order.
    let helper = rank.is_some_and(|rank| rank.block.is_some())
        && deferred::started_by_runtime(routine as usize) == Some(false);
    if !helper && deferred::claim_on_main_thread() {
        pin_main_thread(plan, std::process::id());
    }
    let (index, cpus) = match (rank, shared_counter()) {
        (Some(rank), _) => match &rank.block {
            Some(block) if helper => (None, block.cpus.clone()),
            Some(block) => {
                let index = RANK_NEXT.fetch_add(1, Ordering::Relaxed);
                (Some(index), vec![block.cpu(index)])
            }
            // The rank keeps its given cpuset: nothing to pin.
            // SAFETY: forwarding the caller's arguments unchanged.
            None => return unsafe { real(thread, attr, start_routine, arg) },
        },
        (None, Some(counter)) => {
            let index = counter.take();
            (Some(index), vec![plan.cpu_at(index)])
        }
        (None, None) => {
            let index = NEXT.fetch_add(1, Ordering::Relaxed);
            (Some(index), vec![plan.cpu_for(index)])
        }
    };
    let start = Box::into_raw(Box::new(Start {
        routine,
        arg,
        index,
        cpus,
        verbose: plan.verbose,
    }));
    // SAFETY: the caller's thread and attr pointers, our trampoline and its boxed data;
    // the trampoline takes ownership of the box once the thread runs.
    let result = unsafe { real(thread, attr, Some(trampoline), start.cast()) };
    if result != 0 {
        // SAFETY: the thread was not created, so the box was never handed over.
        drop(unsafe { Box::from_raw(start) });
    }
    result
}

#[cfg(test)]
mod tests {
    use super::Plan;

    #[test]
    fn no_list_no_plan() {
        assert_eq!(Plan::from_values(None, Some("3"), Some("1")), Ok(None));
        assert_eq!(Plan::from_values(Some(" "), None, None), Ok(None));
    }

    #[test]
    fn default_skip_reserves_the_first_entry() {
        let plan = Plan::from_values(Some("0,2,1,3"), None, None)
            .unwrap()
            .unwrap();
        let cpus: Vec<usize> = (0..6).map(|index| plan.cpu_for(index)).collect();
        assert_eq!(cpus, vec![2, 1, 3, 0, 2, 1]);
        assert!(!plan.verbose);
    }

    #[test]
    fn skip_and_verbose() {
        let plan = Plan::from_values(Some("0-2"), Some("0"), Some("1"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (0..4).map(|i| plan.cpu_for(i)).collect::<Vec<_>>(),
            [0, 1, 2, 0]
        );
        assert!(plan.verbose);
        let plan = Plan::from_values(Some("4,5"), Some("7"), Some("0"))
            .unwrap()
            .unwrap();
        assert_eq!(plan.cpu_for(0), 5);
        assert_eq!(plan.cpu_for(usize::MAX), 4);
        assert!(!plan.verbose);
    }

    #[test]
    fn malformed_is_an_error() {
        assert!(Plan::from_values(Some("0,x"), None, None).is_err());
        assert!(Plan::from_values(Some("0,1"), Some("-1"), None).is_err());
    }
}
