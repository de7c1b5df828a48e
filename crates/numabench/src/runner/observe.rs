//! Watching a running program from outside: where its memory is
//! (/proc/PID/numa_maps, per node), which CPU each of its threads last ran
//! on (/proc/PID/task/TID/stat) and how often the kernel moved each thread
//! (/proc/PID/task/TID/sched), sampled at an interval, for the whole process
//! tree.

use crate::counters::{read_proc_file, thread_cpu_time, MAX_SAMPLER_SHARE};
use numabench_schema::params::{ObservationParams, ObservationSample as SampleParams};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObservationSample {
    /// Seconds since the program started.
    pub t: f64,
    /// Resident anonymous bytes per node, over the process tree (empty in the
    /// samples between memory samples: see [`memory_sample_gap`]).
    pub bytes_per_node: BTreeMap<u32, u64>,
    /// Thread id -> CPU it last ran on.
    pub thread_cpus: BTreeMap<u32, u32>,
    /// Thread id -> the kernel's migration count so far (threads whose
    /// sched file could be read).
    #[serde(skip)]
    pub thread_kernel_migrations: BTreeMap<u32, u64>,
}

/// A program's observation: the timeline and what it adds up to.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Observation {
    pub interval_ms: u64,
    pub samples: Vec<ObservationSample>,
    /// Thread migrations: with `thread_migrations_source` `kernel`, the
    /// kernel's own count (`se.nr_migrations`) summed over every thread seen,
    /// up to its last sample (moves between samples included); otherwise the
    /// same figure as `cpu_changes_between_samples`.
    pub thread_migrations: u64,
    /// Where `thread_migrations` comes from: [`MIGRATIONS_FROM_KERNEL`] or
    /// [`MIGRATIONS_FROM_CPU_CHANGES`] (the kernel has no per-thread count
    /// without CONFIG_SCHED_DEBUG).
    pub thread_migrations_source: &'static str,
    /// Times a thread was seen on a different CPU than at the sample before
    /// (a move A→B→A between two samples counts as none).
    pub cpu_changes_between_samples: u64,
    /// Of those, changes to a CPU of another node.
    pub node_changes_between_samples: u64,
    /// Resident bytes per node at the last sample.
    pub final_bytes_per_node: BTreeMap<u32, u64>,
    /// Resident bytes per node at the sample with the most resident memory
    /// (a program frees its buffers before it exits).
    pub peak_bytes_per_node: BTreeMap<u32, u64>,
}

impl From<&Observation> for ObservationParams {
    /// The observation as a run record's params carry it (the same keys
    /// in the same order as this type's own serialization).
    fn from(observation: &Observation) -> Self {
        ObservationParams {
            interval_ms: observation.interval_ms,
            samples: observation
                .samples
                .iter()
                .map(|sample| SampleParams {
                    t: sample.t,
                    bytes_per_node: sample.bytes_per_node.clone(),
                    thread_cpus: sample.thread_cpus.clone(),
                })
                .collect(),
            thread_migrations: observation.thread_migrations,
            thread_migrations_source: observation.thread_migrations_source.to_string(),
            cpu_changes_between_samples: observation.cpu_changes_between_samples,
            node_changes_between_samples: observation.node_changes_between_samples,
            final_bytes_per_node: observation.final_bytes_per_node.clone(),
            peak_bytes_per_node: observation.peak_bytes_per_node.clone(),
        }
    }
}

/// `thread_migrations` counted by the kernel for each thread.
pub const MIGRATIONS_FROM_KERNEL: &str = "kernel";
/// `thread_migrations` counted as CPU changes between samples.
pub const MIGRATIONS_FROM_CPU_CHANGES: &str = "cpu-changes-between-samples";

/// The process and all its descendants.
pub(super) fn process_tree(pid: u32) -> Vec<u32> {
    walk_process_tree(pid).processes
}

/// The task directories (thread id, `/proc/PID/task/TID`) of a process and
/// all its descendants.
pub(super) fn tree_tasks(pid: u32) -> Vec<(u32, PathBuf)> {
    walk_process_tree(pid).tasks
}

/// A process tree as one walk of `/proc` finds it.
struct ProcessTree {
    processes: Vec<u32>,
    tasks: Vec<(u32, PathBuf)>,
}

