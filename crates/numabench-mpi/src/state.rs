//! This process's counters and the per-call guard every wrapper takes.
//!
//! Only the outermost wrapped call of a thread is accounted: a per-thread
//! depth counter makes a wrapper that the MPI library (or another wrapper)
//! reaches from inside an accounted call a plain pass-through, so nothing
//! is counted twice. Blocking time is accounted per class; while at least
//! one thread of the process is inside a blocking call, the process is
//! "inside MPI" in its host's table.

use crate::host_table;
use crate::report::SizeClass;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// Which kind of blocking call.
#[derive(Debug, Clone, Copy)]
pub enum Class {
    /// Blocking sends, receives, sendrecv, probe.
    P2p = 0,
    /// MPI_Wait and its siblings.
    Wait = 1,
    /// Collectives.
    Collective = 2,
}

/// The process's totals, updated by every thread.
#[derive(Debug)]
pub struct Counters {
    pub class_ns: [AtomicU64; 3],
    pub small: AtomicU64,
    pub medium: AtomicU64,
    pub large: AtomicU64,
    pub bytes: AtomicU64,
}

pub static COUNTERS: Counters = Counters {
    class_ns: [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)],
    small: AtomicU64::new(0),
    medium: AtomicU64::new(0),
    large: AtomicU64::new(0),
    bytes: AtomicU64::new(0),
};

/// True between the end of MPI_Init's setup and MPI_Finalize.
pub static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Threads of this process now inside an accounted blocking call.
static THREADS_INSIDE: AtomicU32 = AtomicU32::new(0);

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of a host.
pub fn now_ns() -> u64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut time) };
    time.tv_sec as u64 * 1_000_000_000 + time.tv_nsec as u64
}

/// Marks this process inside blocking MPI at `now` (the first thread in).
pub fn process_enters(now: u64) {
    if THREADS_INSIDE.fetch_add(1, Ordering::AcqRel) == 0 {
        host_table::change(-1, now);
    }
}

/// Marks this process back outside at `now` (the last thread out).
pub fn process_leaves(now: u64) {
    if THREADS_INSIDE.fetch_sub(1, Ordering::AcqRel) == 1 {
        host_table::change(1, now);
    }
}

/// One wrapped call; accounting happens when it is dropped.
#[derive(Debug)]
pub struct Call {
    /// The outermost wrapped call of this thread.
    outermost: bool,
    /// The outermost call of this thread while monitoring.
    counting: bool,
    blocking: Option<(Class, u64)>,
}

impl Call {
    fn enter(class: Option<Class>) -> Self {
        let depth = DEPTH.with(|depth| {
            let outer = depth.get();
            depth.set(outer + 1);
            outer
        });
        let counting = depth == 0 && ACTIVE.load(Ordering::Relaxed);
        let blocking = match class {
            Some(class) if counting => {
                // One clock reading for the call's time and the table.
                let now = now_ns();
                process_enters(now);
                Some((class, now))
            }
            _ => None,
        };
        Self {
            outermost: depth == 0,
            counting,
            blocking,
        }
    }

    /// A blocking call of `class`: timed, and the process is inside MPI
    /// until it returns.
    pub fn blocking(class: Class) -> Self {
        Self::enter(Some(class))
    }

    /// A call that returns at once (MPI_Isend, MPI_Init): not timed, but
    /// what it reaches inside is not accounted either.
    pub fn immediate() -> Self {
        Self::enter(None)
    }

    /// True when no other wrapped call of this thread is under way.
    pub fn outermost(&self) -> bool {
        self.outermost
    }

    /// True when this call is accounted (outermost, while monitoring).
    pub fn counting(&self) -> bool {
        self.counting
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if let Some((class, start)) = self.blocking {
            let now = now_ns();
            COUNTERS.class_ns[class as usize]
                .fetch_add(now.saturating_sub(start), Ordering::Relaxed);
            process_leaves(now);
        }
        DEPTH.with(|depth| depth.set(depth.get().saturating_sub(1)));
    }
}

/// Counts one sent message of `bytes` bytes.
pub fn count_message(bytes: u64) {
    let counter = match SizeClass::of(bytes) {
        SizeClass::Small => &COUNTERS.small,
        SizeClass::Medium => &COUNTERS.medium,
        SizeClass::Large => &COUNTERS.large,
    };
    counter.fetch_add(1, Ordering::Relaxed);
    COUNTERS.bytes.fetch_add(bytes, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counters are process-wide: one test drives them.
    #[test]
    fn only_the_outermost_call_counts_and_only_while_monitoring() {
        let _serial = crate::TEST_LOCK
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let before = COUNTERS.class_ns[Class::Wait as usize].load(Ordering::Relaxed);
        {
            let call = Call::blocking(Class::Wait);
            assert!(call.outermost() && !call.counting(), "not monitoring yet");
        }
        assert_eq!(
            COUNTERS.class_ns[Class::Wait as usize].load(Ordering::Relaxed),
            before
        );
        ACTIVE.store(true, Ordering::Release);
        {
            let outer = Call::blocking(Class::Wait);
            let inner = Call::blocking(Class::Collective);
            assert!(outer.counting() && !inner.counting() && !inner.outermost());
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        ACTIVE.store(false, Ordering::Release);
        let waited = COUNTERS.class_ns[Class::Wait as usize].load(Ordering::Relaxed) - before;
        assert!(waited >= 2_000_000, "{waited} ns");
        assert_eq!(
            COUNTERS.class_ns[Class::Collective as usize].load(Ordering::Relaxed),
            0
        );
        let small = COUNTERS.small.load(Ordering::Relaxed);
        count_message(1023);
        count_message(2 << 20);
        assert_eq!(COUNTERS.small.load(Ordering::Relaxed), small + 1);
        assert_eq!(COUNTERS.large.load(Ordering::Relaxed), 1);
        assert_eq!(THREADS_INSIDE.load(Ordering::Relaxed), 0);
    }
}
