//! `mlp`: memory-level parallelism. One pinned thread follows k independent
//! chases around the same cycle through a DRAM-sized buffer (k = 1..=16):
//! the time per load falls while the core can keep more misses outstanding,
//! then flattens. `mlp` = time per load with 1 chain / time per load with
//! k chains.
//!
//! The k chains start evenly spaced around the cycle and each continues
//! where it stopped, sample after sample, so together the samples read
//! every line of the buffer once (a chain that restarted each sample would
//! re-read the same lines from the cache and report more than k).

use crate::bench::context::Context;
use crate::bench::error::BenchError;
use crate::bench::latency::{chase_order_params, chase_page_bytes, loads_per_sample};
use crate::bench::placed::{working_set_params, PlacedBuffer};
use crate::clock::Stopwatch;
use crate::interrupt::interrupted;
use crate::kernels::{build_chase, chase, chase_many, ChaseOrder};
use crate::memory::MemoryPlacement;
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::{Sample, StoppingRule};
use crate::threads::run_pinned;
use numabench_schema::params::{to_params, MlpParams};
use numabench_schema::RequestedPlacement;

/// Most chains measured.
pub const MAX_CHAINS: usize = 16;

/// Line size of the chase.
pub(in crate::bench) const LINE_BYTES: u64 = 64;

/// Rounds of the probe that sizes the samples (it also warms the chains).
pub(in crate::bench) const PROBE_ROUNDS: u64 = 1 << 12;

/// A validated mlp run.
#[derive(Debug, Clone)]
pub struct MlpConfig {
    /// The CPU of the chasing thread.
    pub cpu: u32,
    /// Where the buffer's pages go.
    pub memory: MemoryPlacement,
    /// Working set, bytes.
    pub size: u64,
    /// The chase order, as for `latency`.
    pub order: ChaseOrder,
}

/// Advances `K` chains by `rounds` (K loads a round) from `positions`,
/// leaving them where they stopped; returns seconds.
///
/// # Safety
/// Every position must point into a live, unmodified chain from `build_chase`.
unsafe fn advance_chains<const K: usize>(positions: &mut [*const u64], rounds: u64) -> f64 {
    let mut array = [std::ptr::null::<u64>(); K];
    array.copy_from_slice(&positions[..K]);
    let stopwatch = Stopwatch::start();
    // SAFETY: the positions point into a live chain (caller's contract).
    let ended = unsafe { chase_many::<K>(array, rounds) };
    let seconds = stopwatch.seconds();
    positions[..K].copy_from_slice(&ended);
    seconds
}

