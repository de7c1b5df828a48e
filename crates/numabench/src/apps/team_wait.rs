//! How a team's threads wait for each other between phases: spin for a
//! short while (a kernel phase usually ends within microseconds of its
//! neighbours), then sleep until woken.
//!
//! Spinning or yielding without end is what a dedicated machine tolerates
//! and a shared one punishes: a waiter that keeps running uses up its share
//! of the CPU, so when its worker has work again the scheduler puts it
//! behind the other programs on that CPU, and every phase of a kernel then
//! waits for the slowest of those delays. OpenMP runtimes spin and then
//! sleep for the same reason (libgomp: OMP_WAIT_POLICY, GOMP_SPINCOUNT).

use std::time::{Duration, Instant};

/// How long a waiter spins before it sleeps.
pub(super) const SPIN: Duration = Duration::from_micros(50);

/// The longest single sleep: a waiter re-checks its condition at least this
/// often even if a wake-up were lost (every path that makes a condition
/// true also wakes its waiter, see `Team::run`).
const NAP: Duration = Duration::from_millis(1);

/// Returns once `condition()` holds: spins for up to [`SPIN`], then parks
/// (woken by `Thread::unpark` from the thread that makes it true).
pub(super) fn spin_then_park(condition: impl Fn() -> bool) {
    let start = Instant::now();
    let mut spins = 0u32;
    while !condition() {
        spins = spins.wrapping_add(1);
        if !spins.is_multiple_of(32) || start.elapsed() < SPIN {
            std::hint::spin_loop();
        } else {
            std::thread::park_timeout(NAP);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::apps::{plan_cpus, PlacementScheme, Team, ThreadScheme};
    use crate::topology::discover_this_system;
    use std::sync::Mutex;
    use std::time::Duration;

    /// CPU time and voluntary context switches (times it slept) of the
    /// calling thread.
    fn thread_cpu_seconds() -> (f64, i64) {
        // SAFETY: timespec is plain data; clock_gettime fills it.
        let mut time: libc::timespec = unsafe { std::mem::zeroed() };
        // SAFETY: a valid clock id and pointer.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
        let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
        let sleeps = status
            .lines()
            .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        (time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9, sleeps)
    }

    /// A waiting worker and a waiting caller sleep: over 300 ms of waiting
    /// each went to sleep again and again (a spinning or yielding waiter
    /// does not) and used
    /// well under a third of that in CPU time (a spinning or yielding waiter
    /// uses all of it on an idle CPU).
    #[test]
    fn waiting_workers_and_callers_sleep() {
        let topology = discover_this_system().unwrap();
        let cpus = plan_cpus(&topology, ThreadScheme::Unpinned, 2, 1);
        let team = Team::new(&topology, cpus, PlacementScheme::FirstTouch).unwrap();
        let pause = Duration::from_millis(300);
        let worker_cpu = Mutex::new(Vec::new());
        let sample = |worker: usize| {
            if worker == 1 {
                worker_cpu.lock().unwrap().push(thread_cpu_seconds());
            }
        };
        // Worker 1 waits between two jobs while the caller sleeps.
        team.run(sample);
        std::thread::sleep(pause);
        team.run(sample);
        let samples = worker_cpu.lock().unwrap().clone();
        let worker_waiting = samples[1].0 - samples[0].0;
        let worker_sleeps = samples[1].1 - samples[0].1;
        // The caller waits inside run while worker 1 sleeps.
        let before = thread_cpu_seconds();
        team.run(|worker| {
            if worker == 1 {
                std::thread::sleep(pause);
            }
        });
        let after = thread_cpu_seconds();
        let (caller_waiting, caller_sleeps) = (after.0 - before.0, after.1 - before.1);
        // Naps of at most NAP (1 ms): 300 ms of waiting is many sleeps, while a
        // spinning or yielding waiter sleeps at most at the job hand-overs.
        let naps = 10;
        assert!(
            worker_sleeps >= naps,
            "the waiting worker slept {worker_sleeps} times"
        );
        assert!(
            caller_sleeps >= naps,
            "the waiting caller slept {caller_sleeps} times"
        );
        let limit = pause.as_secs_f64() / 3.0;
        assert!(
            worker_waiting < limit,
            "worker used {worker_waiting} s of CPU while waiting"
        );
        assert!(
            caller_waiting < limit,
            "caller used {caller_waiting} s of CPU while waiting"
        );
    }
}
