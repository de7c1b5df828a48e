//! What `numabench run` counts for every run of the program, beside its
//! times: per-thread user/system time and context switches and TLP,
//! sampled from /proc over the whole process tree (a thread's figures are
//! those of the last sample before it ended: up to one sampling interval of
//! its work may be missing), the kernel's numastat counters (system-wide)
//! before and after, and perf events for the process tree (counters the
//! starting thread opens with `inherit`, enabled when the child calls exec).
//! See [`crate::counters`].

use super::observe::tree_tasks;
use crate::counters::vmstat::{read_vmstat, vmstat_delta, Vmstat};
use crate::counters::{
    numastat_delta, read_numastat, tick_seconds, NodeNumastat, PerfGroup, PerfReport, PerfSnapshot,
    Sampled, ThreadUsage, Tlp, TlpSampler, TLP_INTERVAL,
};
use crate::counters::{perf_params, tlp_params, usage_params, NUMASTAT_SCOPE};
use numabench_schema::params::{to_params, CountsParams, WorkerUsageParams};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// One run's counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProgramCounts {
    /// Every thread of the process tree the sampler saw, in thread-id order,
    /// as last seen.
    pub threads_usage: Vec<ThreadUsage>,
    /// How long the sampler saw each thread alive (first to last sample
    /// that read it), seconds, by thread id.
    pub seen_seconds: BTreeMap<u32, f64>,
    /// From the first sample to the last, seconds.
    pub sampled_seconds: f64,
    pub tlp: Option<Tlp>,
    pub numastat_delta: BTreeMap<u32, NodeNumastat>,
    /// The page-movement counters that grew (`None` on one node).
    pub vmstat_delta: Option<Vmstat>,
    /// The whole process tree's perf counts.
    pub perf: PerfReport,
}

/// Counting set up before the program starts.
#[derive(Debug)]
pub struct Counting {
    perf_before: PerfSnapshot,
    numastat_before: BTreeMap<u32, NodeNumastat>,
    vmstat_before: Option<Vmstat>,
}

/// The perf counters the programs a thread starts inherit, opened at its
/// first run and kept open: each run reads what it added.
///
/// Opening the first software event and closing the last each flip a kernel
/// static key, and every flip patches kernel text with an interrupt to
/// every CPU: with a fresh set per run, that cost `numabench run` about
/// 0.5 ms of system time per run on 2 CPUs (more with more CPUs) and
/// disturbed every CPU of the machine. `keep_warm` holds one disabled,
/// not-inherited event of each kind on the thread for its life; besides
/// keeping the keys set, a not-inherited event in the thread's context
/// stops the kernel from treating a child's inherited context as a clone of
/// the thread's and swapping the two at a context switch (after a swap the
/// child owns the original counters, and they die with it: reused
/// counters then read 0 for some runs). A process a run leaves behind adds
/// its counts to the run during which it ends.
///
/// `last` is the snapshot the previous run ended with. Between two runs
/// nothing this thread starts is alive, so the counters stand still (the
/// thread's own counting is never enabled) and that snapshot is also the
/// next run's start: reading it again cost each run one more read of
/// every counter (#21 item 25). A process a run left behind that ends
/// between two runs adds its counts to the next run.
struct InheritedPerf {
    _keep_warm: PerfGroup,
    inherited: PerfGroup,
    last: RefCell<Option<PerfSnapshot>>,
}

impl InheritedPerf {
    /// The snapshot a run starts from: the previous run's last one, or
    /// the counters now (at a thread's first run, or after a run that
    /// could not start).
    fn start(&self) -> PerfSnapshot {
        self.last
            .borrow_mut()
            .take()
            .unwrap_or_else(|| self.inherited.snapshot())
    }

    /// What the counters counted since `before`, keeping the snapshot it
    /// ends with as the next run's start.
    fn finish(&self, before: &PerfSnapshot) -> PerfReport {
        let now = self.inherited.snapshot();
        let report = self.inherited.between(before, &now);
        *self.last.borrow_mut() = Some(now);
        report
    }
}

thread_local! {
    static INHERITED_PERF: InheritedPerf = InheritedPerf {
        _keep_warm: PerfGroup::for_thread(0),
        inherited: PerfGroup::for_exec_of_children(),
        last: RefCell::new(None),
    };
}

impl Counting {
    /// Reads the calling thread's inherited perf counters (opening them
    /// at its first run; it must be the thread that starts the program and
    /// the one that calls [`Counting::after_exit`]) and numastat.
    pub fn before_start() -> Counting {
        Counting {
            perf_before: INHERITED_PERF.with(InheritedPerf::start),
            numastat_before: read_numastat(),
            vmstat_before: read_vmstat(),
        }
    }

    /// Starts sampling the threads of the process tree of the process id
    /// `pid` will hold: started before the program (so that starting a
    /// thread is outside the run's timed region), it samples nothing while
    /// `pid` is 0; [`TlpSampler::wake`] it once `pid` is set.
    pub fn sampler(pid: Arc<AtomicU32>) -> Option<TlpSampler> {
        let list = move || match pid.load(Ordering::Acquire) {
            0 => Vec::new(),
            pid => tree_tasks(pid),
        };
        TlpSampler::start(Box::new(list), TLP_INTERVAL, true).ok()
    }

