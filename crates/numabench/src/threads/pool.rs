//! The one pool of worker threads: one worker per entry of a plan, each
//! pinned to its CPU (or left unpinned) before it runs any code of the
//! caller's, so before it touches memory. The calling thread is worker 0;
//! workers 1.. wait for jobs between calls, so a job costs a wake-up, not
//! a thread start. The application runtime's `Team` keeps one for a whole
//! run; [`super::run_pinned`] makes one for a single call.

use super::pin::{pin_current_thread, PinError};
use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;

/// A job: a borrowed closure, valid while `Pool::run` waits for it.
#[derive(Clone, Copy)]
struct JobPointer(*const (dyn Fn(usize) + Sync));
// SAFETY: the pointee is Sync and outlives every use (run waits for all workers).
unsafe impl Send for JobPointer {}
// SAFETY: as above.
unsafe impl Sync for JobPointer {}

/// What the caller and the workers share.
struct Shared {
    generation: AtomicU64,
    completed: AtomicUsize,
    job: RwLock<Option<JobPointer>>,
    stop: AtomicBool,
    /// The first panic of a worker in the current job, resumed by the caller.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// Spins briefly, then yields (threads may outnumber CPUs).
fn wait_until(condition: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !condition() {
        if spins < 2000 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// Persistent worker threads, one per planned CPU; the caller is worker 0.
pub struct Pool {
    cpus: Vec<Option<u32>>,
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
    /// The caller's affinity before it was pinned, restored on drop.
    caller_affinity: Option<CpuSet>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Pool")
            .field("cpus", &self.cpus)
            .finish()
    }
}

impl Pool {
    /// Starts one worker per entry of `cpus` (`None` = unpinned; at least
    /// one entry). The calling thread becomes worker 0 and is pinned too
    /// (its previous affinity is restored when the pool is dropped). Fails,
    /// before any job can run, if a thread cannot be started or a CPU
    /// cannot be pinned.
    pub fn new(cpus: Vec<Option<u32>>) -> Result<Self, PinError> {
        assert!(!cpus.is_empty(), "a pool needs at least one worker");
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            completed: AtomicUsize::new(0),
            job: RwLock::new(None),
            stop: AtomicBool::new(false),
            panic: Mutex::new(None),
        });
        let caller_affinity = match cpus[0] {
            Some(cpu) => {
                // Pid 0 is this thread; a mask it cannot read is not restored.
                let previous = sched_getaffinity(Pid::from_raw(0)).ok();
                pin_current_thread(cpu)?;
                previous
            }
            None => None,
        };
        let pinned = Arc::new(AtomicUsize::new(0));
        let pin_failed = Arc::new(Mutex::new(None::<PinError>));
        let mut handles = Vec::new();
        let mut spawn_failed = None;
        for (index, cpu) in cpus.iter().enumerate().skip(1) {
            let (shared, pinned, pin_failed, cpu) = (
                Arc::clone(&shared),
                Arc::clone(&pinned),
                Arc::clone(&pin_failed),
                *cpu,
            );
            let started = std::thread::Builder::new().spawn(move || {
                if let Some(cpu) = cpu {
                    if let Err(error) = pin_current_thread(cpu) {
                        pin_failed.lock().expect("pin lock").get_or_insert(error);
                    }
                }
                pinned.fetch_add(1, Ordering::SeqCst);
                worker_loop(index, &shared);
            });
            match started {
                Ok(handle) => handles.push(handle),
                Err(source) => {
                    // The workers already started are stopped and joined when `pool` drops.
                    spawn_failed = Some(PinError::Spawn {
                        threads: cpus.len(),
                        source,
                    });
                    break;
                }
            }
        }
        let started = handles.len();
        wait_until(|| pinned.load(Ordering::SeqCst) == started);
        let pool = Self {
            cpus,
            shared,
            handles,
            caller_affinity,
        };
        if let Some(error) = spawn_failed {
            return Err(error);
        }
        if let Some(error) = pin_failed.lock().expect("pin lock").take() {
            return Err(error);
        }
        Ok(pool)
    }

    /// Number of workers.
    pub fn threads(&self) -> usize {
        self.cpus.len()
    }

    /// The CPU each worker is pinned to (`None` when unpinned).
    pub fn cpus(&self) -> &[Option<u32>] {
        &self.cpus
    }

    /// Runs `job(worker)` on every worker and returns when all are done. A
    /// panic in any worker is resumed here, after all are done.
    pub fn run<F: Fn(usize) + Sync>(&self, job: F) {
        let job_reference: &(dyn Fn(usize) + Sync) = &job;
        // SAFETY: the lifetime is erased only for the duration of this call: we wait below
        // until every worker has finished with the pointer, then clear it.
        let pointer: *const (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(job_reference) };
        *self.shared.job.write().expect("job lock") = Some(JobPointer(pointer));
        self.shared.completed.store(0, Ordering::SeqCst);
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        let own = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(0)));
        let others = self.threads() - 1;
        wait_until(|| self.shared.completed.load(Ordering::Acquire) == others);
        *self.shared.job.write().expect("job lock") = None;
        if let Err(panic) = own {
            std::panic::resume_unwind(panic);
        }
        // Taken out first: the lock must not be held while the panic unwinds.
        let worker_panic = self.shared.panic.lock().expect("panic lock").take();
        if let Some(panic) = worker_panic {
            std::panic::resume_unwind(panic);
        }
    }
}

/// A worker: waits for each new job, runs it, counts itself done.
fn worker_loop(index: usize, shared: &Shared) {
    let mut seen = 0u64;
    loop {
        wait_until(|| {
            shared.generation.load(Ordering::Acquire) != seen || shared.stop.load(Ordering::Acquire)
        });
        if shared.stop.load(Ordering::Acquire) {
            return;
        }
        seen = shared.generation.load(Ordering::Acquire);
        let job = *shared.job.read().expect("job lock");
        if let Some(JobPointer(pointer)) = job {
            // SAFETY: Pool::run keeps the closure alive until `completed` counts this worker.
            let job = unsafe { &*pointer };
            if let Err(panic) =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(index)))
            {
                shared
                    .panic
                    .lock()
                    .expect("panic lock")
                    .get_or_insert(panic);
            }
        }
        shared.completed.fetch_add(1, Ordering::Release);
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
        if let Some(previous) = self.caller_affinity {
            // Restores this thread's saved affinity mask (pid 0: this thread).
            let _ = sched_setaffinity(Pid::from_raw(0), &previous);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every worker runs each job once, and a worker's panic reaches the
    /// caller with its own message after the others finished.
    #[test]
    fn every_worker_runs_each_job_and_a_panic_reaches_the_caller() {
        let pool = Pool::new(vec![None; 3]).unwrap();
        let runs: Vec<AtomicUsize> = (0..3).map(|_| AtomicUsize::new(0)).collect();
        for _ in 0..100 {
            pool.run(|worker| {
                runs[worker].fetch_add(1, Ordering::Relaxed);
            });
        }
        assert!(runs
            .iter()
            .all(|count| count.load(Ordering::Relaxed) == 100));
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.run(|worker| {
                if worker == 2 {
                    panic!("worker 2 failed");
                }
                runs[worker].fetch_add(1, Ordering::Relaxed);
            })
        }))
        .unwrap_err();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"worker 2 failed"));
        assert_eq!(runs[1].load(Ordering::Relaxed), 101);
        // The pool still works after a panic.
        pool.run(|worker| {
            runs[worker].fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(runs[2].load(Ordering::Relaxed), 101);
    }
}
