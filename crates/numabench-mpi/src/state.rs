//! This process's counters and transition log, and the per-call guard
//! every wrapper takes.
//!
//! Only the outermost wrapped call of a thread is accounted: a per-thread
//! depth counter makes a wrapper that the MPI library (or another wrapper)
//! reaches from inside an accounted call a plain pass-through, so nothing
//! is counted twice. Blocking time is accounted per class; while at least
//! one thread of the process is inside a blocking call, the process is
//! "inside MPI", and its transitions in and out go to its log.
//!
//! The hot path touches only this process's memory: two tick readings
//! ([`crate::clock`]), plain additions and a store into the log. Below
//! MPI_THREAD_MULTIPLE the MPI standard lets only one thread at a time
//! call MPI, so no lock and no atomic read-modify-write is needed; with
//! MPI_THREAD_MULTIPLE a process-local spin lock serialises the updates.

use crate::buffers::{BufferPages, SAMPLE_BYTES};
use crate::calls::{CallTable, EMPTY_TABLE};
use crate::clock::ticks;
use crate::profile::SizeClass;
use crate::transition_log::Log;
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

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

/// What this process accounts.
#[derive(Debug)]
pub struct Process {
    /// Threads now inside an accounted blocking call.
    pub inside: u32,
    /// True once MPI_Finalize took the figures: nothing changes after.
    pub closed: bool,
    /// Times the process entered and left blocking MPI.
    pub log: Log,
    /// Ticks inside blocking calls, per [`Class`].
    pub class_ticks: [u64; 3],
    pub small: u64,
    pub medium: u64,
    pub large: u64,
    pub bytes: u64,
    /// The CPUs this process was seen running on (bit per CPU, below
    /// [`RAN_CPUS`]): sampled when it enters blocking MPI (the first time
    /// and every [`SAMPLE_EVERY`]th), i.e. where it was computing just
    /// before, and once when monitoring starts.
    pub ran: [u64; RAN_CPUS / 64],
    /// Entries into blocking MPI from outside, for [`SAMPLE_EVERY`].
    entries: u64,
    /// True between `MPI_Pcontrol(0)` and the next `MPI_Pcontrol` with
    /// another level ([`Process::pcontrol`]).
    pub paused: bool,
    /// Ticks spent paused, pauses that ended only.
    pub paused_ticks: u64,
    /// When the pause under way began.
    paused_since: u64,
    /// Per call type figures ([`crate::calls`]).
    pub calls: CallTable,
    /// Where the large send and receive buffers were ([`crate::buffers`]).
    pub buffers: BufferPages,
}

/// Marks a time in the log as a pause or a resume (`MPI_Pcontrol`), not an
/// entry into or exit from blocking MPI. Ticks never reach bit 63 (2^63
/// nanoseconds is 292 years; a TSC at 5 GHz takes 58 years).
pub const PAUSE_MARK: u64 = 1 << 63;

/// The CPU is sampled at the first entry into blocking MPI and every
/// this many after it.
pub const SAMPLE_EVERY: u64 = 16;

/// CPUs the [`Process::ran`] set can name (glibc's CPU_SETSIZE).
pub const RAN_CPUS: usize = 1024;

impl Process {
    const fn new() -> Self {
        Self {
            inside: 0,
            closed: false,
            log: Log::new(
                crate::transition_log::CHUNK,
                crate::transition_log::MEMORY_CHUNKS,
            ),
            class_ticks: [0; 3],
            small: 0,
            medium: 0,
            large: 0,
            bytes: 0,
            ran: [0; RAN_CPUS / 64],
            entries: 0,
            paused: false,
            paused_ticks: 0,
            paused_since: 0,
            calls: EMPTY_TABLE,
            buffers: BufferPages {
                local: 0,
                remote: 0,
                absent: 0,
                large_buffers: 0,
                sampled_buffers: 0,
            },
        }
    }

    /// A blocking call entered from outside MPI: one entry in
    /// [`SAMPLE_EVERY`] samples the CPU (sched_getcpu costs about 8 ns
    /// through the vDSO here, no system call).
    #[inline]
    fn sample_on_entry(&mut self) {
        if self.inside == 0 && !self.closed {
            if self.entries.is_multiple_of(SAMPLE_EVERY) {
                self.sample_cpu();
            }
            self.entries += 1;
        }
    }

    /// Notes the CPU this thread runs on now. `sched_getcpu` reads the
    /// kernel's rseq area or the vDSO (glibc 2.35+ on x86_64): no system
    /// call, about 8 ns on the test VM.
    #[inline]
    pub fn sample_cpu(&mut self) {
        // SAFETY: no arguments; returns -1 on failure.
        let cpu = unsafe { libc::sched_getcpu() };
        if (0..RAN_CPUS as i32).contains(&cpu) {
            self.ran[cpu as usize / 64] |= 1 << (cpu as usize % 64);
        }
    }

