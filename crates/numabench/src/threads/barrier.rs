//! A sense-reversing spin barrier: workers released within nanoseconds of
//! each other, so timed regions start together (a futex-based barrier
//! wakes threads one by one, microseconds apart).
//!
//! The barrier can be aborted: a worker that leaves early (an error, a
//! panic, a collective decision to stop on Ctrl-C) calls [`SpinBarrier::abort`]
//! and every thread waiting now or later is released with [`Aborted`]
//! instead of spinning forever for a party that will never arrive.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use thiserror::Error;

/// A barrier wait ended because the barrier was aborted: some party left
/// and the barrier can never complete again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("a worker left early; the barrier was aborted")]
pub struct Aborted;

/// Reusable barrier for a fixed number of threads.
#[derive(Debug)]
pub struct SpinBarrier {
    parties: usize,
    waiting: AtomicUsize,
    sense: AtomicBool,
    aborted: AtomicBool,
}

impl SpinBarrier {
    /// A barrier for `parties` threads (at least 1).
    pub fn new(parties: usize) -> Self {
        Self {
            parties: parties.max(1),
            waiting: AtomicUsize::new(0),
            sense: AtomicBool::new(false),
            aborted: AtomicBool::new(false),
        }
    }

    /// Blocks (spinning) until all parties have arrived, or until the
    /// barrier is aborted. A wait whose parties had all arrived before the
    /// abort still returns `Ok`; every later wait returns `Err(Aborted)`,
    /// so a loop that leaves on `Err` leaves at the same barrier in every
    /// thread.
    pub fn wait(&self) -> Result<(), Aborted> {
        if self.is_aborted() {
            return Err(Aborted);
        }
        let sense = !self.sense.load(Ordering::Acquire);
        if self.waiting.fetch_add(1, Ordering::AcqRel) + 1 == self.parties {
            self.waiting.store(0, Ordering::Release);
            self.sense.store(sense, Ordering::Release);
            return Ok(());
        }
        let mut spins = 0u32;
        loop {
            // Completion is checked first: a barrier that completed is passed even if an
            // abort follows, so no thread is told "aborted" for a round the others passed.
            if self.sense.load(Ordering::Acquire) == sense {
                return Ok(());
            }
            if self.is_aborted() {
                // The aborting thread may have completed this round just before it left: the
                // sense read above can predate its flip, but its abort (stored after the flip)
                // is seen now, so a fresh read of the sense tells whether the round completed.
                if self.sense.load(Ordering::Acquire) == sense {
                    return Ok(());
                }
                return Err(Aborted);
            }
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(1024) {
                // More threads than CPUs: let the late ones run.
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Releases every thread waiting now and makes every later wait fail
    /// with [`Aborted`]. Idempotent; there is no way back.
    pub fn abort(&self) {
        self.aborted.store(true, Ordering::Release);
    }

    /// True once [`SpinBarrier::abort`] was called.
    pub fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::Acquire)
    }
}

/// Aborts a barrier when dropped, so a thread that leaves its work by any
/// path (return, `?`, panic) releases the threads still waiting for it.
#[derive(Debug)]
pub struct AbortOnDrop<'a>(pub &'a SpinBarrier);

impl Drop for AbortOnDrop<'_> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Runs `body` on its own thread and fails (instead of hanging) if it
    /// has not finished within `seconds`.
    fn within(seconds: u64, body: impl FnOnce() + Send + 'static) {
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            body();
            let _ = done.send(());
        });
        finished
            .recv_timeout(Duration::from_secs(seconds))
            .expect("threads still waiting at the barrier: it was not released");
    }

    #[test]
    fn no_thread_passes_before_all_arrive() {
        let barrier = SpinBarrier::new(4);
        let arrived = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for round in 1..=100u64 {
                        arrived.fetch_add(1, Ordering::SeqCst);
                        barrier.wait().unwrap();
                        assert!(arrived.load(Ordering::SeqCst) >= round * 4);
                        barrier.wait().unwrap();
                    }
                });
            }
        });
        assert_eq!(arrived.load(Ordering::SeqCst), 400);
    }

    #[test]
    fn a_thread_that_leaves_with_an_error_releases_the_others() {
        within(20, || {
            let barrier = SpinBarrier::new(4);
            let released = AtomicUsize::new(0);
            let outcomes: Vec<Result<(), String>> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..4)
                    .map(|index| {
                        let (barrier, released) = (&barrier, &released);
                        scope.spawn(move || -> Result<(), String> {
                            let _leaving = AbortOnDrop(barrier);
                            for round in 0..1000 {
                                if index == 2 && round == 10 {
                                    return Err("worker 2 failed".into());
                                }
                                if barrier.wait().is_err() {
                                    released.fetch_add(1, Ordering::SeqCst);
                                    return Ok(());
                                }
                            }
                            Ok(())
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            assert_eq!(released.load(Ordering::SeqCst), 3);
            assert_eq!(outcomes[2], Err("worker 2 failed".to_string()));
        });
    }

    #[test]
    fn an_abort_releases_threads_already_waiting_and_fails_later_waits() {
        within(20, || {
            let barrier = SpinBarrier::new(3);
            std::thread::scope(|scope| {
                let waiters: Vec<_> = (0..2).map(|_| scope.spawn(|| barrier.wait())).collect();
                while barrier.waiting.load(Ordering::SeqCst) < 2 {
                    std::thread::yield_now();
                }
                barrier.abort();
                for waiter in waiters {
                    assert_eq!(waiter.join().unwrap(), Err(Aborted));
                }
            });
            assert_eq!(barrier.wait(), Err(Aborted));
        });
    }
}
