//! A host's time at each level (how many of its ranks were outside
//! blocking MPI), exactly, from its ranks' transition logs.
//!
//! Every rank starts outside MPI at the host's start; its log
//! ([`crate::transition_log`]) alternates enter, leave, enter, ... The
//! logs are merged in time order (a k-way merge: memory for one chunk per
//! rank, not the whole logs) and every interval between two consecutive
//! transitions is added to the level the host was at: event accounting,
//! no sampling. Times are ticks of one counter that all the host's ranks
//! read ([`crate::clock`]), so transitions of different ranks order
//! correctly.
//!
//! Times marked with [`PAUSE_MARK`] are a rank's `MPI_Pcontrol` pauses and
//! resumes (alternating, a pause first): an interval counts only while no
//! rank of the host is paused, so a program that brackets its region of
//! interest with `MPI_Pcontrol(1)` and `MPI_Pcontrol(0)` gets the levels of
//! that region alone (the time every rank is inside it).

use crate::state::PAUSE_MARK;
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

/// Ticks spent at each level 0..=ranks between `start` and `end`, for
/// `ranks` ranks whose logs `logs` yields: one exact level per possible
/// count of ranks outside, at any number of ranks (8 bytes per level).
/// Times outside [start, end] count as at its bounds. While any rank is
/// paused (see the module documentation) no level counts.
pub fn levels<I>(start: u64, end: u64, ranks: usize, logs: Vec<I>) -> Vec<u64>
where
    I: Iterator<Item = u64>,
{
    let end = end.max(start);
    let mut level_ticks = vec![0u64; ranks.max(logs.len()) + 1];
    let highest = (level_ticks.len() - 1) as i64;
    let mut logs = logs;
    // (next time, rank, whether it is a pause mark).
    let entry = |marked: u64, rank: usize| {
        Reverse((
            (marked & !PAUSE_MARK).clamp(start, end),
            rank,
            marked & PAUSE_MARK != 0,
        ))
    };
    let mut heap = BinaryHeap::new();
    // Per rank: transitions in and out of MPI so far (its parity says which
    // way the next one goes), and whether it is paused.
    let mut position = vec![0u64; logs.len()];
    let mut paused = vec![false; logs.len()];
    for (rank, log) in logs.iter_mut().enumerate() {
        if let Some(marked) = log.next() {
            heap.push(entry(marked, rank));
        }
    }
    let mut outside = ranks as i64;
    let mut ranks_paused = 0usize;
    let mut last = start;
    // The earliest next time is replaced in place (one sift per event).
    while let Some(mut top) = heap.peek_mut() {
        let Reverse((time, rank, pause)) = *top;
        // A log out of order (it should not be) counts as at its last time.
        let time = time.max(last);
        if ranks_paused == 0 {
            level_ticks[outside.clamp(0, highest) as usize] += time - last;
        }
        last = time;
        if pause {
            paused[rank] = !paused[rank];
            if paused[rank] {
                ranks_paused += 1;
            } else {
                ranks_paused -= 1;
            }
        } else {
            outside += if position[rank].is_multiple_of(2) {
                -1
            } else {
                1
            };
            position[rank] += 1;
        }
        match logs[rank].next() {
            Some(next) => *top = entry(next, rank),
            None => {
                PeekMut::pop(top);
            }
        }
    }
    if ranks_paused == 0 {
        level_ticks[outside.clamp(0, highest) as usize] += end - last;
    }
    level_ticks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_interval_counts_once_at_the_level_it_had() {
        // Two ranks from 0 to 10000: rank 0 inside 1600..3200 and from
        // 8000 on; rank 1 inside 4800..9000.
        let rank0 = vec![1600, 3200, 8000];
        let rank1 = vec![4800, 9000];
        let level = levels(0, 10_000, 2, vec![rank0.into_iter(), rank1.into_iter()]);
        assert_eq!(level[2], 1600 + 1600); // 0..1600, 3200..4800
        assert_eq!(level[1], 1600 + 3200 + 1000); // 1600..3200, 4800..8000, 9000..
        assert_eq!(level[0], 1000); // 8000..9000
        assert_eq!(level.iter().sum::<u64>(), 10_000);
        assert_eq!(level.len(), 3);
    }

    #[test]
    fn no_transitions_is_all_ranks_outside_and_times_stay_in_bounds() {
        let quiet = levels(100, 400, 3, vec![std::iter::empty::<u64>(); 3]);
        assert_eq!(quiet[3], 300);
        assert_eq!(quiet.iter().sum::<u64>(), 300);
        // A time before the start or after the end counts at the bound.
        let bounded = levels(100, 400, 1, vec![vec![50, 500].into_iter()]);
        assert_eq!(bounded[0], 300);
        assert_eq!(bounded.iter().sum::<u64>(), 300);
    }

    #[test]
    fn every_count_of_ranks_outside_has_its_own_level_at_any_size() {
        // Issue 21 item 7: 400 ranks, 300 of them inside from 10 to 40:
        // 100 outside then, not "256 or more".
        let many = 400;
        let mut logs = vec![Vec::new(); many];
        for log in logs.iter_mut().take(300) {
            log.extend([10, 40]);
        }
        let level = levels(0, 50, many, logs.into_iter().map(Vec::into_iter).collect());
        assert_eq!(level.len(), many + 1);
        assert_eq!(level[400], 10 + 10);
        assert_eq!(level[100], 30);
        assert_eq!(level.iter().sum::<u64>(), 50);
    }

    /// Issue 21 item 11: the levels cover only the time during which no
    /// rank has paused with `MPI_Pcontrol(0)`. Two ranks from 0 to 10000,
    /// both paused from 0 (rank 0 at 100, rank 1 at 200), resuming at 3000
    /// and 3500 and pausing again at 8000 and 9000; rank 0 inside
    /// 1000..2000 (paused: not counted) and 5000..6000.
    #[test]
    fn paused_time_counts_at_no_level() {
        let mark = |time: u64| time | PAUSE_MARK;
        let rank0 = vec![mark(100), 1000, 2000, mark(3000), 5000, 6000, mark(8000)];
        let rank1 = vec![mark(200), mark(3500), mark(9000)];
        let level = levels(0, 10_000, 2, vec![rank0.into_iter(), rank1.into_iter()]);
        // 0..100 before any pause, then 3500..8000 with both resumed.
        assert_eq!(level.iter().sum::<u64>(), 100 + 4500);
        assert_eq!(level[1], 1000); // 5000..6000
        assert_eq!(level[2], 100 + 3500); // 0..100, 3500..5000, 6000..8000
                                          // A resume that never comes back to a pause counts to the end.
        let open = levels(0, 100, 1, vec![vec![mark(10), mark(40)].into_iter()]);
        assert_eq!(open[1], 10 + 60);
    }
}