    /// The CPUs of [`Process::ran`], in order.
    pub fn ran_cpus(&self) -> Vec<u32> {
        (0..RAN_CPUS)
            .filter(|&cpu| self.ran[cpu / 64] & (1 << (cpu % 64)) != 0)
            .map(|cpu| cpu as u32)
            .collect()
    }

    /// A thread enters a blocking call at `now`.
    #[inline]
    pub fn enter(&mut self, now: u64) {
        if self.closed {
            return;
        }
        if self.inside == 0 {
            self.log.push(now);
        }
        self.inside += 1;
    }

    /// A thread leaves a blocking call of `class` begun at `start`.
    #[inline]
    fn leave(&mut self, class: Class, start: u64, now: u64) {
        if self.closed {
            return;
        }
        if !self.paused {
            let class_ticks = self.class_ticks[class as usize] + now.saturating_sub(start);
            self.class_ticks[class as usize] = class_ticks;
            MIRROR[class as usize].store(class_ticks, Ordering::Relaxed);
        }
        self.inside = self.inside.saturating_sub(1);
        if self.inside == 0 {
            self.log.push(now);
        }
    }

    /// `MPI_Pcontrol(level)` at `now`: level 0 pauses this rank's
    /// profile, any other level resumes it (as mpiP's `MPI_Pcontrol` stops
    /// and restarts its profiling and its application clock). While paused
    /// nothing counts: blocking time, messages, bytes, the per-call table,
    /// and the rank's wall time (less [`Process::paused_ticks`]). A change
    /// is logged as a time marked with [`PAUSE_MARK`]; a repeated level
    /// changes nothing. The host's levels count only the time during which
    /// none of its ranks is paused ([`crate::levels`]).
    pub fn pcontrol(&mut self, level: i32, now: u64) {
        let pause = level == 0;
        if self.closed || pause == self.paused {
            return;
        }
        self.log.push(now | PAUSE_MARK);
        self.paused = pause;
        if pause {
            self.paused_since = now;
        } else {
            self.paused_ticks += now.saturating_sub(self.paused_since);
            MIRROR[7].store(self.paused_ticks, Ordering::Relaxed);
        }
    }

    /// Ends a pause under way at `now` (MPI_Finalize while paused), so that
    /// [`Process::paused_ticks`] holds every pause.
    pub fn end_pause(&mut self, now: u64) {
        if self.paused {
            self.paused_ticks += now.saturating_sub(self.paused_since);
            self.paused_since = now;
        }
    }

    /// Counts one sent message of `bytes` bytes (not while paused).
    fn message(&mut self, bytes: u64) {
        if self.paused || self.closed {
            return;
        }
        let (count, index) = match SizeClass::of(bytes) {
            SizeClass::Small => (&mut self.small, 3),
            SizeClass::Medium => (&mut self.medium, 4),
            SizeClass::Large => (&mut self.large, 5),
        };
        *count += 1;
        MIRROR[index].store(*count, Ordering::Relaxed);
        self.bytes += bytes;
        MIRROR[6].store(self.bytes, Ordering::Relaxed);
    }
}

/// A copy of the counters that another thread may read while the rank
/// runs (the periodic partial snapshots): `class_ticks` 0..3, then small,
/// medium, large, bytes and the ticks of the pauses that ended. Plain
/// relaxed stores by the one writer (a `mov` on x86_64), no
/// read-modify-write, no system call.
static MIRROR: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];

/// The counters as last stored: (`class_ticks`, [small, medium, large,
/// bytes], paused ticks); may lag the calls under way by one.
pub fn mirrored() -> ([u64; 3], [u64; 4], u64) {
    let read = |index: usize| MIRROR[index].load(Ordering::Relaxed);
    (
        [read(0), read(1), read(2)],
        [read(3), read(4), read(5), read(6)],
        read(7),
    )
}

/// The process's [`Process`], reached only through [`with_process`].
struct ProcessCell(UnsafeCell<Process>);

// SAFETY: every access goes through `with_process`, which serialises the
// threads (see there).
unsafe impl Sync for ProcessCell {}

static PROCESS: ProcessCell = ProcessCell(UnsafeCell::new(Process::new()));

/// True when the MPI library provides MPI_THREAD_MULTIPLE to this process.
static MULTIPLE: AtomicBool = AtomicBool::new(false);
/// The spin lock taken under MPI_THREAD_MULTIPLE.
static LOCK: AtomicBool = AtomicBool::new(false);

