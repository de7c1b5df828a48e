//! Counting perf events with perf_event_open(2), directly through the
//! system call: software events (page faults, context switches, CPU
//! migrations) that every kernel has, and hardware events (cycles,
//! instructions, last-level cache load misses, and the generic node events
//! `PERF_COUNT_HW_CACHE_NODE` read accesses and misses, which approximate
//! local against remote memory accesses) where the machine's PMU exposes
//! them. An event that cannot be opened is reported with the reason (the
//! errno text and `kernel.perf_event_paranoid`), never estimated.
//! Counts are raw; an event the PMU multiplexed (counted for part of the
//! time only) is named with the share of the time it counted.

use nix::sys::resource::{getrlimit, setrlimit, Resource};
use serde::Serialize;
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_TYPE_HW_CACHE: u32 = 3;
const PERF_COUNT_HW_CACHE_LL: u64 = 2;
const PERF_COUNT_HW_CACHE_NODE: u64 = 6;
const PERF_COUNT_HW_CACHE_OP_READ: u64 = 0;
const PERF_COUNT_HW_CACHE_RESULT_ACCESS: u64 = 0;
const PERF_COUNT_HW_CACHE_RESULT_MISS: u64 = 1;
const PERF_FORMAT_TOTAL_TIME_ENABLED: u64 = 1;
const PERF_FORMAT_TOTAL_TIME_RUNNING: u64 = 2;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;
const ATTR_DISABLED: u64 = 1 << 0;
const ATTR_INHERIT: u64 = 1 << 1;
const ATTR_ENABLE_ON_EXEC: u64 = 1 << 12;
/// `_IO('$', 0)` and `_IO('$', 1)`.
const PERF_EVENT_IOC_ENABLE: libc::c_ulong = 0x2400;
const PERF_EVENT_IOC_DISABLE: libc::c_ulong = 0x2401;

/// `struct perf_event_attr` up to `config2` (PERF_ATTR_SIZE_VER1, 72
/// bytes: the kernel takes the size it is given and zero for the rest).
#[repr(C)]
#[derive(Debug, Default)]
struct PerfEventAttr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
    config2: u64,
}

/// One event: its name as `perf list` spells it, type and config.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerfEvent {
    pub name: &'static str,
    kind: u32,
    config: u64,
    /// Needs the CPU's PMU (hardware or cache event).
    pub hardware: bool,
}

const fn cache(id: u64, result: u64) -> u64 {
    id | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (result << 16)
}

/// The events counted, software first.
pub const EVENTS: [PerfEvent; 8] = [
    PerfEvent {
        name: "page-faults",
        kind: PERF_TYPE_SOFTWARE,
        config: 2,
        hardware: false,
    },
    PerfEvent {
        name: "context-switches",
        kind: PERF_TYPE_SOFTWARE,
        config: 3,
        hardware: false,
    },
    PerfEvent {
        name: "cpu-migrations",
        kind: PERF_TYPE_SOFTWARE,
        config: 4,
        hardware: false,
    },
    PerfEvent {
        name: "cycles",
        kind: PERF_TYPE_HARDWARE,
        config: 0,
        hardware: true,
    },
    PerfEvent {
        name: "instructions",
        kind: PERF_TYPE_HARDWARE,
        config: 1,
        hardware: true,
    },
    PerfEvent {
        name: "LLC-load-misses",
        kind: PERF_TYPE_HW_CACHE,
        config: cache(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_RESULT_MISS),
        hardware: true,
    },
    PerfEvent {
        name: "node-loads",
        kind: PERF_TYPE_HW_CACHE,
        config: cache(PERF_COUNT_HW_CACHE_NODE, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
        hardware: true,
    },
    PerfEvent {
        name: "node-load-misses",
        kind: PERF_TYPE_HW_CACHE,
        config: cache(PERF_COUNT_HW_CACHE_NODE, PERF_COUNT_HW_CACHE_RESULT_MISS),
        hardware: true,
    },
];

/// `kernel.perf_event_paranoid` (`None` when the kernel has no perf events).
pub fn perf_paranoid() -> Option<i32> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Why an event could not be opened, from the errno.
fn reason(error: &std::io::Error) -> String {
    let why = match error.raw_os_error() {
        Some(libc::ENOENT | libc::EOPNOTSUPP | libc::ENODEV | libc::EINVAL) => {
            "the PMU does not expose this event here"
        }
        Some(libc::EACCES | libc::EPERM) => "perf_event_paranoid forbids it for this user",
        _ => "perf_event_open failed",
    };
    let paranoid = perf_paranoid().map_or("unreadable".to_string(), |value| value.to_string());
    format!("{why}: {error} (kernel.perf_event_paranoid = {paranoid})")
}

/// Opens one event for `pid` (0: the calling thread) on any CPU.
fn open(event: &PerfEvent, pid: libc::pid_t, flags: u64) -> std::io::Result<OwnedFd> {
    let attr = PerfEventAttr {
        kind: event.kind,
        size: std::mem::size_of::<PerfEventAttr>() as u32,
        config: event.config,
        read_format: PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
        flags,
        ..PerfEventAttr::default()
    };
    // SAFETY: `attr` is a valid perf_event_attr of the size it states, alive for the call;
    // cpu -1 (any), no group leader.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const PerfEventAttr,
            pid,
            -1 as libc::c_int,
            -1 as libc::c_int,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the kernel returned a new file descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) })
}

