//! One call of work on a pinned worker per CPU of a plan, with a shared
//! barrier: the micro-benchmarks' way of running threads, served by the
//! one [`Pool`] (made for the call, so every worker is pinned before it
//! touches memory).

use super::barrier::{AbortOnDrop, SpinBarrier};
use super::pin::{current_cpu, PinError};
use super::pool::Pool;
use std::sync::Mutex;

/// What a worker knows about itself.
#[derive(Debug)]
pub struct WorkerContext<'a> {
    /// 0-based index of the worker in the plan.
    pub index: usize,
    /// The CPU it is pinned to.
    pub cpu: u32,
    /// Number of workers.
    pub workers: usize,
    /// Barrier shared by all workers.
    pub barrier: &'a SpinBarrier,
}

impl WorkerContext<'_> {
    /// True if the worker still runs on its CPU (checked with sched_getcpu).
    pub fn on_its_cpu(&self) -> bool {
        current_cpu() == self.cpu
    }
}

/// Runs `work` on one worker per entry of `cpus` (the calling thread is
/// the first), each pinned to its CPU first, and returns their results in
/// plan order. Fails if a thread cannot be started or any CPU cannot be
/// pinned (the work then does not run anywhere), and if a worker is no
/// longer on its CPU when its work ends (checked with sched_getcpu). The
/// caller's affinity is restored before it returns.
///
/// A worker whose work ends (returns, fails or panics) aborts the shared
/// barrier, so peers waiting for it are released with
/// [`Aborted`](super::barrier::Aborted) instead of spinning forever; work
/// must leave its loops when a wait fails.
pub fn run_pinned<T, F>(cpus: &[u32], work: F) -> Result<Vec<T>, PinError>
where
    T: Send,
    F: Fn(&WorkerContext<'_>) -> T + Sync,
{
    if cpus.is_empty() {
        return Ok(Vec::new());
    }
    let pool = Pool::new(cpus.iter().copied().map(Some).collect())?;
    let barrier = SpinBarrier::new(cpus.len());
    let results: Vec<Mutex<Option<Result<T, PinError>>>> =
        cpus.iter().map(|_| Mutex::new(None)).collect();
    pool.run(|index| {
        let cpu = cpus[index];
        let context = WorkerContext {
            index,
            cpu,
            workers: cpus.len(),
            barrier: &barrier,
        };
        let output = {
            let _leaving = AbortOnDrop(&barrier);
            work(&context)
        };
        let actual = current_cpu();
        let result = match actual == cpu {
            true => Ok(output),
            false => Err(PinError::LeftCpu {
                expected: cpu,
                actual,
            }),
        };
        *results[index].lock().expect("result lock") = Some(result);
    });
    drop(pool);
    results
        .into_iter()
        .map(|result| {
            result
                .into_inner()
                .expect("result lock")
                .expect("every worker ran")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed_cpus() -> Vec<u32> {
        let topology = crate::topology::discover_this_system().unwrap();
        topology.allowed.cpus
    }

    #[test]
    fn every_worker_runs_on_its_cpu() {
        let cpus = allowed_cpus();
        let seen = run_pinned(&cpus, |worker| {
            worker.barrier.wait().unwrap();
            (worker.index, worker.cpu, current_cpu(), worker.on_its_cpu())
        })
        .unwrap();
        assert_eq!(seen.len(), cpus.len());
        for (index, (worker_index, cpu, actual, on_cpu)) in seen.into_iter().enumerate() {
            assert_eq!(worker_index, index);
            assert_eq!(cpu, cpus[index]);
            assert_eq!(actual, cpu, "sched_getcpu inside worker {index}");
            assert!(on_cpu);
        }
    }

    #[test]
    fn a_worker_moved_off_its_cpu_during_its_work_is_an_error() {
        let cpus = allowed_cpus();
        if cpus.len() < 2 {
            eprintln!("needs two allowed CPUs; this machine has one: nothing to move to");
            return;
        }
        // The worker re-pins itself elsewhere, as a cpuset change from outside would move it.
        let error = run_pinned(&cpus[..1], |_| {
            crate::threads::pin::pin_current_thread(cpus[1]).unwrap()
        })
        .unwrap_err();
        assert!(
            matches!(error, PinError::LeftCpu { expected, actual } if expected == cpus[0] && actual == cpus[1]),
            "{error}"
        );
    }

    #[test]
    fn a_cpu_outside_the_machine_fails_cleanly() {
        let error = run_pinned(&[0, 100_000], |_| ()).unwrap_err();
        assert!(error.to_string().contains("100000"), "{error}");
    }

    #[test]
    fn a_worker_that_leaves_early_releases_the_others_waiting_at_the_barrier() {
        let cpu = allowed_cpus()[0];
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            // Four workers on one CPU: worker 3 stops after 5 rounds, the others would wait
            // for it forever without the abort.
            let rounds = run_pinned(&[cpu; 4], |worker| {
                let mut rounds = 0;
                while rounds < 1000 {
                    if worker.index == 3 && rounds == 5 {
                        break;
                    }
                    if worker.barrier.wait().is_err() {
                        break;
                    }
                    rounds += 1;
                }
                rounds
            });
            let _ = done.send(rounds);
        });
        let rounds = finished
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("workers still waiting for the one that left")
            .unwrap();
        assert_eq!(rounds, vec![5; 4]);
    }
}
