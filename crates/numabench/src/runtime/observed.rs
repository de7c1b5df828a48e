//! What an application run's threads and the kernel counted: per-worker
//! user/system time and context switches and sampled TLP over the timed
//! iterations (the window of the records' `user_seconds`), the kernel's
//! numastat counters and perf events (per worker) from before the arrays
//! are allocated and placed to the end of the iterations (page placement
//! happens at allocation). See [`crate::counters`].

use super::team::Team;
use crate::counters::vmstat::{read_vmstat, vmstat_delta, Vmstat};
use crate::counters::{
    current_tid, numastat_delta, own_threads, read_numastat, read_own_thread, tick_seconds,
    EventCounts, NodeNumastat, PerfGroup, PerfReport, ThreadUsage, Tlp, TlpSampler,
    APP_TLP_INTERVAL,
};
use crate::counters::{perf_params, tlp_params, usage_params, NUMASTAT_SCOPE};
use numabench_schema::params::{to_params, CountsParams, WorkerUsageParams};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// One worker's use of the machine over the timed iterations.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerUsage {
    pub worker: usize,
    pub usage: ThreadUsage,
}

/// What one run's observation found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunObservation {
    /// Per worker, in worker order.
    pub threads_usage: Vec<WorkerUsage>,
    /// The process's other threads alive over the whole window (the TLP
    /// sampler, ...): with the workers they add up to the process's
    /// getrusage figures.
    pub other_threads_usage: Vec<ThreadUsage>,
    pub tlp: Option<Tlp>,
    pub numastat_delta: BTreeMap<u32, NodeNumastat>,
    /// The page-movement counters that grew (`None` on one node).
    pub vmstat_delta: Option<Vmstat>,
    /// The workers' perf counts summed.
    pub perf: PerfReport,
    /// Each worker's perf counts, in worker order.
    pub perf_per_worker: Vec<EventCounts>,
}

/// Watches a run: [`Observer::start`] before the arrays are allocated,
/// [`Observer::start_timed`] just before the iterations,
/// [`Observer::finish`] just after.
#[derive(Debug)]
pub struct Observer {
    tids: Vec<u32>,
    perf: Vec<PerfGroup>,
    numastat_before: BTreeMap<u32, NodeNumastat>,
    vmstat_before: Option<Vmstat>,
    sampler: Option<TlpSampler>,
    threads_before: BTreeMap<u32, ThreadUsage>,
}

/// Every thread of this process now, by thread id.
fn all_threads() -> BTreeMap<u32, ThreadUsage> {
    own_threads()
        .into_iter()
        .filter_map(|tid| Some((tid, read_own_thread(tid)?)))
        .collect()
}

impl Observer {
    /// Learns the workers' thread ids, reads numastat and starts each
    /// worker's perf counters.
    pub fn start(team: &Team) -> Observer {
        let tids: Vec<Mutex<u32>> = (0..team.threads()).map(|_| Mutex::new(0)).collect();
        team.run(|worker| *tids[worker].lock().expect("tid") = current_tid());
        let tids: Vec<u32> = tids
            .into_iter()
            .map(|tid| tid.into_inner().expect("tid"))
            .collect();
        let perf: Vec<PerfGroup> = tids.iter().map(|&tid| PerfGroup::for_thread(tid)).collect();
        let numastat_before = read_numastat();
        perf.iter().for_each(PerfGroup::enable);
        Observer {
            tids,
            perf,
            numastat_before,
            vmstat_before: read_vmstat(),
            sampler: None,
            threads_before: BTreeMap::new(),
        }
    }

    /// Starts the TLP sampler and takes every thread's counters.
    pub fn start_timed(&mut self) {
        let dirs: Vec<(u32, PathBuf)> = self
            .tids
            .iter()
            .map(|&tid| (tid, PathBuf::from(format!("/proc/self/task/{tid}"))))
            .collect();
        // A sampler that cannot start leaves TLP out (`None`), nothing else.
        self.sampler =
            TlpSampler::start(Box::new(move || dirs.clone()), APP_TLP_INTERVAL, false).ok();
        self.threads_before = all_threads();
    }

    /// Takes every thread's counters again, stops the sampler and the
    /// counters, reads numastat.
    pub fn finish(self) -> RunObservation {
        let threads_after = all_threads();
        let sampled = self.sampler.map(TlpSampler::stop).unwrap_or_default();
        self.perf.iter().for_each(PerfGroup::disable);
        let numastat_after = read_numastat();
        let vmstat_after = read_vmstat();
        let used = |tid: &u32| Some(threads_after.get(tid)?.since(self.threads_before.get(tid)?));
        let threads_usage = self
            .tids
            .iter()
            .enumerate()
            .filter_map(|(worker, tid)| {
                Some(WorkerUsage {
                    worker,
                    usage: used(tid)?,
                })
            })
            .collect();
        let other_threads_usage = threads_after
            .keys()
            .filter(|tid| !self.tids.contains(tid))
            .filter_map(used)
            .collect();
        let reports: Vec<PerfReport> = self.perf.iter().map(PerfGroup::read).collect();
        RunObservation {
            threads_usage,
            other_threads_usage,
            tlp: sampled.tlp(),
            numastat_delta: numastat_delta(&self.numastat_before, &numastat_after),
            vmstat_delta: self
                .vmstat_before
                .as_ref()
                .zip(vmstat_after.as_ref())
                .map(|(before, after)| vmstat_delta(before, after)),
            perf: PerfReport::sum(&reports),
            perf_per_worker: reports.into_iter().map(|report| report.counts).collect(),
        }
    }
}

/// The parameters an observation adds to a run's records:
/// `threads_usage`, `other_threads_usage`, `threads_usage_resolution_seconds`,
/// `tlp`, `numastat_delta`, `numastat_scope`, `vmstat_delta` (machines with
/// several nodes), `perf`, `perf_per_worker`,
/// `perf_unavailable` (and `perf_multiplexed` when the PMU multiplexed).
pub fn observation_params(observation: &RunObservation) -> Map<String, Value> {
    to_params(&CountsParams {
        threads_usage: observation
            .threads_usage
            .iter()
            .map(|worker| WorkerUsageParams {
                worker: worker.worker as u64,
                usage: usage_params(&worker.usage),
            })
            .collect(),
        threads_seen: None,
        other_threads_usage: Some(
            observation
                .other_threads_usage
                .iter()
                .map(usage_params)
                .collect(),
        ),
        threads_usage_resolution_seconds: tick_seconds(),
        tlp: observation.tlp.as_ref().map(tlp_params),
        numastat_delta: observation.numastat_delta.clone(),
        numastat_scope: NUMASTAT_SCOPE.to_string(),
        vmstat_delta: observation.vmstat_delta.clone(),
        perf: perf_params(&observation.perf),
        perf_per_worker: Some(observation.perf_per_worker.clone()),
    })
}
