//! Waiting on MPI messages without busy-polling and without hanging.
//!
//! OpenMPI's blocking receive spins on its progress engine: a rank waiting
//! for its turn, or idle for the whole run, would take a CPU from the host
//! it shares with the rank that measures (issue 21, item 17). And a blocking
//! send or receive to a rank that stopped never returns (item 14). So every
//! wait here is a non-blocking test in a loop: [`Pace::Idle`] sleeps
//! between tests (backing off to [`IDLE_SLEEP_MAX`]), [`Pace::Spin`] does
//! not (the two ends of a ping-pong, whose answers come within
//! microseconds and are timed). Every wait may have a deadline; past it
//! the caller learns [`TimedOut`] and names the silent rank.

use mpi::point_to_point::{Destination, MatchedReceiveVec, Message, Source, Status};
use mpi::request::StaticScope;
use mpi::Tag;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest sleep between two tests of an idle wait: a waiting rank
/// wakes at most every this long (well under 1% of a CPU), and answers
/// that much late at worst.
pub const IDLE_SLEEP_MAX: Duration = Duration::from_millis(5);

/// The first sleep of an idle wait (doubled up to [`IDLE_SLEEP_MAX`]).
const IDLE_SLEEP_MIN: Duration = Duration::from_micros(50);

/// How long a [`Pace::Spin`] wait spins before it sleeps like an idle one:
/// a ping-pong answer takes microseconds, a peer silent this long is
/// probably stopped.
pub const SPIN_FOR: Duration = Duration::from_millis(50);

/// How a wait polls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Sleep between tests: for ranks waiting for their turn or a command.
    Idle,
    /// Test again at once: for the timed ends of a ping-pong (after
    /// [`SPIN_FOR`] without an answer, as [`Pace::Idle`]).
    Spin,
}

/// The peer did not answer before the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut;

/// One wait: its deadline and its pace.
#[derive(Debug, Clone, Copy)]
pub struct Wait {
    pub deadline: Option<Instant>,
    pub pace: Pace,
}

impl Wait {
    /// An idle wait without a deadline.
    pub fn idle() -> Self {
        Self {
            deadline: None,
            pace: Pace::Idle,
        }
    }

    /// A wait that gives up `limit` from now.
    pub fn within(limit: Duration, pace: Pace) -> Self {
        Self {
            deadline: Some(Instant::now() + limit),
            pace,
        }
    }

    /// Tests `ready` until it gives a value or the deadline passes.
    pub fn until<T>(&self, mut ready: impl FnMut() -> Option<T>) -> Result<T, TimedOut> {
        let mut sleep = IDLE_SLEEP_MIN;
        let start = Instant::now();
        loop {
            if let Some(value) = ready() {
                return Ok(value);
            }
            if self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
            {
                return Err(TimedOut);
            }
            if self.pace == Pace::Idle || start.elapsed() > SPIN_FOR {
                std::thread::sleep(sleep);
                sleep = (sleep * 2).min(IDLE_SLEEP_MAX);
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

/// Receives the next message with `tag` (any tag: `None`) from `source`.
pub fn receive(
    source: &impl Source,
    tag: Option<Tag>,
    wait: Wait,
) -> Result<(Vec<u8>, Status), TimedOut> {
    let (message, status) = probe(source, tag, wait)?;
    let (bytes, _) = (message, status).matched_receive_vec::<u8>();
    Ok((bytes, status))
}

/// Waits until a message with `tag` (any: `None`) from `source` has
/// arrived, and holds it for a matched receive.
pub fn probe(
    source: &impl Source,
    tag: Option<Tag>,
    wait: Wait,
) -> Result<(Message, Status), TimedOut> {
    wait.until(|| match tag {
        Some(tag) => source.immediate_matched_probe_with_tag(tag),
        None => source.immediate_matched_probe(),
    })
}

/// Bytes every ping-pong message is sent from (their content does not
/// matter): leaked, so that a send given up at its deadline, which MPI may
/// still read from, never reads freed memory. Grown (the old one leaked
/// too) when a larger message is asked for.
static OUTGOING: Mutex<&'static [u8]> = Mutex::new(&[]);

/// `bytes` bytes that live as long as the process.
fn outgoing(bytes: usize) -> &'static [u8] {
    let mut current = OUTGOING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if current.len() < bytes {
        *current = Box::leak(vec![1u8; bytes].into_boxed_slice());
    }
    &current[..bytes]
}

/// Sends `bytes` bytes to `destination` with `tag`, giving up at the
/// deadline (the request is then left to MPI: the job ends with the silent
/// rank named).
pub fn send_bytes(
    destination: &impl Destination,
    bytes: usize,
    tag: Tag,
    wait: Wait,
) -> Result<(), TimedOut> {
    let mut request = Some(destination.immediate_send_with_tag(StaticScope, outgoing(bytes), tag));
    let result = wait.until(|| match request.take()?.test() {
        Ok(_) => Some(()),
        Err(pending) => {
            request = Some(pending);
            None
        }
    });
    if let Some(pending) = request {
        // Given up: MPI may still read the (leaked, static) buffer; a
        // request dropped uncompleted would panic.
        std::mem::forget(pending);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_wait_sleeps_and_gives_up_at_its_deadline() {
        let wait = Wait::within(Duration::from_millis(60), Pace::Idle);
        let mut tests = 0;
        let start = Instant::now();
        let result: Result<(), TimedOut> = wait.until(|| {
            tests += 1;
            None
        });
        assert_eq!(result, Err(TimedOut));
        assert!(start.elapsed() >= Duration::from_millis(60));
        // Backing off to 5 ms sleeps: a few dozen tests, not millions.
        assert!(tests < 60, "{tests} tests in 60 ms");
        let mut countdown = 3;
        let found = Wait::idle().until(|| {
            countdown -= 1;
            (countdown == 0).then_some(7)
        });
        assert_eq!(found, Ok(7));
    }

    #[test]
    fn outgoing_bytes_grow_and_stay() {
        let small = outgoing(8);
        assert_eq!(small.len(), 8);
        let large = outgoing(1 << 16);
        assert_eq!(large.len(), 1 << 16);
        // The first one is still readable (leaked, never freed).
        assert!(small.iter().all(|&b| b == 1));
    }
}
