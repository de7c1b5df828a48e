//! The budget's last cut: working sets that cost seconds, not minutes.
//!
//! A DRAM working set is 4x every cache in front of the memory measured;
//! behind a memory-side cache of hundreds of GB that is a buffer of
//! hundreds of GB, and building it and passing over it takes minutes per
//! measurement. When every other cut has left the plan over its budget,
//! this one halves the largest working sets together (a cap on every
//! step's sizes) until the plan fits, never below [`CACHE_MULTIPLE`] times
//! the CPU caches of the measuring CPUs: a capped figure stays past the
//! CPU caches, and where it falls within the memory-side cache the cut's
//! sentence says it is that cache's figure (the records say so too:
//! `cache_affected`, `cache_level`).

use super::context::Context;
use super::latency::LatencyConfig;
use super::placed::{CACHE_MULTIPLE, MIN_DRAM_WORKING_SET};
use super::step::Step;
use crate::topology::memory_nodes;
use crate::units::format_bytes;
use numabench_schema::benchmark;

/// The largest working set any step measures.
fn largest(steps: &mut [Step]) -> u64 {
    steps
        .iter_mut()
        .flat_map(|step| step.work.working_sets().into_iter().map(|size| *size))
        .max()
        .unwrap_or(0)
}

/// Caps every size of every step at `cap`; the latency sweep's steps are
/// relabelled, and a sweep step that now repeats an earlier size dropped.
fn apply_cap(steps: &mut Vec<Step>, cap: u64) {
    for step in steps.iter_mut() {
        for size in step.work.working_sets() {
            *size = (*size).min(cap);
        }
        if let Some(config) = step.work::<LatencyConfig>() {
            if step.benchmark == benchmark::LATENCY && config.sizes.len() == 1 {
                step.label = format!("latency {}", format_bytes(config.sizes[0]));
            }
        }
    }
    let mut seen = Vec::new();
    steps.retain(|step| match step.work::<LatencyConfig>() {
        Some(config) if step.benchmark == benchmark::LATENCY && config.sizes.len() == 1 => {
            let fresh = !seen.contains(&config.sizes[0]);
            seen.push(config.sizes[0]);
            fresh
        }
        _ => true,
    });
}

/// The smallest cap this cut may set: past the CPU caches of every allowed
/// CPU ([`CACHE_MULTIPLE`] times them), and at least
/// [`MIN_DRAM_WORKING_SET`].
fn floor(context: &Context) -> u64 {
    let topology = &context.topology;
    (CACHE_MULTIPLE * topology.cpu_cache_bytes(&topology.allowed.cpus)).max(MIN_DRAM_WORKING_SET)
}

/// Halves the working sets (a cap on every step's sizes) while the plan's
/// `estimate` is over `limit`, down to [`floor`]; says what it capped and
/// which figures therefore are a cache's.
pub(super) fn cut_working_sets(
    context: &Context,
    steps: &mut Vec<Step>,
    limit: f64,
    estimate: impl Fn(&Context, &[Step]) -> f64,
) -> Option<(&'static str, String)> {
    let was = largest(steps);
    let floor = floor(context);
    let mut cap = was;
    while estimate(context, steps) > limit && cap / 2 >= floor {
        cap /= 2;
        apply_cap(steps, cap);
    }
    if cap == was {
        return None;
    }
    let topology = &context.topology;
    let memory_side = memory_nodes(topology)
        .into_iter()
        .map(|node| topology.memory_side_cache_bytes(&[node]))
        .max()
        .unwrap_or(0);
    let what_is_measured = if memory_side > 0 && cap <= memory_side / 2 {
        format!(
            "within the {} memory-side cache in front of each node's memory: those figures are the \
             memory-side cache's, not the memory's behind it",
            format_bytes(memory_side)
        )
    } else {
        "below 4x the caches in front of the memory: those figures are partly a cache's".to_string()
    };
    Some((
        "working-sets",
        format!(
            "working sets capped at {} (were up to {}), so each measurement passes over at most \
             that much; the capped ones are {what_is_measured} (records: cache_affected); \
             --budget none measures at full size",
            format_bytes(cap),
            format_bytes(was)
        ),
    ))
}