/// True between the end of MPI_Init's setup and MPI_Finalize.
pub static ACTIVE: AtomicBool = AtomicBool::new(false);

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Says whether threads may call MPI concurrently (MPI_THREAD_MULTIPLE);
/// set before monitoring starts.
pub fn set_multiple(multiple: bool) {
    MULTIPLE.store(multiple, Ordering::Release);
}

/// Releases the spin lock when dropped.
struct Unlock(bool);

impl Drop for Unlock {
    fn drop(&mut self) {
        if self.0 {
            LOCK.store(false, Ordering::Release);
        }
    }
}

/// Runs `update` on this process's figures, alone. `update` must not call
/// `with_process` itself.
#[inline]
pub fn with_process<R>(update: impl FnOnce(&mut Process) -> R) -> R {
    let multiple = MULTIPLE.load(Ordering::Acquire);
    if multiple {
        while LOCK.swap(true, Ordering::Acquire) {
            std::hint::spin_loop();
        }
    }
    let _unlock = Unlock(multiple);
    // SAFETY: no other thread is in here: under MPI_THREAD_MULTIPLE the
    // spin lock excludes them; below it only one thread at a time may be
    // inside an MPI call (the standard's contract for SINGLE, FUNNELED and
    // SERIALIZED), and this runs only inside wrapped MPI calls (and the
    // unit tests, serialised by TEST_LOCK). `update` does not re-enter.
    update(unsafe { &mut *PROCESS.0.get() })
}

/// One wrapped call; accounting happens when it is dropped.
#[derive(Debug)]
pub struct Call {
    /// The outermost wrapped call of this thread.
    outermost: bool,
    /// The outermost call of this thread while monitoring.
    counting: bool,
    blocking: Option<Class>,
    /// The call's slot in the per-call table ([`crate::calls::call_id`])
    /// and the tick it began at, when it is counted there.
    timed: Option<(usize, u64)>,
    /// The bytes its arguments name ([`Call::add_bytes`]).
    bytes: u64,
}

impl Call {
    #[inline]
    fn enter(class: Option<Class>, id: Option<usize>) -> Self {
        let depth = DEPTH.with(|depth| {
            let outer = depth.get();
            depth.set(outer + 1);
            outer
        });
        let counting = depth == 0 && ACTIVE.load(Ordering::Acquire);
        let mut call = Self {
            outermost: depth == 0,
            counting,
            blocking: None,
            timed: None,
            bytes: 0,
        };
        if !counting {
            return call;
        }
        let now = match class {
            Some(class) => {
                call.blocking = Some(class);
                // One tick reading for the call's time and the log.
                with_process(|process| {
                    let now = ticks();
                    process.sample_on_entry();
                    process.enter(now);
                    now
                })
            }
            None if id.is_some() => ticks(),
            None => 0,
        };
        call.timed = id.map(|id| (id, now));
        call
    }

    /// A blocking call of `class`, the wrapper of slot `id`: timed, and
    /// the process is inside MPI until it returns.
    #[inline]
    pub fn blocking(class: Class, id: usize) -> Self {
        Self::enter(Some(class), Some(id))
    }

    /// A call that returns at once (MPI_Isend), the wrapper of slot `id`:
    /// timed for the per-call table only (the process is not waiting).
    #[inline]
    pub fn returning(id: usize) -> Self {
        Self::enter(None, Some(id))
    }

    /// A call the monitor does not profile (MPI_Init, MPI_Finalize,
    /// MPI_Pcontrol): not timed, but what it reaches inside is not
    /// accounted either.
    #[inline]
    pub fn immediate() -> Self {
        Self::enter(None, None)
    }

