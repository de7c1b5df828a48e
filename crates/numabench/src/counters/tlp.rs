//! Thread-level parallelism (TLP) of a threaded program, sampled: every
//! interval a sampler thread reads the state of each of the program's
//! threads (/proc/.../task/TID/stat) and counts those that are runnable
//! (state `R`: running or waiting for a CPU). TLP_N is the share of samples
//! in which at least N x `cores` threads were runnable, `cores` being the
//! distinct cores the threads may run on: the same definition as the MPI
//! monitor's per-host TLP (there the time share with at least N x cores
//! ranks outside blocking MPI calls), measured by sampling instead of exact
//! accounting. TLP_1 near 1 means the cores were kept busy; TLP_2 and
//! above mean threads queued for them (over-decomposition).

use super::proc_file::read_proc_file;
use super::usage::{micro, parse_stat, parse_switches, tick_seconds, ThreadUsage};
use nix::sched::{sched_getaffinity, CpuSet};
use nix::unistd::Pid;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The sampling interval: 1 ms (1 kHz). Each sample reads one small /proc
/// file per thread (a few microseconds each), so the sampler takes well
/// under 1% of a CPU for a handful of threads; for many threads it samples
/// less often ([`MAX_SAMPLER_SHARE`]).
pub const TLP_INTERVAL: Duration = Duration::from_millis(1);

/// The sampling interval over an application kernel's timed iterations:
/// 10 ms (100 Hz). Every sample wakes the sampler, which takes a CPU from
/// a worker for a moment (all of them wait for it at the next barrier);
/// measured on a 2-CPU VM, MG class A ran 2-4 % slower sampled every
/// 1 ms than unsampled, and no slower sampled every 10 ms. The workers
/// are pinned and run or spin for the whole window, so coarser samples
/// lose nothing of what TLP says about them.
pub const APP_TLP_INTERVAL: Duration = Duration::from_millis(10);

/// The sampler waits at least this many times the CPU time a sample took,
/// so it never takes more than about 2% of one CPU from the program
/// measured (many threads mean fewer samples, not more load).
pub const MAX_SAMPLER_SHARE: u32 = 50;

/// How many samples saw exactly k runnable threads, for every k.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunnableHistogram {
    pub samples_with: Vec<u64>,
}

impl RunnableHistogram {
    /// Adds one sample with `runnable` runnable threads.
    pub fn add(&mut self, runnable: usize) {
        if self.samples_with.len() <= runnable {
            self.samples_with.resize(runnable + 1, 0);
        }
        self.samples_with[runnable] += 1;
    }

    pub fn samples(&self) -> u64 {
        self.samples_with.iter().sum()
    }

    /// TLP_1..TLP_4 over `cores` cores (`None` without samples or cores).
    pub fn tlp(&self, cores: usize) -> Option<Tlp> {
        let samples = self.samples();
        if samples == 0 || cores == 0 {
            return None;
        }
        let share = |n: usize| {
            self.samples_with.iter().skip(n * cores).sum::<u64>() as f64 / samples as f64
        };
        Some(Tlp {
            tlp_1: share(1),
            tlp_2: share(2),
            tlp_3: share(3),
            tlp_4: share(4),
            samples,
            cores,
            mean_interval_ms: None,
        })
    }
}

/// TLP_1..TLP_4 (ratios), over how many samples and cores.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tlp {
    pub tlp_1: f64,
    pub tlp_2: f64,
    pub tlp_3: f64,
    pub tlp_4: f64,
    pub samples: u64,
    pub cores: usize,
    /// The mean time between samples (the interval asked, 1 ms in `run`
    /// and 10 ms in app runs; longer when sampling
    /// took long or the machine was busy).
    pub mean_interval_ms: Option<f64>,
}

/// A core's identity: `(physical_package_id, core_id)` from sysfs, or the
/// CPU as its own core where sysfs has neither.
fn read_core_key(cpu: u32) -> (i64, i64) {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/topology/{name}"))
            .ok()
            .and_then(|text| text.trim().parse::<i64>().ok())
    };
    match (read("physical_package_id"), read("core_id")) {
        (Some(package), Some(core)) => (package, core),
        _ => (-1, i64::from(cpu)),
    }
}

