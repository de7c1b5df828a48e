//! The latency chase: each cache line holds the address of the next, in an
//! order the prefetchers cannot predict, so each load waits for the one
//! before it and the time per load is the memory latency.

use super::rng::SplitMix64;

/// The order lines are visited in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChaseOrder {
    /// One random cycle through every line of the buffer: most loads also
    /// miss the TLB once the buffer outgrows its reach.
    Random,
    /// Pages in random order, and the lines of each page in random order
    /// before moving on: TLB misses drop to one per page, isolating the
    /// memory latency from the page-walk cost.
    PageLocal,
}

/// Writes a single cycle through all `lines` (of `line_bytes` each) of
/// `memory` and returns the index of the word to start chasing from.
/// Each visited line's first word holds the address of the next line.
pub fn build_chase(
    memory: &mut [u64],
    line_bytes: usize,
    page_bytes: usize,
    order: ChaseOrder,
    seed: u64,
) -> usize {
    let words_per_line = (line_bytes / 8).max(1);
    let lines = memory.len() / words_per_line;
    assert!(lines >= 2, "a chase needs at least two lines");
    let mut rng = SplitMix64::new(seed);
    let sequence: Vec<usize> = match order {
        ChaseOrder::Random => {
            let mut sequence: Vec<usize> = (0..lines).collect();
            rng.shuffle(&mut sequence);
            sequence
        }
        ChaseOrder::PageLocal => {
            let lines_per_page = (page_bytes / line_bytes).max(1);
            let pages = lines.div_ceil(lines_per_page);
            let mut page_order: Vec<usize> = (0..pages).collect();
            rng.shuffle(&mut page_order);
            let mut sequence = Vec::with_capacity(lines);
            for page in page_order {
                let first = page * lines_per_page;
                let mut in_page: Vec<usize> =
                    (first..(first + lines_per_page).min(lines)).collect();
                rng.shuffle(&mut in_page);
                sequence.extend(in_page);
            }
            sequence
        }
    };
    let base = memory.as_mut_ptr() as usize;
    for (position, &line) in sequence.iter().enumerate() {
        let next = sequence[(position + 1) % sequence.len()];
        memory[line * words_per_line] = (base + next * words_per_line * 8) as u64;
    }
    sequence[0] * words_per_line
}

/// Follows the chain for `steps` loads from `start` and returns where it
/// ended (returned so the compiler cannot drop the loads).
///
/// # Safety
/// `start` must point into a chain built by [`build_chase`] whose buffer is
/// still alive and unmodified.
#[inline(never)]
pub unsafe fn chase(start: *const u64, steps: u64) -> *const u64 {
    let mut pointer = start;
    let mut remaining = steps;
    while remaining >= 8 {
        // SAFETY: every link of the chain points at a line of the live buffer (caller's contract).
        unsafe {
            pointer = *pointer as *const u64;
            pointer = *pointer as *const u64;
            pointer = *pointer as *const u64;
            pointer = *pointer as *const u64;
            pointer = *pointer as *const u64;
            pointer = *pointer as *const u64;
            pointer = *pointer as *const u64;
            pointer = *pointer as *const u64;
        }
        remaining -= 8;
    }
    while remaining > 0 {
        // SAFETY: as above.
        pointer = unsafe { *pointer as *const u64 };
        remaining -= 1;
    }
    std::hint::black_box(pointer)
}

/// Follows `K` independent chains at once for `steps` rounds (K loads per
/// round, independent of each other, so a core can overlap their misses).
/// Returns the final positions.
///
/// # Safety
/// Every start must point into a live, unmodified chain from [`build_chase`].
#[inline(never)]
pub unsafe fn chase_many<const K: usize>(starts: [*const u64; K], steps: u64) -> [*const u64; K] {
    let mut pointers = starts;
    for _ in 0..steps {
        for pointer in pointers.iter_mut() {
            // SAFETY: every link points at a line of a live chain (caller's contract).
            *pointer = unsafe { **pointer as *const u64 };
        }
    }
    std::hint::black_box(pointers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn visits(order: ChaseOrder) {
        let mut memory = vec![0u64; 64 * 1024 / 8];
        let lines = memory.len() / 8;
        let start = build_chase(&mut memory, 64, 4096, order, 42);
        let base = memory.as_ptr() as usize;
        let mut seen = HashSet::new();
        let mut word = start;
        for _ in 0..lines {
            assert!(
                seen.insert(word),
                "line visited twice before the cycle closed"
            );
            word = (memory[word] as usize - base) / 8;
        }
        assert_eq!(word, start, "the chain is one cycle through every line");
        assert_eq!(seen.len(), lines);
        // SAFETY: the chain was just built in `memory`, which is alive.
        let end = unsafe { chase(memory.as_ptr().add(start), lines as u64) };
        assert_eq!(end, memory[..].as_ptr().wrapping_add(start));
    }

    #[test]
    fn random_order_is_one_cycle_through_all_lines() {
        visits(ChaseOrder::Random);
    }

    #[test]
    fn page_local_order_is_one_cycle_and_finishes_each_page() {
        visits(ChaseOrder::PageLocal);
        let mut memory = vec![0u64; 16 * 4096 / 8];
        let start = build_chase(&mut memory, 64, 4096, ChaseOrder::PageLocal, 7);
        let base = memory.as_ptr() as usize;
        let mut word = start;
        let mut page_changes = 0;
        for _ in 0..memory.len() / 8 {
            let next = (memory[word] as usize - base) / 8;
            if next * 8 / 4096 != word * 8 / 4096 {
                page_changes += 1;
            }
            word = next;
        }
        assert_eq!(
            page_changes, 16,
            "one page change per page around the cycle"
        );
    }
}