/// Reads each process's task directory once: its threads, and each
/// thread's `children` (the kernel lists a child under the thread that
/// started it), so the sampler's one walk at 1 kHz gives both.
fn walk_process_tree(pid: u32) -> ProcessTree {
    let mut tree = ProcessTree {
        processes: vec![pid],
        tasks: Vec::new(),
    };
    let mut buffer = Vec::new();
    let mut index = 0;
    while index < tree.processes.len() {
        let current = tree.processes[index];
        for task in fs::read_dir(format!("/proc/{current}/task"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = task.path();
            if let Some(children) = read_proc_file(&path.join("children"), &mut buffer) {
                tree.processes.extend(
                    children
                        .split_whitespace()
                        .filter_map(|child| child.parse::<u32>().ok()),
                );
            }
            if let Some(tid) = task.file_name().to_str().and_then(|tid| tid.parse().ok()) {
                tree.tasks.push((tid, path));
            }
        }
        index += 1;
    }
    tree
}

/// Sums `N<node>=<pages>` of every anonymous mapping (heap, stacks,
/// anonymous mmaps: the memory a memory policy places), in bytes, honouring
/// each mapping's `kernelpagesize_kB`. File-backed mappings (`file=`) are
/// left out: their page cache is shared and sits wherever it was first read.
pub fn parse_numa_maps(text: &str, per_node: &mut BTreeMap<u32, u64>) {
    for line in text.lines().filter(|line| {
        !line
            .split_whitespace()
            .any(|field| field.starts_with("file="))
    }) {
        let page_bytes = line
            .split_whitespace()
            .find_map(|field| field.strip_prefix("kernelpagesize_kB="))
            .and_then(|kib| kib.parse::<u64>().ok())
            .map_or(4096, |kib| kib * 1024);
        for field in line.split_whitespace() {
            if let Some((node, pages)) = field
                .strip_prefix('N')
                .and_then(|rest| rest.split_once('='))
            {
                if let (Ok(node), Ok(pages)) = (node.parse::<u32>(), pages.parse::<u64>()) {
                    *per_node.entry(node).or_insert(0) += pages * page_bytes;
                }
            }
        }
    }
}

/// The `processor` field (39th) of a /proc stat line.
pub fn parse_processor(stat: &str) -> Option<u32> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(36)?.parse().ok()
}

/// `se.nr_migrations` of a /proc/PID/task/TID/sched file (present when the
/// kernel has CONFIG_SCHED_DEBUG): how often the scheduler moved the thread
/// to another CPU since it started.
pub fn parse_nr_migrations(sched: &str) -> Option<u64> {
    sched.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        (name.trim() == "se.nr_migrations")
            .then(|| value.trim().parse().ok())
            .flatten()
    })
}

/// numa_maps is read at most this often: reading it walks the program's
/// page tables under its mmap lock, which at 20 ms would slow a program that
/// faults pages in by a few percent. Thread CPUs are sampled every interval.
const MEMORY_SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// And no sooner than this many times the CPU time the last memory sample
/// took, so the walks take at most 2% of a CPU whatever the program's size
/// (the TLP sampler's share): a walk of a 1.5 GiB program took 10.7 ms
/// here, and at every 100 ms those walks slowed a memory-bound program
/// observed at 20 ms by 3-8% (#21 item 25); they are now about 0.5 s apart.
const MEMORY_SAMPLE_COST_TIMES: u32 = MAX_SAMPLER_SHARE;

/// The time from one memory sample to the next, after one that took `cost`
/// of CPU time, observing every `interval`.
fn memory_sample_gap(interval: Duration, cost: Duration) -> Duration {
    MEMORY_SAMPLE_EVERY
        .max(interval)
        .max(cost * MEMORY_SAMPLE_COST_TIMES)
}

