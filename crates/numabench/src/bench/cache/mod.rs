//! `numabench cache`: latency and read bandwidth of data held in another
//! core's caches, by coherence state (Modified, Exclusive, Shared) x cache
//! level (a buffer sized for L1, L2, L3 or DRAM) x the measuring CPU's
//! relation to the owner (SMT sibling, same L2, same L3, same node, same
//! package, another package), beside DRAM references: the same buffer
//! flushed from every cache and read from the owner's memory (local DRAM
//! for measurers on the owner's node, remote DRAM for the others). See
//! [`measure`] for how the states are made.

mod measure;
mod relations;

pub use measure::{State, LINE_BYTES};
pub use relations::{default_measurers, measurer, Measurer, Relation};

use super::context::Context;
use super::error::BenchError;
use crate::interrupt::interrupted;
use crate::memory::PlacementCheck;
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::topology::TopologyReport;
use serde_json::{json, Map};

/// A buffer size the owner's caches hold at one level (or DRAM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelSize {
    /// 1, 2, 3 for L1..L3; `None` for DRAM.
    pub level: Option<u32>,
    /// Bytes of the buffer.
    pub bytes: usize,
    /// Bytes of the cache (0 for DRAM).
    pub cache_bytes: u64,
}

impl LevelSize {
    /// `L1`, `L2`, `L3` or `DRAM`.
    pub fn name(&self) -> String {
        match self.level {
            Some(level) => format!("L{level}"),
            None => "DRAM".into(),
        }
    }
}

/// The owner's data or unified cache of each level, smallest first.
fn owner_caches(topology: &TopologyReport, owner: u32) -> Vec<(u32, u64)> {
    let mut caches: Vec<(u32, u64)> = topology
        .caches
        .iter()
        .filter(|cache| cache.cache_type != "instruction")
        .filter(|cache| {
            cache.cpu_groups.is_empty()
                || cache.cpu_groups.iter().any(|group| group.contains(&owner))
        })
        .map(|cache| (cache.level, cache.size_bytes))
        .collect();
    caches.sort_unstable();
    caches.dedup_by_key(|cache| cache.0);
    caches
}

/// Buffer sizes for `levels` (1..=3, or 0 for DRAM) on the owner's caches:
/// half of the level, but at least twice the level below (so the lines
/// are not all in the smaller cache), in whole pages; DRAM: twice the
/// largest cache, at least 16 MiB. Levels the owner has no cache of are
/// left out.
pub fn level_sizes(topology: &TopologyReport, owner: u32, levels: &[u32]) -> Vec<LevelSize> {
    const PAGE: u64 = 4096;
    let caches = owner_caches(topology, owner);
    let round = |bytes: u64| (bytes.div_ceil(PAGE) * PAGE).max(2 * PAGE) as usize;
    let mut sizes = Vec::new();
    for &level in levels {
        if level == 0 {
            let largest = caches.iter().map(|cache| cache.1).max().unwrap_or(0);
            sizes.push(LevelSize {
                level: None,
                bytes: round((2 * largest).max(16 << 20)),
                cache_bytes: 0,
            });
            continue;
        }
        let Some(position) = caches.iter().position(|cache| cache.0 == level) else {
            continue;
        };
        let size = caches[position].1;
        let below = position.checked_sub(1).map_or(0, |p| caches[p].1);
        let mut bytes = (size / 2).max(2 * below);
        if bytes > size * 3 / 4 {
            bytes = (size + below) / 2;
        }
        sizes.push(LevelSize {
            level: Some(level),
            bytes: round(bytes),
            cache_bytes: size,
        });
    }
    sizes
}

/// A CPU to share the lines in the Shared state: neither the owner nor the
/// measurer, preferably on the owner's node.
pub fn sharer_for(
    topology: &TopologyReport,
    owner: u32,
    measurer: u32,
    allowed: &[u32],
) -> Option<u32> {
    let others = || {
        allowed
            .iter()
            .copied()
            .filter(|&cpu| cpu != owner && cpu != measurer)
    };
    let home = topology.node_of_cpu(owner);
    others()
        .find(|&cpu| topology.node_of_cpu(cpu) == home)
        .or_else(|| others().next())
}

/// A validated `cache` run.
#[derive(Debug, Clone)]
pub struct CacheConfig {
    pub owner: u32,
    pub measurers: Vec<Measurer>,
    /// Modified, Exclusive and/or Shared.
    pub states: Vec<State>,
    pub levels: Vec<LevelSize>,
    /// The CPUs a sharer may come from.
    pub allowed: Vec<u32>,
}

/// What could not be measured, one sentence each.
pub type Skipped = Vec<String>;