/// Advances `positions.len()` (1..=16) chains by `rounds`; returns seconds.
/// One chain is `latency`'s own chase loop, so k = 1 measures what
/// `latency` does, in any build.
///
/// # Safety
/// As [`advance_chains`].
pub(in crate::bench) unsafe fn advance(positions: &mut [*const u64], rounds: u64) -> f64 {
    if let [position] = positions {
        let stopwatch = Stopwatch::start();
        // SAFETY: the position points into a live chain (caller's contract).
        *position = unsafe { chase(*position, rounds) };
        return stopwatch.seconds();
    }
    macro_rules! dispatch {
        ($($n:literal)*) => {
            match positions.len() {
                // SAFETY: the caller's contract.
                $($n => unsafe { advance_chains::<$n>(positions, rounds) },)*
                _ => unreachable!("k is 1..=16"),
            }
        };
    }
    dispatch!(2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// Where along the cycle of `lines` lines each of `k` chains starts: evenly
/// spaced, so k chains that each take `lines / k` steps read every line.
fn chain_offsets(lines: u64, k: usize) -> Vec<u64> {
    (0..k as u64).map(|j| j * lines / k as u64).collect()
}

/// The starting positions of k = 1..=`max_chains` chains around the
/// `lines`-long cycle from `start`, found in one walk of it.
///
/// # Safety
/// `start` must point into a live, unmodified chain of `lines` lines.
pub(in crate::bench) unsafe fn spread_chains(
    start: *const u64,
    lines: u64,
    max_chains: usize,
) -> Vec<Vec<*const u64>> {
    let mut wanted: Vec<(u64, usize, usize)> = (1..=max_chains)
        .flat_map(|k| {
            chain_offsets(lines, k)
                .into_iter()
                .enumerate()
                .map(move |(j, offset)| (offset, k, j))
        })
        .collect();
    wanted.sort_unstable();
    let mut chains: Vec<Vec<*const u64>> = (1..=max_chains)
        .map(|k| vec![std::ptr::null(); k])
        .collect();
    let mut pointer = start;
    let mut step = 0;
    for (offset, k, j) in wanted {
        while step < offset {
            // SAFETY: following the live chain (caller's contract).
            pointer = unsafe { *pointer as *const u64 };
            step += 1;
        }
        chains[k - 1][j] = pointer;
    }
    chains
}

/// Rounds per sample for `k` chains over `lines`: at least the minimum
/// sample time, and enough that the `repeat` samples together take each
/// chain across its `lines / k` share of the cycle.
pub(in crate::bench) fn rounds_per_sample(
    seconds_per_round: f64,
    lines: u64,
    k: usize,
    repeat: usize,
) -> u64 {
    loads_per_sample(seconds_per_round, lines.div_ceil(k as u64), repeat)
}

/// Measures and emits `ns_per_load` and `mlp` records for k = 1..=16.
pub fn run_mlp(
    context: &Context,
    config: &MlpConfig,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let rule = StoppingRule::up_to(context.repeat);
    let threshold = context.placement_threshold;
    let hugepages = context.hugepages;
    let size = config.size;
    let block = config.order.block(size, chase_page_bytes(context));
    let results = run_pinned(&[config.cpu], |_| -> Result<_, BenchError> {
        let mut placed = PlacedBuffer::allocate(
            &context.topology,
            size as usize,
            config.memory.clone(),
            hugepages,
        )?;
        let start = build_chase(
            placed.buffer.words_mut(),
            LINE_BYTES as usize,
            block.bytes as usize,
            0x3117,
        );
        let check = placed.verify(threshold)?;
        let words = placed.buffer.words();
        let lines = (size / LINE_BYTES).max(2);
        let max_chains = MAX_CHAINS.min(lines as usize);
        // SAFETY: `start` indexes the chain just built in `words`, alive for this closure.
        let mut chains = unsafe { spread_chains(words.as_ptr().add(start), lines, max_chains) };
        let mut per_k = Vec::new();
        for positions in chains.iter_mut() {
            if interrupted() {
                break;
            }
            let k = positions.len();
            // SAFETY: the positions point into the chain in `placed`, alive and unmodified.
            let probe = unsafe { advance(positions, PROBE_ROUNDS) } / PROBE_ROUNDS as f64;
            // The fewest samples the rule takes read the whole buffer.
            let rounds = rounds_per_sample(probe, lines, k, rule.min);
            let mut samples = Vec::with_capacity(rule.max);
            let mut repetitions = rule.start();
            while !repetitions.done() {
                // SAFETY: as above; each sample continues where the last stopped.
                let seconds = unsafe { advance(positions, rounds) };
                let nanoseconds = seconds * 1e9 / (rounds * k as u64) as f64;
                samples.push(nanoseconds);
                repetitions.push(nanoseconds);
            }
            per_k.push((k, rounds, samples, repetitions.convergence()));
        }
        Ok((per_k, check))
    })?;
    let (per_k, check) = results.into_iter().next().expect("one worker")?;
    let requested = to_params(
        &config
            .memory
            .requested_on(RequestedPlacement::on_cpus(&[config.cpu])),
    );
    let placement = Placement {
        requested,
        verified: Some(check),
    };
    let mut single_chain = None;
    for (k, rounds, samples, convergence) in per_k {
        let Ok(sample) = Sample::new(samples) else {
            continue;
        };
        let summary = sample.summary();
        let params = to_params(&MlpParams {
            chains: Some(k as u64),
            working_set: Some(working_set_params(
                &context.topology,
                size,
                &[config.cpu],
                &config.memory.expected_nodes(),
            )),
            cpu: Some(config.cpu),
            chase: Some(chase_order_params(config.order, &block)),
            hugepages: Some(hugepages),
            rounds_per_sample: Some(rounds),
            convergence: Some(convergence),
            ..MlpParams::default()
        });
        pipeline.emit(&Record::of_median(
            "mlp",
            "ns_per_load",
            Unit::Nanoseconds,
            summary,
            params.clone(),
            placement.clone(),
        ))?;
        let base = *single_chain.get_or_insert(summary.median);
        let parallelism = Sample::new(sample.values().iter().map(|ns| base / ns)).expect("finite");
        let parallelism_summary = parallelism.summary();
        pipeline.emit(&Record {
            benchmark: "mlp".into(),
            metric: "mlp".into(),
            value: parallelism_summary.median,
            unit: Unit::Ratio,
            params,
            placement: placement.clone(),
            stats: parallelism_summary,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Whether chains starting at `offsets` around a `lines`-long cycle,
    /// each taking `steps` steps, read every line.
    fn covers(lines: u64, offsets: &[u64], steps: u64) -> bool {
        let mut read = vec![false; lines as usize];
        for &offset in offsets {
            for step in 0..steps.min(lines) {
                read[((offset + step) % lines) as usize] = true;
            }
        }
        read.iter().all(|&line| line)
    }

    #[test]
    fn the_samples_of_every_k_read_a_dram_sized_buffer_once_together() {
        // 256 MiB of lines at 100 ns a round: 20 ms samples would read a
        // small part of it; coverage decides the rounds.
        let lines = (256u64 << 20) / LINE_BYTES;
        for k in 1..=MAX_CHAINS {
            let rounds = rounds_per_sample(100e-9, lines, k, 5);
            let offsets = chain_offsets(lines, k);
            assert!(covers(lines, &offsets, 5 * rounds), "k = {k}");
        }
    }

    #[test]
    fn chains_continue_where_they_stopped() {
        let lines = 4096u64;
        let mut memory = vec![0u64; (lines * LINE_BYTES / 8) as usize];
        let start = build_chase(&mut memory, LINE_BYTES as usize, 4096, 5);
        // Each line's position along the cycle from `start`.
        let mut position_of = HashMap::new();
        let mut pointer = memory[start..].as_ptr();
        for position in 0..lines {
            position_of.insert(pointer, position);
            // SAFETY: the chain lives in `memory`.
            pointer = unsafe { *pointer as *const u64 };
        }
        // SAFETY: `start` indexes the chain in `memory`, alive for the test.
        let mut chains = unsafe { spread_chains(memory[start..].as_ptr(), lines, MAX_CHAINS) };
        for positions in chains.iter_mut() {
            let k = positions.len();
            let offsets = chain_offsets(lines, k);
            let found: Vec<u64> = positions.iter().map(|p| position_of[p]).collect();
            assert_eq!(found, offsets, "k = {k} chains start evenly spaced");
            let rounds = lines.div_ceil(k as u64).div_ceil(3);
            for _ in 0..3 {
                // SAFETY: the positions point into the chain in `memory`.
                unsafe { advance(positions, rounds) };
            }
            let ended: Vec<u64> = positions.iter().map(|p| position_of[p]).collect();
            let expected: Vec<u64> = offsets.iter().map(|o| (o + 3 * rounds) % lines).collect();
            assert_eq!(
                ended, expected,
                "k = {k}: each sample picks up where the last stopped"
            );
            assert!(covers(lines, &offsets, 3 * rounds), "k = {k}");
        }
    }
}