    /// Adds `bytes` to what the call's arguments name (per-call table).
    #[inline]
    pub fn add_bytes(&mut self, bytes: u64) {
        self.bytes += bytes;
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
    #[inline]
    fn drop(&mut self) {
        if let Some((id, start)) = self.timed {
            let (blocking, bytes) = (self.blocking, self.bytes);
            with_process(|process| {
                let now = ticks();
                if let Some(class) = blocking {
                    process.leave(class, start, now);
                }
                if !process.paused && !process.closed {
                    process.calls[id].add(now.saturating_sub(start), bytes);
                }
            });
        }
        DEPTH.with(|depth| depth.set(depth.get().saturating_sub(1)));
    }
}

/// Counts one sent message of `bytes` bytes.
pub fn count_message(bytes: u64) {
    with_process(|process| process.message(bytes));
}

/// A send or receive buffer of `bytes` bytes at `address`, made by a
/// counted call: large ones are sampled in turn ([`BufferPages::consider`]),
/// not while paused.
#[inline]
pub fn sample_buffer(address: *const std::os::raw::c_void, bytes: u64) {
    if bytes < SAMPLE_BYTES {
        return;
    }
    with_process(|process| {
        if !process.paused && !process.closed {
            process.buffers.consider(address, bytes);
        }
    });
}

/// `MPI_Pcontrol(level)` now ([`Process::pcontrol`]).
pub fn pcontrol(level: i32) {
    with_process(|process| process.pcontrol(level, ticks()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures are process-wide: one test drives them.
    #[test]
    fn only_the_outermost_call_counts_and_only_while_monitoring() {
        let _serial = crate::TEST_LOCK
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let wait = |process: &mut Process| process.class_ticks[Class::Wait as usize];
        let before = with_process(wait);
        let logged = with_process(|process| process.log.len());
        {
            let call = Call::blocking(Class::Wait, crate::calls::call_id("MPI_Wait"));
            assert!(call.outermost() && !call.counting(), "not monitoring yet");
        }
        assert_eq!(with_process(wait), before);
        ACTIVE.store(true, Ordering::Release);
        for multiple in [false, true] {
            set_multiple(multiple);
            let outer = Call::blocking(Class::Wait, crate::calls::call_id("MPI_Wait"));
            let inner = Call::blocking(Class::Collective, crate::calls::call_id("MPI_Barrier"));
            assert!(outer.counting() && !inner.counting() && !inner.outermost());
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        set_multiple(false);
        ACTIVE.store(false, Ordering::Release);
        // Ticks are nanoseconds here (the TSC is chosen only by MPI_Init).
        let waited = with_process(wait) - before;
        assert!(waited >= 4_000_000, "{waited} ns");
        with_process(|process| {
            assert_eq!(process.class_ticks[Class::Collective as usize], 0);
            assert_eq!(process.inside, 0);
            // Two outermost calls: in, out, in, out; the inner ones none.
            let log = process.log.to_vec().unwrap();
            assert_eq!(log.len(), logged + 4);
            assert!(log[logged..].windows(2).all(|pair| pair[0] <= pair[1]));
        });
        let small = with_process(|process| process.small);
        let large = with_process(|process| process.large);
        count_message(1023);
        count_message(2 << 20);
        assert_eq!(with_process(|process| process.small), small + 1);
        assert_eq!(with_process(|process| process.large), large + 1);
        // Entering blocking MPI noted where this thread ran.
        // SAFETY: no arguments.
        let here = unsafe { libc::sched_getcpu() } as u32;
        let ran = with_process(|process| process.ran_cpus());
        assert!(!ran.is_empty(), "no CPU sampled (here {here})");
    }

    /// Issue 21 item 11: `MPI_Pcontrol` logs a marked time when a rank
    /// pauses (level 0) or resumes (any other level), once per change, and
    /// nothing after MPI_Finalize closed the log.
    #[test]
    fn pcontrol_marks_each_pause_and_resume_once() {
        let mut process = Process::new();
        process.pcontrol(1, 5); // not paused: nothing changes
        process.pcontrol(0, 10);
        process.pcontrol(0, 20);
        process.enter(30);
        process.pcontrol(2, 40);
        process.pcontrol(1, 50);
        process.closed = true;
        process.pcontrol(0, 60);
        let log = process.log.to_vec().unwrap();
        assert_eq!(log, vec![10 | PAUSE_MARK, 30, 40 | PAUSE_MARK]);
        assert!(!process.paused);
    }

    /// Several threads in blocking calls at once (MPI_THREAD_MULTIPLE):
    /// the process is inside from the first one's entry to the last one's
    /// exit, and every thread's time counts.
    #[test]
    fn threads_inside_at_once_make_one_stay_inside() {
        let _serial = crate::TEST_LOCK
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        ACTIVE.store(true, Ordering::Release);
        set_multiple(true);
        let logged = with_process(|process| process.log.len());
        let p2p = with_process(|process| process.class_ticks[Class::P2p as usize]);
        let barrier = std::sync::Barrier::new(4);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    let _call = Call::blocking(Class::P2p, crate::calls::call_id("MPI_Recv"));
                    barrier.wait();
                    std::thread::sleep(std::time::Duration::from_millis(5));
                });
            }
        });
        set_multiple(false);
        ACTIVE.store(false, Ordering::Release);
        with_process(|process| {
            assert_eq!(process.inside, 0);
            assert_eq!(process.log.len(), logged + 2, "one stay inside");
            assert!(process.class_ticks[Class::P2p as usize] - p2p >= 4 * 5_000_000);
        });
    }
}