/// Measures every level x state x measurer, then, when DRAM is among the
/// levels, the DRAM references (flushed) for every measurer, emitting `latency` (ns) and
/// `read_bandwidth` (GB/s) records. Returns what was skipped and why.
pub fn run_cache(
    context: &Context,
    config: &CacheConfig,
    pipeline: &mut Pipeline,
) -> Result<Skipped, BenchError> {
    let topology = &context.topology;
    let samples = context.repeat.max(1);
    let mut skipped = Vec::new();
    let mut plan: Vec<(LevelSize, State)> = Vec::new();
    for level in &config.levels {
        for &state in &config.states {
            plan.push((*level, state));
        }
    }
    // The DRAM references: the DRAM-sized buffer flushed from every cache.
    plan.extend(
        config
            .levels
            .iter()
            .filter(|level| level.level.is_none())
            .map(|level| (*level, State::Flushed)),
    );
    for (level, state) in plan {
        for measurer in &config.measurers {
            if interrupted() {
                return Ok(skipped);
            }
            let sharer = match state {
                State::Shared => {
                    match sharer_for(topology, config.owner, measurer.cpu, &config.allowed) {
                        Some(cpu) => Some(cpu),
                        None => {
                            skipped.push(format!(
                            "shared state, {} from CPU {}: no third CPU to share the lines with (needs 3 allowed CPUs)",
                            level.name(),
                            measurer.cpu
                        ));
                            continue;
                        }
                    }
                }
                _ => None,
            };
            let setup = measure::Setup {
                owner: config.owner,
                measurer: measurer.cpu,
                sharer,
                state,
                bytes: level.bytes,
                samples,
            };
            let measured = measure::measure(&setup).map_err(|error| match error {
                measure::MeasureError::Pin(error) => BenchError::from(error),
                measure::MeasureError::Memory(error) => BenchError::from(error),
            })?;
            emit(
                context, config, measurer, &setup, &level, &measured, pipeline,
            )?;
        }
    }
    Ok(skipped)
}

/// The records of one measurement.
fn emit(
    context: &Context,
    config: &CacheConfig,
    measurer: &Measurer,
    setup: &measure::Setup,
    level: &LevelSize,
    measured: &measure::Measured,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let mut params = Map::new();
    params.insert("owner_cpu".into(), json!(config.owner));
    params.insert("measurer_cpu".into(), json!(measurer.cpu));
    params.insert("sharer_cpu".into(), json!(setup.sharer));
    params.insert("state".into(), json!(setup.state.name()));
    params.insert("level".into(), json!(level.name()));
    params.insert("relation".into(), json!(measurer.relation.name()));
    params.insert("distance".into(), json!(measurer.distance));
    params.insert("size_bytes".into(), json!(level.bytes));
    params.insert("cache_bytes".into(), json!(level.cache_bytes));
    params.insert("owner_cpu_seen".into(), json!(measured.owner_seen));
    params.insert("measurer_cpu_seen".into(), json!(measured.measurer_seen));
    params.insert("sharer_cpu_seen".into(), json!(measured.sharer_seen));
    let home = context.topology.node_of_cpu(config.owner);
    let pages = measured.pages.resident();
    let at_home = home.map_or(0, |node| measured.pages.on_nodes(&[node]));
    let fraction = if pages == 0 {
        0.0
    } else {
        at_home as f64 / pages as f64
    };
    let mut requested = Map::new();
    requested.insert("cpus".into(), json!([measurer.cpu]));
    requested.insert("owner_cpu".into(), json!(config.owner));
    requested.insert("memory".into(), json!("first-touch by the owner"));
    let placement = Placement {
        requested,
        verified: Some(PlacementCheck {
            pages: pages + measured.pages.not_present,
            pages_per_node: measured.pages.per_node.clone(),
            fraction_as_requested: fraction,
            achieved: fraction >= context.placement_threshold,
            huge_pages: None,
        }),
    };
    for (metric, values, unit) in [
        ("latency", &measured.latency_ns, Unit::Nanoseconds),
        (
            "read_bandwidth",
            &measured.read_gbs,
            Unit::GigabytesPerSecond,
        ),
    ] {
        let Ok(sample) = Sample::new(values.iter().copied()) else {
            continue;
        };
        let summary = sample.summary();
        pipeline.emit(&Record {
            benchmark: "cache".into(),
            metric: metric.into(),
            value: summary.median,
            unit,
            params: params.clone(),
            placement: placement.clone(),
            stats: summary,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::discover_from_xml;
    use std::path::Path;

    /// Level buffers fit their level and not the one below, on a server
    /// shape; DRAM is twice the largest cache.
    #[test]
    fn level_buffers_sit_between_the_levels() {
        let topology = discover_from_xml(Path::new(&format!(
            "{}/tests/fixtures/two-socket-smt.xml",
            env!("CARGO_MANIFEST_DIR")
        )))
        .unwrap();
        let owner = topology.cores[0][0];
        let sizes = level_sizes(&topology, owner, &[1, 2, 3, 0]);
        assert_eq!(sizes.len(), 4, "{sizes:?}");
        for pair in sizes.windows(2) {
            assert!(pair[0].bytes < pair[1].bytes, "{sizes:?}");
        }
        for pair in sizes[..3].windows(2) {
            let (below, level) = (&pair[0], &pair[1]);
            assert!(level.bytes as u64 > below.cache_bytes, "{sizes:?}");
            assert!((level.bytes as u64) < level.cache_bytes, "{sizes:?}");
        }
        assert!(sizes[3].bytes as u64 >= 2 * sizes[2].cache_bytes);
    }
}
