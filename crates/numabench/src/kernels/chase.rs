//! The latency chase: each cache line holds the address of the next, in an
//! order the prefetchers cannot predict, so each load waits for the one
//! before it and the time per load is the memory latency.

use super::rng::SplitMix64;
use super::tlb::tlb_block;

/// The order lines are visited in. Every order is one cycle through all
/// lines, random within blocks and visiting the blocks in random order; the
/// orders differ in the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChaseOrder {
    /// Blocks the L1 data TLB maps (its entries times the page size, e.g.
    /// 64 x 4 KiB; see [`tlb_block`]): almost no TLB misses, and the loads
    /// spread over too many pages for the prefetchers to help. The idle
    /// memory latency, as MLC and multichase report it.
    #[default]
    TlbBlock,
    /// One block, the whole buffer: once the buffer outgrows the TLB's
    /// reach, most loads also miss the TLB, so this includes the page-walk
    /// cost.
    Random,
    /// One page per block: one TLB miss per page, but a page's lines are
    /// read back to back, so with 4 KiB pages the adjacent-line and stream
    /// prefetchers (and open DRAM rows) help and it reads below the idle
    /// latency; with 2 MiB pages it is a 2 MiB-block chase.
    PageLocal,
}

/// The block a chase is random within, and how its size was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChaseBlock {
    pub bytes: u64,
    /// Where the size came from, for the record.
    pub source: String,
}

impl ChaseOrder {
    /// The name the CLI and the records use.
    pub fn name(self) -> &'static str {
        match self {
            ChaseOrder::TlbBlock => "tlb-block",
            ChaseOrder::Random => "random",
            ChaseOrder::PageLocal => "page-local",
        }
    }

    /// What a latency measured in this order is, for the record.
    pub fn measures(self) -> &'static str {
        match self {
            ChaseOrder::TlbBlock => {
                "idle memory latency: random within L1-dTLB-sized blocks, so almost no TLB misses and no prefetch help"
            }
            ChaseOrder::Random => {
                "latency including page-walk (TLB miss) cost: random over the whole buffer"
            }
            ChaseOrder::PageLocal => {
                "latency within pages: one TLB miss per page, prefetch-assisted with 4 KiB pages (a page's lines are read back to back)"
            }
        }
    }

    /// The block of a `buffer_bytes` buffer of `page_bytes` pages (at most
    /// the buffer: a buffer smaller than the block is one random cycle).
    pub fn block(self, buffer_bytes: u64, page_bytes: u64) -> ChaseBlock {
        let mut block = match self {
            ChaseOrder::TlbBlock => tlb_block(page_bytes),
            ChaseOrder::Random => ChaseBlock {
                bytes: buffer_bytes,
                source: "the whole buffer".into(),
            },
            ChaseOrder::PageLocal => ChaseBlock {
                bytes: page_bytes,
                source: "one page".into(),
            },
        };
        if block.bytes > buffer_bytes {
            block.bytes = buffer_bytes;
            block.source += ", cut to the buffer";
        }
        block
    }
}

