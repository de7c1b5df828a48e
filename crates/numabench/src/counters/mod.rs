//! What a run's threads and the kernel counted while it ran: per-thread
//! user/system time and context switches (/proc), sampled thread-level
//! parallelism (TLP), the kernel's per-node NUMA allocation counters
//! (numastat), page promotions, demotions and migrations (vmstat), perf events (perf_event_open) and this process's own
//! CPU time and context switches (getrusage).

pub mod memory_controller;
mod numastat;
mod params;
#[cfg(test)]
mod params_tests;
mod perf;
mod proc_file;
mod rusage;
mod tlp;
mod usage;
pub mod vmstat;

pub use numastat::{numastat_delta, read_numastat, NodeNumastat, NUMASTAT_FIELDS};
pub use params::{perf_params, tlp_params, usage_params, NUMASTAT_SCOPE};
pub use perf::{
    perf_paranoid, EventCounts, PerfEvent, PerfGroup, PerfReport, PerfSnapshot, EVENTS,
};
pub use proc_file::read_proc_file;
pub use rusage::{usage_now, Usage};
pub use tlp::{
    distinct_cores, thread_affinity, thread_cpu_time, RunnableHistogram, Sampled, TaskLister,
    TaskSampler, Tlp, TlpSampler, APP_TLP_INTERVAL, MAX_SAMPLER_SHARE, TLP_INTERVAL,
};
pub use usage::{
    current_tid, own_threads, parse_stat, parse_switches, read_own_thread, read_task, tick_seconds,
    TaskStat, ThreadUsage,
};
