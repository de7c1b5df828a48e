//! What `numabench run` counts for every run of the program, beside its
//! times: per-thread user/system time and context switches and TLP,
//! sampled from /proc over the whole process tree (a thread's figures are
//! those of the last sample before it ended: up to one sampling interval of
//! its work may be missing), the kernel's numastat counters (system-wide)
//! before and after, and perf events for the process tree (counters the
//! starting thread opens with `inherit`, enabled when the child calls exec).
//! See [`crate::counters`].

use super::observe::process_tree;
use crate::counters::{
    numastat_delta, read_numastat, tick_seconds, NodeNumastat, PerfGroup, PerfReport, Sampled,
    ThreadUsage, Tlp, TlpSampler, TLP_INTERVAL,
};
use crate::counters::{numastat_json, perf_params};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// One run's counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProgramCounts {
    /// Every thread of the process tree the sampler saw, in thread-id order,
    /// as last seen.
    pub threads_usage: Vec<ThreadUsage>,
    pub tlp: Option<Tlp>,
    pub numastat_delta: BTreeMap<u32, NodeNumastat>,
    /// The whole process tree's perf counts.
    pub perf: PerfReport,
}

/// Counting set up before the program starts.
#[derive(Debug)]
pub struct Counting {
    perf: PerfGroup,
    numastat_before: BTreeMap<u32, NodeNumastat>,
}

/// The task directories of a process tree.
fn tree_tasks(pid: u32) -> Vec<(u32, PathBuf)> {
    process_tree(pid)
        .into_iter()
        .flat_map(|process| {
            std::fs::read_dir(format!("/proc/{process}/task"))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|task| {
                    let tid = task.file_name().to_string_lossy().parse().ok()?;
                    Some((tid, task.path()))
                })
        })
        .collect()
}

impl Counting {
    /// Opens the inherited perf counters on the calling thread (which must
    /// be the one that starts the program) and reads numastat.
    pub fn before_start() -> Counting {
        Counting {
            perf: PerfGroup::for_exec_of_children(),
            numastat_before: read_numastat(),
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
            tlp: sampled.tlp(),
            numastat_delta: numastat_delta(&self.numastat_before, &read_numastat()),
            perf: self.perf.read(),
        }
    }
}

/// The parameters a run's counts add to its record: `threads_usage` (with
/// `worker` the thread's position in thread-id order), `threads_seen` (how
/// many distinct threads of the process tree were seen: an OpenMP program's
/// team plus its main thread's other threads),
/// `threads_usage_resolution_seconds`, `tlp`, `numastat_delta`,
/// `numastat_scope`, `perf`, `perf_unavailable`.
pub fn counts_params(counts: &ProgramCounts) -> Map<String, Value> {
    let mut params = Map::new();
    let threads: Vec<Value> = counts
        .threads_usage
        .iter()
        .enumerate()
        .map(|(worker, usage)| {
            json!({
                "worker": worker,
                "tid": usage.tid,
                "cpu": usage.cpu,
                "user_seconds": usage.user_seconds,
                "system_seconds": usage.system_seconds,
                "voluntary_switches": usage.voluntary_switches,
                "involuntary_switches": usage.involuntary_switches,
            })
        })
        .collect();
    params.insert("threads_usage".into(), Value::Array(threads));
    params.insert("threads_seen".into(), json!(counts.threads_usage.len()));
    params.insert(
        "threads_usage_resolution_seconds".into(),
        json!(tick_seconds()),
    );
    params.insert(
        "tlp".into(),
        counts.tlp.map_or(Value::Null, |tlp| json!(tlp)),
    );
    params.insert(
        "numastat_delta".into(),
        numastat_json(&counts.numastat_delta),
    );
    params.insert("numastat_scope".into(), json!("system"));
    params.extend(perf_params(&counts.perf));
    params
}