    /// After the program was waited for: the counts.
    pub fn after_exit(self, sampled: Option<Sampled>) -> ProgramCounts {
        let sampled = sampled.unwrap_or_default();
        ProgramCounts {
            threads_usage: sampled.last_usage.values().copied().collect(),
            seen_seconds: sampled
                .seen_spans
                .iter()
                .map(|(&tid, &(first, last))| (tid, last - first))
                .collect(),
            sampled_seconds: sampled.sampled_seconds,
            tlp: sampled.tlp(),
            numastat_delta: numastat_delta(&self.numastat_before, &read_numastat()),
            vmstat_delta: self
                .vmstat_before
                .as_ref()
                .zip(read_vmstat().as_ref())
                .map(|(before, after)| vmstat_delta(before, after)),
            perf: INHERITED_PERF.with(|perf| perf.finish(&self.perf_before)),
        }
    }
}

/// The parameters a run's counts add to its record: `threads_usage` (with
/// `worker` the thread's position in thread-id order), `threads_seen` (how
/// many distinct threads of the process tree were seen: an OpenMP program's
/// team plus its main thread's other threads),
/// `threads_usage_resolution_seconds`, `tlp`, `numastat_delta`,
/// `numastat_scope`, `vmstat_delta` (machines with several nodes), `perf`,
/// `perf_unavailable`.
pub fn counts_params(counts: &ProgramCounts) -> Map<String, Value> {
    to_params(&CountsParams::from(counts))
}

impl From<&ProgramCounts> for CountsParams {
    fn from(counts: &ProgramCounts) -> CountsParams {
        CountsParams {
            threads_usage: counts
                .threads_usage
                .iter()
                .enumerate()
                .map(|(worker, usage)| WorkerUsageParams {
                    worker: worker as u64,
                    usage: usage_params(usage),
                })
                .collect(),
            threads_seen: Some(counts.threads_usage.len() as u64),
            other_threads_usage: None,
            threads_usage_resolution_seconds: tick_seconds(),
            tlp: counts.tlp.as_ref().map(tlp_params),
            numastat_delta: counts.numastat_delta.clone(),
            numastat_scope: NUMASTAT_SCOPE.to_string(),
            vmstat_delta: counts.vmstat_delta.clone(),
            perf: perf_params(&counts.perf),
            perf_per_worker: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::executor::{Executor, Invocation, ProcessExecutor};
    use crate::runner::policy::parse_policy;
    use crate::topology::discover_this_system;

    /// The process's open perf-event descriptors (the table is the
    /// process's: other tests' threads share it).
    fn perf_descriptors() -> usize {
        std::fs::read_dir("/proc/thread-self/fd")
            .unwrap()
            .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
            .filter(|target| target.to_string_lossy().contains("perf_event"))
            .count()
    }

    /// Structural: a run's inherited counters are opened once per thread,
    /// not per run (per run, opening and closing software events flipped
    /// kernel static keys: kernel text patched with an interrupt to every
    /// CPU, twice per run). Before the fix each `before_start` opened its
    /// own events, so a second one held while the first was alive added
    /// descriptors. The descriptor table is the whole process's, and other
    /// tests open and close descriptors beside this one (reading sysfs, or
    /// counting runs of their own): a defect adds descriptors at every
    /// try, a neighbour at some, so one try in ten that adds none passes.
    #[test]
    fn counters_are_opened_once_per_thread_not_per_run() {
        std::thread::spawn(|| {
            let first = Counting::before_start();
            let mut added = Vec::new();
            for _ in 0..10 {
                let open = perf_descriptors();
                let second = Counting::before_start();
                let now = perf_descriptors();
                drop(second);
                if now == open {
                    drop(first);
                    return;
                }
                added.push(now as i64 - open as i64);
            }
            panic!("every second run opened counters: {added:?} descriptors more");
        })
        .join()
        .unwrap();
    }

    /// Structural (#21 item 25): the snapshot a run ends with is the next
    /// run's start, taken, not read again; a thread's first run (or one
    /// after a run that could not start) reads the counters itself.
    #[test]
    fn a_run_starts_from_the_snapshot_the_last_one_ended_with() {
        std::thread::spawn(|| {
            let kept = || INHERITED_PERF.with(|perf| perf.last.borrow().is_some());
            assert!(!kept());
            let first = Counting::before_start();
            first.after_exit(None);
            assert!(kept(), "a finished run kept no snapshot");
            let second = Counting::before_start();
            assert!(!kept(), "the next run did not take the kept snapshot");
            second.after_exit(None);
            assert!(kept());
        })
        .join()
        .unwrap();
    }

    /// Counters kept open across runs give each run its own counts: every
    /// one of many runs of a short program counts its page faults (the
    /// kernel must not hand the kept counters to a child, which would leave
    /// later runs reading 0), and the counts do not grow run after run.
    #[test]
    fn every_run_counts_its_own_page_faults() {
        let topology = discover_this_system().unwrap();
        let invocation = Invocation {
            command: vec!["true".into()],
            policy: parse_policy("as-is", &topology).unwrap(),
            show_output: false,
            pin_library: None,
            observe: None,
            kill_leftovers: false,
        };
        let perfs: Vec<PerfReport> = (0..40)
            .map(|_| {
                let outcome = ProcessExecutor::default()
                    .execute(&invocation, &|_| Some(0))
                    .unwrap();
                outcome.counts.unwrap().perf
            })
            .collect();
        let faults: Vec<Option<u64>> = perfs
            .iter()
            .map(|perf| perf.counts.get("page-faults").copied())
            .collect();
        if faults.iter().all(Option::is_none) {
            // This machine forbids counting (perf_event_paranoid): every run says why.
            assert!(perfs
                .iter()
                .all(|perf| perf.unavailable.contains_key("page-faults")));
            return;
        }
        let counted: Vec<u64> = faults.iter().map(|count| count.unwrap()).collect();
        let (least, most) = (counted.iter().min().unwrap(), counted.iter().max().unwrap());
        assert!(*least > 0, "a run counted no page fault: {counted:?}");
        assert!(*most < least * 4, "counts grew across runs: {counted:?}");
    }
}