fn sample(pid: u32, started: Instant, with_memory: bool) -> ObservationSample {
    let mut bytes_per_node = BTreeMap::new();
    let mut thread_cpus = BTreeMap::new();
    let mut thread_kernel_migrations = BTreeMap::new();
    let mut buffer = Vec::new();
    for process in process_tree(pid) {
        if with_memory {
            let path = PathBuf::from(format!("/proc/{process}/numa_maps"));
            if let Some(text) = read_proc_file(&path, &mut buffer) {
                parse_numa_maps(text, &mut bytes_per_node);
            }
        }
        for task in fs::read_dir(format!("/proc/{process}/task"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let tid = task.file_name().to_string_lossy().parse::<u32>().ok();
            let cpu =
                read_proc_file(&task.path().join("stat"), &mut buffer).and_then(parse_processor);
            if let (Some(tid), Some(cpu)) = (tid, cpu) {
                thread_cpus.insert(tid, cpu);
                if let Some(migrations) = read_proc_file(&task.path().join("sched"), &mut buffer)
                    .and_then(parse_nr_migrations)
                {
                    thread_kernel_migrations.insert(tid, migrations);
                }
            }
        }
    }
    ObservationSample {
        t: started.elapsed().as_secs_f64(),
        bytes_per_node,
        thread_cpus,
        thread_kernel_migrations,
    }
}

/// Samples `pid` every `interval` until `done` is set (the caller then
/// unparks this thread, which sleeps until the next sample otherwise);
/// `node_of_cpu` maps CPUs to nodes for counting node migrations.
pub fn observe(
    pid: u32,
    interval: Duration,
    started: Instant,
    done: &AtomicBool,
    node_of_cpu: &(dyn Fn(u32) -> Option<u32> + Sync),
) -> Observation {
    let mut observation = Observation {
        interval_ms: interval.as_millis() as u64,
        ..Observation::default()
    };
    // The kernel's count at each thread's latest sample, and whether every
    // thread seen had one.
    let mut kernel_counts: BTreeMap<u32, u64> = BTreeMap::new();
    let mut kernel_counts_everywhere = true;
    let mut next = Instant::now();
    let mut memory_due = Instant::now();
    while !done.load(Ordering::Acquire) {
        let began = Instant::now();
        let with_memory = began >= memory_due;
        let cpu_before = thread_cpu_time();
        let current = sample(pid, started, with_memory);
        if with_memory {
            let cost = thread_cpu_time().saturating_sub(cpu_before);
            memory_due = began + memory_sample_gap(interval, cost);
        }
        if let Some(previous) = observation.samples.last() {
            for (tid, cpu) in &current.thread_cpus {
                if let Some(before) = previous.thread_cpus.get(tid) {
                    if before != cpu {
                        observation.cpu_changes_between_samples += 1;
                        if node_of_cpu(*before) != node_of_cpu(*cpu) {
                            observation.node_changes_between_samples += 1;
                        }
                    }
                }
            }
        }
        kernel_counts_everywhere &=
            current.thread_kernel_migrations.len() == current.thread_cpus.len();
        kernel_counts.extend(&current.thread_kernel_migrations);
        if !current.bytes_per_node.is_empty() {
            observation.final_bytes_per_node = current.bytes_per_node.clone();
            let total = |bytes: &BTreeMap<u32, u64>| bytes.values().sum::<u64>();
            if total(&current.bytes_per_node) > total(&observation.peak_bytes_per_node) {
                observation.peak_bytes_per_node = current.bytes_per_node.clone();
            }
        }
        observation.samples.push(current);
        next += interval;
        let now = Instant::now();
        if next > now {
            // One sleep per interval; whoever sets `done` unparks this thread, so the end
            // of the program is noticed at once. (Sleeping in 2 ms steps woke this thread
            // ten times per 20 ms interval, beside the program it observes.) A spurious
            // wake-up just sleeps again.
            while !done.load(Ordering::Acquire) {
                let Some(wait) = next.checked_duration_since(Instant::now()) else {
                    break;
                };
                std::thread::park_timeout(wait);
            }
        } else {
            next = now;
        }
    }
    (
        observation.thread_migrations,
        observation.thread_migrations_source,
    ) = if kernel_counts_everywhere && !kernel_counts.is_empty() {
        (kernel_counts.values().sum(), MIGRATIONS_FROM_KERNEL)
    } else {
        (
            observation.cpu_changes_between_samples,
            MIGRATIONS_FROM_CPU_CHANGES,
        )
    };
    observation
}

#[cfg(test)]
mod tests {
    use super::*;

    /// numa_maps is read every 100 ms (or every interval, if longer) while
    /// its walks are cheap, and no more than 2% of a CPU when they are not:
    /// after a 10.7 ms walk (a 1.5 GiB program here) the next comes 535 ms
    /// later. Before, it came 100 ms later whatever the walk cost.
    #[test]
    fn memory_samples_are_spaced_by_what_they_cost() {
        let ms = Duration::from_millis;
        assert_eq!(
            memory_sample_gap(ms(20), Duration::from_micros(100)),
            ms(100)
        );
        assert_eq!(
            memory_sample_gap(ms(250), Duration::from_micros(100)),
            ms(250)
        );
        assert_eq!(
            memory_sample_gap(ms(20), Duration::from_micros(10_700)),
            ms(535)
        );
    }

    #[test]
    fn numa_maps_pages_are_summed_per_node_in_bytes() {
        let text = "7f00 default anon=3 dirty=3 N0=2 N1=1 kernelpagesize_kB=4\n7f10 interleave:0-1 anon=2 N1=2 kernelpagesize_kB=2048\n7f20 default file=/lib/x.so mapped=5 N0=5 kernelpagesize_kB=4\n";
        let mut per_node = BTreeMap::new();
        parse_numa_maps(text, &mut per_node);
        assert_eq!(per_node[&0], 2 * 4096);
        assert_eq!(per_node[&1], 4096 + 2 * 2 * 1024 * 1024);
    }

    #[test]
    fn nr_migrations_is_read_from_a_sched_file() {
        let sched = "sh (4242, #threads: 1)\n-------------------------------------------------------------------\nse.exec_start                                :      12345.678901\nse.nr_migrations                             :                   17\nnr_switches                                  :                   40\n";
        assert_eq!(parse_nr_migrations(sched), Some(17));
        assert_eq!(parse_nr_migrations("nr_switches : 3\n"), None);
        if let Ok(own) = std::fs::read_to_string("/proc/thread-self/sched") {
            assert!(parse_nr_migrations(&own).is_some(), "{own}");
        }
    }

    #[test]
    fn processor_is_read_after_the_command_name() {
        let mut fields: Vec<String> = (3..=52).map(|field| field.to_string()).collect();
        fields[36] = "7".to_string();
        let stat = format!("1234 (a (weird) name) {}", fields.join(" "));
        assert_eq!(parse_processor(&stat), Some(7));
        let own = std::fs::read_to_string("/proc/self/stat").unwrap();
        assert_eq!(parse_processor(&own).map(|cpu| cpu < 4096), Some(true));
    }
}