/// Opens a counter of a PMU's raw event (`kind` the PMU's `type`,
/// `config`/`config1` as its format puts the event's terms) on `cpu` for
/// every process (`pid` -1): how uncore PMUs, one per socket, are counted.
/// Needs CAP_PERFMON (or root, or `kernel.perf_event_paranoid` 0 or below).
pub(super) fn open_on_cpu(
    kind: u32,
    config: u64,
    config1: u64,
    cpu: i32,
) -> std::io::Result<OwnedFd> {
    let attr = PerfEventAttr {
        kind,
        size: std::mem::size_of::<PerfEventAttr>() as u32,
        config,
        config1,
        ..PerfEventAttr::default()
    };
    // SAFETY: `attr` is a valid perf_event_attr of the size it states, alive for the call;
    // pid -1 (every process) on one CPU, no group leader.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const PerfEventAttr,
            -1 as libc::pid_t,
            cpu as libc::c_int,
            -1 as libc::c_int,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the kernel returned a new file descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) })
}

/// Reads a counter opened without a read format: its one 64-bit count.
pub(super) fn read_count(fd: &OwnedFd) -> std::io::Result<u64> {
    let mut value = 0u64;
    // SAFETY: reads at most 8 bytes into `value` from a perf event fd we own.
    let read = unsafe {
        libc::read(
            fd.as_raw_fd(),
            (&mut value as *mut u64).cast(),
            std::mem::size_of::<u64>(),
        )
    };
    match read == std::mem::size_of::<u64>() as isize {
        true => Ok(value),
        false => Err(std::io::Error::last_os_error()),
    }
}

/// Raises this process's soft limit on open files to its hard limit (each
/// worker's counters take a descriptor per event: 128 workers of an
/// over-decomposed run pass the usual soft limit of 1024). True when the
/// limit went up.
fn raise_open_file_limit() -> bool {
    match getrlimit(Resource::RLIMIT_NOFILE) {
        // Only the soft limit changes, within the hard one.
        Ok((soft, hard)) if soft < hard => setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok(),
        _ => false,
    }
}

/// The events opened for one target, and those that could not be, why.
#[derive(Debug)]
pub struct PerfGroup {
    opened: Vec<(&'static str, OwnedFd)>,
    unavailable: BTreeMap<String, String>,
}

/// What one target counted.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PerfReport {
    /// Event name -> count.
    pub counts: EventCounts,
    /// Event name -> why it was not counted.
    pub unavailable: BTreeMap<String, String>,
    /// Event name -> the share of the enabled time it counted, for events
    /// the PMU multiplexed (share < 1); their counts are raw, not scaled.
    pub multiplexed: BTreeMap<String, f64>,
}

/// Event name -> count.
pub type EventCounts = BTreeMap<String, u64>;