/// The number of distinct cores among `cpus`.
///
/// Each CPU's core is read from sysfs once per process and remembered:
/// `run` asks after every run, and reading two files per allowed CPU each
/// time cost a 192-CPU machine 384 file reads per run (#21 item 25).
pub fn distinct_cores(cpus: impl IntoIterator<Item = u32>) -> usize {
    static CORE_KEYS: Mutex<BTreeMap<u32, (i64, i64)>> = Mutex::new(BTreeMap::new());
    let mut known = CORE_KEYS.lock().unwrap_or_else(PoisonError::into_inner);
    cpus.into_iter()
        .map(|cpu| *known.entry(cpu).or_insert_with(|| read_core_key(cpu)))
        .collect::<BTreeSet<_>>()
        .len()
}

/// The CPUs thread `tid` may run on (its affinity mask; empty when it
/// cannot be read).
pub fn thread_affinity(tid: u32) -> Vec<u32> {
    let Ok(set) = sched_getaffinity(Pid::from_raw(tid as libc::pid_t)) else {
        return Vec::new();
    };
    (0..CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .map(|cpu| cpu as u32)
        .collect()
}

/// Lists the /proc task directories to sample, with their thread ids.
pub type TaskLister = Box<dyn Fn() -> Vec<(u32, PathBuf)> + Send>;

/// What a sampler saw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sampled {
    pub runnable: RunnableHistogram,
    /// Each thread's counters at the last sample that read them (with
    /// `with_usage`): a thread's work after that sample, up to one interval,
    /// is not in them.
    pub last_usage: BTreeMap<u32, ThreadUsage>,
    /// Each thread's first and last sample that read it, seconds from the
    /// first sample: how long it was seen alive.
    pub seen_spans: BTreeMap<u32, (f64, f64)>,
    /// The CPUs the sampled threads may run on (union of their affinity
    /// masks, read when each thread was first seen).
    pub allowed_cpus: BTreeSet<u32>,
    /// From the first sample to the last.
    pub sampled_seconds: f64,
}

impl Sampled {
    /// TLP_1..TLP_4 over the distinct cores of the threads' CPUs.
    pub fn tlp(&self) -> Option<Tlp> {
        if self.runnable.samples() == 0 {
            return None;
        }
        let mut tlp = self
            .runnable
            .tlp(distinct_cores(self.allowed_cpus.iter().copied()))?;
        tlp.mean_interval_ms =
            (tlp.samples > 1).then(|| self.sampled_seconds * 1e3 / (tlp.samples - 1) as f64);
        Some(tlp)
    }
}

/// A running sampler thread; [`TlpSampler::stop`] ends it.
#[derive(Debug)]
pub struct TlpSampler {
    done: Arc<AtomicBool>,
    handle: JoinHandle<Sampled>,
}

impl TlpSampler {
    /// Starts sampling the tasks `list` names every `interval`; with
    /// `with_usage` it also keeps each thread's latest user/system time and
    /// context switches (for programs whose threads end before the program,
    /// as in `numabench run`).
    pub fn start(
        list: TaskLister,
        interval: Duration,
        with_usage: bool,
    ) -> std::io::Result<TlpSampler> {
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        let handle = std::thread::Builder::new()
            .name("numabench-tlp".into())
            .spawn(move || sample_until(&list, interval, with_usage, &stop))?;
        Ok(TlpSampler { done, handle })
    }

    /// Wakes the sampler now (it takes its next sample at once), for one
    /// started before the process it samples existed.
    pub fn wake(&self) {
        self.handle.thread().unpark();
    }

    /// Stops the sampler and returns what it saw.
    pub fn stop(self) -> Sampled {
        self.done.store(true, Ordering::Release);
        self.handle.thread().unpark();
        self.handle.join().unwrap_or_default()
    }
}

/// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID).
pub fn thread_cpu_time() -> Duration {
    // SAFETY: timespec is plain data, filled by clock_gettime.
    let mut time: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid clock id and pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
}

fn sample_until(
    list: &TaskLister,
    interval: Duration,
    with_usage: bool,
    done: &AtomicBool,
) -> Sampled {
    let mut sampler = TaskSampler::new(with_usage);
    while !done.load(Ordering::Acquire) {
        let wake = sampler.sample(list(), interval);
        // One sleep per interval (every wake-up takes a CPU from the program
        // measured); `TlpSampler::stop` unparks the sampler, so the end of
        // the run is noticed at once. A spurious wake-up just sleeps again.
        while !done.load(Ordering::Acquire) {
            let Some(wait) = wake.checked_duration_since(Instant::now()) else {
                break;
            };
            std::thread::park_timeout(wait);
        }
    }
    sampler.finish()
}

/// Samples a list of tasks one sample at a time, for whoever drives it: the
/// sampler thread of [`TlpSampler`], or a thread that waits for a program
/// and samples it between waits (`numabench run`, which so starts no
/// thread per run).
#[derive(Debug)]
pub struct TaskSampler {
    sampled: Sampled,
    seen: BTreeSet<u32>,
    first: Option<Instant>,
    tick: f64,
    with_usage: bool,
    /// The /proc files are read into it ([`read_proc_file`]).
    buffer: Vec<u8>,
}

impl TaskSampler {
    /// With `with_usage`, each thread's latest user/system time and context
    /// switches are kept too (for programs whose threads end before the
    /// program, as in `numabench run`).
    pub fn new(with_usage: bool) -> TaskSampler {
        TaskSampler {
            sampled: Sampled::default(),
            seen: BTreeSet::new(),
            first: None,
            tick: tick_seconds(),
            with_usage,
            buffer: Vec::new(),
        }
    }

    /// Takes one sample of `tasks` (thread id, /proc task directory) and
    /// returns when the next one is due: `interval` after this one began,
    /// or later when sampling took more than 1/[`MAX_SAMPLER_SHARE`] of it.
    /// A list of which no task could be read (the program has ended) adds
    /// no sample.
    pub fn sample(&mut self, tasks: Vec<(u32, PathBuf)>, interval: Duration) -> Instant {
        let began = Instant::now();
        let cpu_before = thread_cpu_time();
        let mut runnable = 0;
        let mut read_any = false;
        let offset = self
            .first
            .map_or(0.0, |first| (began - first).as_secs_f64());
        for (tid, dir) in tasks {
            let Some(stat) =
                read_proc_file(&dir.join("stat"), &mut self.buffer).and_then(parse_stat)
            else {
                continue;
            };
            read_any = true;
            self.sampled
                .seen_spans
                .entry(tid)
                .and_modify(|span| span.1 = offset)
                .or_insert((offset, offset));
            if stat.state == 'R' {
                runnable += 1;
            }
            if self.seen.insert(tid) {
                self.sampled.allowed_cpus.extend(thread_affinity(tid));
            }
            if self.with_usage {
                let switches =
                    read_proc_file(&dir.join("status"), &mut self.buffer).and_then(parse_switches);
                if let Some((voluntary, involuntary)) = switches {
                    self.sampled.last_usage.insert(
                        tid,
                        ThreadUsage {
                            tid,
                            cpu: stat.processor,
                            user_seconds: micro(stat.utime_ticks as f64 * self.tick),
                            system_seconds: micro(stat.stime_ticks as f64 * self.tick),
                            voluntary_switches: voluntary,
                            involuntary_switches: involuntary,
                        },
                    );
                }
            }
        }
        if read_any {
            self.sampled.runnable.add(runnable);
            let first = *self.first.get_or_insert(began);
            self.sampled.sampled_seconds = (began - first).as_secs_f64();
        }
        let cost = thread_cpu_time().saturating_sub(cpu_before);
        began + interval.max(cost * MAX_SAMPLER_SHARE)
    }

