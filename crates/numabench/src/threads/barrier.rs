//! A sense-reversing spin barrier: workers released within nanoseconds of
//! each other, so timed regions start together (a futex-based barrier
//! wakes threads one by one, microseconds apart).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Reusable barrier for a fixed number of threads.
#[derive(Debug)]
pub struct SpinBarrier {
    parties: usize,
    waiting: AtomicUsize,
    sense: AtomicBool,
}

impl SpinBarrier {
    /// A barrier for `parties` threads (at least 1).
    pub fn new(parties: usize) -> Self {
        Self {
            parties: parties.max(1),
            waiting: AtomicUsize::new(0),
            sense: AtomicBool::new(false),
        }
    }

    /// Blocks (spinning) until all parties have arrived.
    pub fn wait(&self) {
        let sense = !self.sense.load(Ordering::Acquire);
        if self.waiting.fetch_add(1, Ordering::AcqRel) + 1 == self.parties {
            self.waiting.store(0, Ordering::Release);
            self.sense.store(sense, Ordering::Release);
        } else {
            let mut spins = 0u32;
            while self.sense.load(Ordering::Acquire) != sense {
                spins = spins.wrapping_add(1);
                if spins.is_multiple_of(1024) {
                    // More threads than CPUs: let the late ones run.
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn no_thread_passes_before_all_arrive() {
        let barrier = SpinBarrier::new(4);
        let arrived = AtomicU64::new(0);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for round in 1..=100u64 {
                        arrived.fetch_add(1, Ordering::SeqCst);
                        barrier.wait();
                        assert!(arrived.load(Ordering::SeqCst) >= round * 4);
                        barrier.wait();
                    }
                });
            }
        });
        assert_eq!(arrived.load(Ordering::SeqCst), 400);
    }
}