impl PerfGroup {
    fn open_all(pid: libc::pid_t, flags: u64) -> PerfGroup {
        let mut group = PerfGroup {
            opened: Vec::new(),
            unavailable: BTreeMap::new(),
        };
        for event in &EVENTS {
            let opened = match open(event, pid, flags) {
                Err(error)
                    if error.raw_os_error() == Some(libc::EMFILE) && raise_open_file_limit() =>
                {
                    open(event, pid, flags)
                }
                other => other,
            };
            match opened {
                Ok(fd) => group.opened.push((event.name, fd)),
                Err(error) => {
                    group
                        .unavailable
                        .insert(event.name.to_string(), reason(&error));
                }
            }
        }
        group
    }

    /// Every event for thread `tid` (of this or another process), disabled
    /// until [`PerfGroup::enable`].
    pub fn for_thread(tid: u32) -> PerfGroup {
        Self::open_all(tid as libc::pid_t, ATTR_DISABLED)
    }

    /// Every event for the programs the calling thread starts next: the
    /// counters are inherited by the children it forks (and by their threads
    /// and children) and start counting when a child calls exec; the
    /// calling thread itself, never exec'ing, counts nothing. Read them
    /// after the children have been waited for.
    pub fn for_exec_of_children() -> PerfGroup {
        Self::open_all(0, ATTR_DISABLED | ATTR_INHERIT | ATTR_ENABLE_ON_EXEC)
    }

    fn ioctl_all(&self, request: libc::c_ulong) {
        for (_, fd) in &self.opened {
            // SAFETY: a perf event fd we own; the request takes no argument.
            unsafe { libc::ioctl(fd.as_raw_fd(), request, 0) };
        }
    }

    /// Starts counting.
    pub fn enable(&self) {
        self.ioctl_all(PERF_EVENT_IOC_ENABLE);
    }

    /// Stops counting.
    pub fn disable(&self) {
        self.ioctl_all(PERF_EVENT_IOC_DISABLE);
    }

    /// Every event's raw values now: count (inherited children's included),
    /// time enabled, time running.
    pub fn snapshot(&self) -> PerfSnapshot {
        let mut snapshot = PerfSnapshot {
            values: BTreeMap::new(),
            failed: BTreeMap::new(),
        };
        for (name, fd) in &self.opened {
            let mut values = [0u64; 3];
            // SAFETY: reads at most the buffer's size into it from a perf event fd we own.
            let read = unsafe {
                libc::read(
                    fd.as_raw_fd(),
                    values.as_mut_ptr().cast(),
                    std::mem::size_of_val(&values),
                )
            };
            if read != std::mem::size_of_val(&values) as isize {
                let error = std::io::Error::last_os_error();
                snapshot
                    .failed
                    .insert(name, format!("reading the counter failed: {error}"));
                continue;
            }
            snapshot.values.insert(name, values);
        }
        snapshot
    }

    /// The counts so far (inherited children's included).
    pub fn read(&self) -> PerfReport {
        self.read_since(&PerfSnapshot::default())
    }

    /// What the events counted since `before` (a [`PerfGroup::snapshot`]
    /// of this group): for counters kept open across several runs, each
    /// run's own counts.
    pub fn read_since(&self, before: &PerfSnapshot) -> PerfReport {
        self.between(before, &self.snapshot())
    }

    /// What the events counted from `before` to `now` (two snapshots of
    /// this group, `now` the later).
    pub fn between(&self, before: &PerfSnapshot, now: &PerfSnapshot) -> PerfReport {
        let mut report = PerfReport {
            unavailable: self.unavailable.clone(),
            ..PerfReport::default()
        };
        for (name, why) in now.failed.iter().chain(&before.failed) {
            report.unavailable.insert(name.to_string(), why.clone());
        }
        for (name, values) in &now.values {
            if report.unavailable.contains_key(*name) {
                continue;
            }
            let [count, enabled, running] = match before.values.get(name) {
                Some(earlier) => [0, 1, 2].map(|at| values[at].saturating_sub(earlier[at])),
                None => *values,
            };
            report.counts.insert(name.to_string(), count);
            if running < enabled {
                report
                    .multiplexed
                    .insert(name.to_string(), running as f64 / enabled as f64);
            }
        }
        report
    }
}

/// A group's raw values at one moment (see [`PerfGroup::snapshot`]).
#[derive(Debug, Clone, Default)]
pub struct PerfSnapshot {
    /// Event name -> count, time enabled, time running.
    values: BTreeMap<&'static str, [u64; 3]>,
    /// Event name -> why it could not be read.
    failed: BTreeMap<&'static str, String>,
}