    /// What the samples saw.
    pub fn finish(self) -> Sampled {
        self.sampled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tlp_counts_samples_with_enough_runnable_threads_per_core() {
        let mut histogram = RunnableHistogram::default();
        // 10 samples: 1 with 0 runnable, 3 with 1, 4 with 2, 2 with 5.
        for (runnable, count) in [(0, 1), (1, 3), (2, 4), (5, 2)] {
            for _ in 0..count {
                histogram.add(runnable);
            }
        }
        let one_core = histogram.tlp(1).unwrap();
        assert_eq!(one_core.tlp_1, 0.9);
        assert_eq!(one_core.tlp_2, 0.6);
        assert_eq!(one_core.tlp_3, 0.2);
        assert_eq!(one_core.tlp_4, 0.2);
        assert_eq!(one_core.samples, 10);
        // Two cores: TLP_1 needs two runnable threads.
        let two_cores = histogram.tlp(2).unwrap();
        assert_eq!(two_cores.tlp_1, 0.6);
        assert_eq!(two_cores.tlp_2, 0.2);
        assert_eq!(two_cores.tlp_3, 0.0);
        assert!(RunnableHistogram::default().tlp(1).is_none());
    }

    /// A spinning thread is runnable in (nearly) every sample, a sleeping
    /// one in (nearly) none.
    #[test]
    fn a_spinning_thread_is_runnable_and_a_sleeping_one_is_not() {
        let stop = Arc::new(AtomicBool::new(false));
        let spin_stop = Arc::clone(&stop);
        let (tx, rx) = std::sync::mpsc::channel();
        let spinner = std::thread::spawn(move || {
            tx.send(super::super::usage::current_tid()).unwrap();
            while !spin_stop.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        let spinning = rx.recv().unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (tid_tx, tid_rx) = std::sync::mpsc::channel();
        let sleeper = std::thread::spawn(move || {
            tid_tx.send(super::super::usage::current_tid()).unwrap();
            let _ = rx.recv();
        });
        let sleeping = tid_rx.recv().unwrap();
        // A loaded machine can starve the sampler thread itself: the window
        // doubles (up to 6.4 s) until it holds at least 10 samples.
        let sample = |tid: u32| {
            let mut window = Duration::from_millis(200);
            loop {
                let dir = PathBuf::from(format!("/proc/self/task/{tid}"));
                let sampler = TlpSampler::start(
                    Box::new(move || vec![(tid, dir.clone())]),
                    TLP_INTERVAL,
                    true,
                )
                .unwrap();
                std::thread::sleep(window);
                let outcome = sampler.stop();
                let samples = outcome.runnable.tlp(1).map_or(0, |tlp| tlp.samples);
                if samples >= 10 || window >= Duration::from_millis(6400) {
                    return (outcome, window);
                }
                window *= 2;
            }
        };
        let (spun, window) = sample(spinning);
        let (slept, _) = sample(sleeping);
        stop.store(true, Ordering::Relaxed);
        drop(tx);
        spinner.join().unwrap();
        sleeper.join().unwrap();
        let spun_tlp = spun.runnable.tlp(1).unwrap();
        let slept_tlp = slept.runnable.tlp(1).unwrap();
        // Runnable means running or queued: a spinning thread is R even when
        // the busy machine preempts it.
        assert!(spun_tlp.tlp_1 > 0.9, "{spun_tlp:?}");
        assert!(slept_tlp.tlp_1 < 0.1, "{slept_tlp:?}");
        assert!(spun_tlp.samples >= 10, "{spun_tlp:?}");
        let interval = spun.tlp().unwrap().mean_interval_ms.unwrap();
        // At least the 1 ms asked, and no longer than the window (plus the
        // time stopping took on a loaded machine) spread over the samples.
        let window_ms = window.as_secs_f64() * 1e3;
        let longest = (window_ms * 1.5 + 50.0) / (spun_tlp.samples - 1) as f64;
        assert!(
            interval >= 0.9 && interval <= longest,
            "{interval} ms, window {window:?}"
        );
        assert!(spun.last_usage.contains_key(&spinning));
        assert!(!spun.allowed_cpus.is_empty());
    }
}
