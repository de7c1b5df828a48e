//! `mlp`: memory-level parallelism. One pinned thread follows k independent
//! chases through the same DRAM-sized buffer (k = 1..=16): the time per load
//! falls while the core can keep more misses outstanding, then flattens.
//! `mlp` = latency with 1 chain / time per load with k chains.

use super::clock::Stopwatch;
use super::context::Context;
use super::error::BenchError;
use super::interrupt::interrupted;
use super::placed::PlacedBuffer;
use crate::kernels::{build_chase, chase_many, ChaseOrder};
use crate::memory::{MemoryPlacement, PAGE_SIZE};
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::threads::run_pinned;
use serde_json::{json, Map};

/// Most chains measured.
pub const MAX_CHAINS: usize = 16;

/// Runs `K` chains for `steps` rounds; returns seconds.
fn time_chains<const K: usize>(starts: &[*const u64], steps: u64) -> f64 {
    let mut array = [std::ptr::null::<u64>(); K];
    array.copy_from_slice(&starts[..K]);
    let stopwatch = Stopwatch::start();
    // SAFETY: the starts point into the live chain the caller built.
    std::hint::black_box(unsafe { chase_many::<K>(array, steps) });
    stopwatch.seconds()
}

fn time_k(k: usize, starts: &[*const u64], steps: u64) -> f64 {
    macro_rules! dispatch {
        ($($n:literal)*) => {
            match k {
                $($n => time_chains::<$n>(starts, steps),)*
                _ => unreachable!("k is 1..=16"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// Measures and emits `ns_per_load` and `mlp` records for k = 1..=16.
pub fn run_mlp(
    context: &Context,
    cpu: u32,
    memory: MemoryPlacement,
    size: u64,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let repeat = context.repeat.max(1);
    let threshold = context.placement_threshold;
    let hugepages = context.hugepages;
    let results = run_pinned(&[cpu], |_| -> Result<_, BenchError> {
        let mut placed = PlacedBuffer::allocate(size as usize, memory.clone(), hugepages)?;
        let start = build_chase(
            placed.buffer.words_mut(),
            64,
            PAGE_SIZE,
            ChaseOrder::Random,
            0x3117,
        );
        let check = placed.verify(threshold)?;
        let words = placed.buffer.words();
        let lines = (size / 64) as usize;
        // Starting points spread evenly around the one cycle, so chains never meet.
        let mut starts = Vec::with_capacity(MAX_CHAINS);
        // SAFETY: `start` indexes the chain just built in `words`.
        let mut pointer = unsafe { words.as_ptr().add(start) };
        for index in 0..lines {
            if index % (lines / MAX_CHAINS).max(1) == 0 && starts.len() < MAX_CHAINS {
                starts.push(pointer);
            }
            // SAFETY: following the live chain.
            pointer = unsafe { *pointer as *const u64 };
        }
        let steps = 1 << 16;
        let mut per_k = Vec::new();
        for k in 1..=MAX_CHAINS.min(starts.len()) {
            if interrupted() {
                break;
            }
            time_k(k, &starts, steps / 4); // warm-up
            let samples: Vec<f64> = (0..repeat)
                .map(|_| time_k(k, &starts, steps) * 1e9 / (steps as f64 * k as f64))
                .collect();
            per_k.push((k, samples));
        }
        Ok((per_k, check))
    })?;
    let (per_k, check) = results.into_iter().next().expect("one worker")?;
    let mut requested = Map::new();
    requested.insert("cpus".into(), json!([cpu]));
    requested.insert("memory".into(), memory.to_json());
    let placement = Placement {
        requested,
        verified: Some(check),
    };
    let mut single_chain = None;
    for (k, samples) in per_k {
        let Ok(sample) = Sample::new(samples) else {
            continue;
        };
        let summary = sample.summary();
        let mut params = Map::new();
        params.insert("chains".into(), json!(k));
        params.insert("size_bytes".into(), json!(size));
        params.insert("cpu".into(), json!(cpu));
        pipeline.emit(&Record {
            benchmark: "mlp".into(),
            metric: "ns_per_load".into(),
            value: summary.median,
            unit: Unit::Nanoseconds,
            params: params.clone(),
            placement: placement.clone(),
            stats: summary,
        })?;
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