impl PerfReport {
    /// The sum of several targets' reports: counts added per event; an
    /// event unavailable for any target is unavailable (with that reason)
    /// and has no sum.
    pub fn sum<'a>(reports: impl IntoIterator<Item = &'a PerfReport>) -> PerfReport {
        let mut total = PerfReport::default();
        for report in reports {
            for (name, count) in &report.counts {
                *total.counts.entry(name.clone()).or_insert(0) += count;
            }
            total.unavailable.extend(report.unavailable.clone());
            for (name, share) in &report.multiplexed {
                let entry = total.multiplexed.entry(name.clone()).or_insert(1.0);
                *entry = entry.min(*share);
            }
        }
        for name in total.unavailable.keys() {
            total.counts.remove(name);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::PAGE_SIZE;

    /// Whether this machine's PMU exposes hardware events to perf (a
    /// directory `cpu` or `cpu_core` under the perf event sources).
    fn pmu_present() -> bool {
        ["cpu", "cpu_core", "cpu_atom", "armv8_pmuv3_0"]
            .iter()
            .any(|name| {
                std::path::Path::new(&format!("/sys/bus/event_source/devices/{name}")).exists()
            })
    }

    /// Touching fresh pages on a counted thread counts at least that many
    /// page faults; hardware events are counted where the PMU exists and
    /// otherwise reported unavailable with a reason, with no count.
    #[test]
    fn a_thread_counts_its_page_faults_and_hardware_events_are_counted_or_explained() {
        let tid = super::super::usage::current_tid();
        let group = PerfGroup::for_thread(tid);
        let pages = 256;
        // SAFETY: a fresh private anonymous mapping, unmapped below.
        let memory = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                pages * PAGE_SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(memory, libc::MAP_FAILED);
        // SAFETY: the range is our mapping; no huge pages so each 4 KiB page faults once.
        unsafe { libc::madvise(memory, pages * PAGE_SIZE, libc::MADV_NOHUGEPAGE) };
        group.enable();
        for page in 0..pages {
            // SAFETY: inside the mapping.
            unsafe { std::ptr::write_volatile(memory.cast::<u8>().add(page * PAGE_SIZE), 1) };
        }
        group.disable();
        // SAFETY: our mapping, no longer used.
        unsafe { libc::munmap(memory, pages * PAGE_SIZE) };
        let report = group.read();
        if let Some(reason) = report.unavailable.get("page-faults") {
            // Only a kernel without perf events, or a paranoid setting that forbids them, says so.
            assert!(reason.contains("perf_event_paranoid"), "{reason}");
            return;
        }
        let faults = report.counts["page-faults"];
        assert!(faults >= pages as u64, "{report:?}");
        assert!(faults < pages as u64 * 4, "{report:?}");
        for event in EVENTS.iter().filter(|event| event.hardware) {
            match (pmu_present(), report.unavailable.get(event.name)) {
                (_, Some(reason)) => {
                    assert!(!report.counts.contains_key(event.name));
                    assert!(reason.contains("perf_event_paranoid ="), "{reason}");
                    assert!(
                        !pmu_present()
                            || event.name.starts_with("node")
                            || event.name.starts_with("LLC"),
                        "{} unavailable although the PMU exists: {reason}",
                        event.name
                    );
                }
                (false, None) => panic!("{} counted without a PMU: {report:?}", event.name),
                (true, None) => {
                    if event.name == "cycles" || event.name == "instructions" {
                        assert!(report.counts[event.name] > 0, "{report:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn sums_add_counts_and_keep_every_reason() {
        let one = PerfReport {
            counts: [("page-faults".to_string(), 3), ("cycles".to_string(), 10)].into(),
            ..PerfReport::default()
        };
        let two = PerfReport {
            counts: [("page-faults".to_string(), 4)].into(),
            unavailable: [("cycles".to_string(), "no PMU".to_string())].into(),
            multiplexed: BTreeMap::new(),
        };
        let total = PerfReport::sum([&one, &two]);
        assert_eq!(total.counts, [("page-faults".to_string(), 7)].into());
        assert_eq!(total.unavailable["cycles"], "no PMU");
    }
}