/// Writes a single cycle through all `lines` (of `line_bytes` each) of
/// `memory`, random within consecutive blocks of `block_bytes` (the last
/// may be short) and through the blocks in random order, and returns the
/// index of the word to start chasing from. Each visited line's first word
/// holds the address of the next line.
pub fn build_chase(memory: &mut [u64], line_bytes: usize, block_bytes: usize, seed: u64) -> usize {
    let words_per_line = (line_bytes / 8).max(1);
    let lines = memory.len() / words_per_line;
    assert!(lines >= 2, "a chase needs at least two lines");
    let mut rng = SplitMix64::new(seed);
    let lines_per_block = (block_bytes / line_bytes).clamp(1, lines);
    let blocks = lines.div_ceil(lines_per_block);
    let mut block_order: Vec<usize> = (0..blocks).collect();
    rng.shuffle(&mut block_order);
    let mut sequence = Vec::with_capacity(lines);
    for block in block_order {
        let first = block * lines_per_block;
        let start = sequence.len();
        sequence.extend(first..(first + lines_per_block).min(lines));
        rng.shuffle(&mut sequence[start..]);
    }
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
/// Returns the final positions. Plain index loops (no iterators) so that an
/// unoptimised build adds little per load either: its figures stay
/// comparable with [`chase`]'s.
///
/// # Safety
/// Every start must point into a live, unmodified chain from [`build_chase`].
#[inline(never)]
pub unsafe fn chase_many<const K: usize>(starts: [*const u64; K], steps: u64) -> [*const u64; K] {
    let mut pointers = starts;
    let mut remaining = steps;
    while remaining > 0 {
        let mut chain = 0;
        while chain < K {
            // SAFETY: every link points at a line of a live chain (caller's contract).
            pointers[chain] = unsafe { *pointers[chain] as *const u64 };
            chain += 1;
        }
        remaining -= 1;
    }
    std::hint::black_box(pointers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The lines (indices) of the chain from `start`, in visiting order,
    /// checking it is one cycle through every line.
    fn cycle(memory: &[u64], start: usize) -> Vec<usize> {
        let lines = memory.len() / 8;
        let base = memory.as_ptr() as usize;
        let mut seen = HashSet::new();
        let mut order = Vec::with_capacity(lines);
        let mut word = start;
        for _ in 0..lines {
            assert!(
                seen.insert(word),
                "line visited twice before the cycle closed"
            );
            order.push(word / 8);
            word = (memory[word] as usize - base) / 8;
        }
        assert_eq!(word, start, "the chain is one cycle through every line");
        // SAFETY: the chain is built in `memory`, which is alive.
        let end = unsafe { chase(memory.as_ptr().add(start), lines as u64) };
        assert_eq!(end, memory[..].as_ptr().wrapping_add(start));
        order
    }

    /// Builds a chain random within `block` bytes over `bytes` and checks
    /// it stays in each block until it has read all its lines; returns the
    /// visiting order.
    fn blocked(bytes: usize, block: usize, seed: u64) -> Vec<usize> {
        let mut memory = vec![0u64; bytes / 8];
        let start = build_chase(&mut memory, 64, block, seed);
        let order = cycle(&memory, start);
        let lines_per_block = block / 64;
        for run in order.chunks(lines_per_block) {
            let first = run[0] / lines_per_block;
            assert!(
                run.iter().all(|line| line / lines_per_block == first),
                "each block is finished before the next"
            );
        }
        order
    }

    /// Fraction of steps that go to the next or previous line: about
    /// 2 / lines-per-block for a random order, 1 for a sequential one.
    fn adjacent_steps(order: &[usize]) -> f64 {
        let adjacent = order
            .windows(2)
            .filter(|pair| pair[0].abs_diff(pair[1]) == 1)
            .count();
        adjacent as f64 / (order.len() - 1) as f64
    }

    #[test]
    fn random_order_is_one_cycle_through_all_lines() {
        let order = blocked(64 << 10, 64 << 10, 42);
        assert!(adjacent_steps(&order) < 0.1);
    }

    #[test]
    fn page_local_order_finishes_each_page_in_random_order() {
        let order = blocked(256 << 10, 4096, 7);
        let page_changes = order
            .windows(2)
            .filter(|pair| pair[0] / 64 != pair[1] / 64)
            .count();
        assert_eq!(page_changes, 63, "one page change per page");
        // Not an order the prefetchers follow: few steps to a neighbouring line.
        assert!(adjacent_steps(&order) < 0.1, "{}", adjacent_steps(&order));
        let pages: Vec<usize> = order.iter().step_by(64).map(|line| line / 64).collect();
        assert!(
            pages
                .windows(2)
                .filter(|pair| pair[1] == pair[0] + 1)
                .count()
                < pages.len() / 4,
            "pages in random order"
        );
    }

    #[test]
    fn tlb_block_order_spreads_each_block_over_many_pages() {
        // 16 blocks of 16 pages: consecutive loads hop between the block's pages.
        let order = blocked(1 << 20, 64 << 10, 3);
        let same_page = order
            .windows(2)
            .filter(|pair| pair[0] / 64 == pair[1] / 64)
            .count();
        assert!(
            same_page < order.len() / 4,
            "most steps change page ({same_page} of {} stay)",
            order.len()
        );
        assert!(adjacent_steps(&order) < 0.1);
    }

    #[test]
    fn a_short_last_block_is_still_covered() {
        // 5 pages in blocks of 2: the last block holds one page.
        let mut memory = vec![0u64; 5 * 4096 / 8];
        let start = build_chase(&mut memory, 64, 8192, 11);
        assert_eq!(cycle(&memory, start).len(), 5 * 64);
    }

    #[test]
    fn orders_name_their_blocks() {
        let page = 4096;
        assert_eq!(ChaseOrder::default(), ChaseOrder::TlbBlock);
        assert_eq!(ChaseOrder::Random.block(1 << 30, page).bytes, 1 << 30);
        assert_eq!(ChaseOrder::PageLocal.block(1 << 30, page).bytes, page);
        let tlb = ChaseOrder::TlbBlock.block(1 << 30, page);
        assert!(
            tlb.bytes > page && tlb.bytes.is_multiple_of(page),
            "{tlb:?}"
        );
        assert!(ChaseOrder::Random.measures().contains("page-walk"));
        let small = ChaseOrder::TlbBlock.block(page, page);
        assert_eq!(small.bytes, page, "a block is at most the buffer");
        assert!(small.source.contains("cut to the buffer"));
        for order in [
            ChaseOrder::TlbBlock,
            ChaseOrder::Random,
            ChaseOrder::PageLocal,
        ] {
            assert!(!order.name().is_empty() && !order.block(1 << 20, page).source.is_empty());
        }
    }
}
