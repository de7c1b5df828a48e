//! `numabench cache`: latency and read bandwidth of data held in another
//! core's caches, by coherence state (Modified, Exclusive, Shared) x cache
//! level (a buffer sized for L1, L2, L3 or DRAM) x the measuring CPU's
//! relation to the owner (SMT sibling, same L2, same L3, same node, same
//! package, another package), beside DRAM references: the same buffer
//! flushed from every cache and read from the owner's memory (local DRAM
//! for measurers on the owner's node, remote DRAM for the others). See
//! [`measure`] for how the states are made.

mod measure;
mod plan;
mod relations;
mod run;

pub use measure::{State, LINE_BYTES};
pub use relations::{default_measurers, measurer, Measurer, Relation};

use super::context::Context;
use super::error::BenchError;
use super::latency::chase_order_params;
use crate::interrupt::interrupted;
use crate::kernels::{ChaseBlock, ChaseOrder};
use crate::memory::PlacementCheck;
use crate::output::{Pipeline, Placement, Record, Unit};
use crate::stats::Sample;
use crate::topology::Machine;
use numabench_schema::params::{to_params, CacheStateParams};
use numabench_schema::{RequestedMemory, RequestedPlacement};

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
fn owner_caches(topology: &Machine, owner: u32) -> Vec<(u32, u64)> {
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
pub fn level_sizes(topology: &Machine, owner: u32, levels: &[u32]) -> Vec<LevelSize> {
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

/// The CPU that shares the lines in the Shared state, and why it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sharer {
    pub cpu: u32,
    /// Why this CPU, in words (`params.sharer_reason`).
    pub reason: String,
}

/// Whether `a` and `b` share a private cache: the same core (SMT
/// siblings share its L1 and L2) or any L1 or L2. A reader that shares
/// one with the owner takes the lines from that cache without coherence
/// traffic, so they stay Exclusive.
pub fn share_private_cache(topology: &Machine, a: u32, b: u32) -> bool {
    let same_core = topology
        .cores
        .iter()
        .any(|core| core.contains(&a) && core.contains(&b));
    same_core
        || topology
            .shared_cache_level(a, b)
            .is_some_and(|level| level <= 2)
}

/// Why no allowed CPU can share the lines ([`sharer_for`]): the Shared
/// state is then not measured, and the run goes on.
///
/// Fault: the user's (the CPUs allowed to the run).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoSharer {
    /// Only the owner and the measurer are allowed.
    #[error("no allowed CPU other than the owner (CPU {owner}) and the measurer (CPU {measurer}) to share the lines with (needs 3 allowed CPUs)")]
    TooFewCpus { owner: u32, measurer: u32 },
    /// Every other allowed CPU shares a private cache with one of them.
    #[error("every allowed CPU other than the owner (CPU {owner}) and the measurer (CPU {measurer}) shares a core, L1 or L2 with one of them: its reads would leave the lines Exclusive")]
    SharesPrivateCache { owner: u32, measurer: u32 },
}

crate::error::all_faulty!(Usage: NoSharer);

/// The CPU to share the lines in the Shared state: neither the owner nor
/// the measurer, sharing no private cache (core, L1 or L2) with either of
/// them, so that its reads go through the coherence protocol and both the
/// owner's and the sharer's copies are Shared; preferably on the owner's
/// node. `Err` says why no allowed CPU qualifies (the state is then not
/// measured: a sibling's reads would leave the lines Exclusive).
pub fn sharer_for(
    topology: &Machine,
    owner: u32,
    measurer: u32,
    allowed: &[u32],
) -> Result<Sharer, NoSharer> {
    let candidates: Vec<u32> = allowed
        .iter()
        .copied()
        .filter(|&cpu| cpu != owner && cpu != measurer)
        .collect();
    if candidates.is_empty() {
        return Err(NoSharer::TooFewCpus { owner, measurer });
    }
    let apart = |cpu: &u32| {
        !share_private_cache(topology, *cpu, owner)
            && !share_private_cache(topology, *cpu, measurer)
    };
    let home = topology.node_of_cpu(owner);
    let why = "shares no core, L1 or L2 with the owner or the measurer";
    if let Some(cpu) = candidates
        .iter()
        .copied()
        .filter(apart)
        .find(|&cpu| topology.node_of_cpu(cpu) == home)
    {
        let node = home.map_or("?".into(), |node| node.to_string());
        return Ok(Sharer {
            cpu,
            reason: format!("the first allowed CPU on the owner's node {node} that {why}"),
        });
    }
    if let Some(cpu) = candidates.iter().copied().find(apart) {
        return Ok(Sharer {
            cpu,
            reason: format!(
                "the first allowed CPU that {why} (none on the owner's node qualifies)"
            ),
        });
    }
    Err(NoSharer::SharesPrivateCache { owner, measurer })
}

/// The block the chase of `level`'s buffer is random within: `latency`'s
/// default `tlb-block` order on the buffer's 4 KiB pages (the buffer is
/// advised against huge pages), so that no row includes page walks.
pub fn chase_block(level: &LevelSize) -> ChaseBlock {
    ChaseOrder::TlbBlock.block(level.bytes as u64, 4096)
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

/// The level sizes that fit under this process's memory limit (cut as
/// every default working set is, [`within_memory_limit`](crate::bench::within_memory_limit)),
/// and one line for each level left out and why. A cache level's buffer is
/// cut to what fits while it stays at least twice the level below (so its
/// own level, not the one below, holds it); DRAM's is never cut, since a
/// buffer smaller than twice the largest cache would be held by that cache.
/// Without a limit every size is kept. (A 480 MiB L3 asked for 240 MiB and
/// DRAM for 960 MiB: under a 150 MiB cgroup `cache` was killed by the OOM
/// killer.)
pub fn fit_memory_limit(
    topology: &Machine,
    owner: u32,
    sizes: Vec<LevelSize>,
) -> (Vec<LevelSize>, Skipped) {
    const PAGE: usize = 4096;
    let caches = owner_caches(topology, owner);
    let mut fitted = Vec::new();
    let mut skipped = Vec::new();
    for mut size in sizes {
        let cap =
            crate::bench::within_memory_limit(topology, size.bytes as u64) as usize / PAGE * PAGE;
        if size.bytes <= cap {
            fitted.push(size);
            continue;
        }
        let below = size.level.map_or(0, |level| {
            caches
                .iter()
                .filter(|cache| cache.0 < level)
                .map(|cache| cache.1)
                .max()
                .unwrap_or(0)
        }) as usize;
        if size.level.is_some() && cap >= 2 * below.max(PAGE) {
            size.bytes = cap;
            fitted.push(size);
            continue;
        }
        skipped.push(format!(
            "{} is not measured: its buffer ({}) does not fit under this process's memory limit \
             (at most {} per buffer){}",
            size.name(),
            crate::units::format_bytes(size.bytes as u64),
            crate::units::format_bytes(cap as u64),
            if size.level.is_some() {
                " while staying above twice the level below"
            } else {
                ", and a smaller one would be held by the largest cache"
            }
        ));
    }
    (fitted, skipped)
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
                        Ok(sharer) => Some(sharer),
                        Err(why) => {
                            skipped.push(format!(
                                "shared state, {} from CPU {}: not measured: {why}",
                                level.name(),
                                measurer.cpu
                            ));
                            continue;
                        }
                    }
                }
                _ => None,
            };
            let block = chase_block(&level);
            let setup = measure::Setup {
                owner: config.owner,
                measurer: measurer.cpu,
                sharer: sharer.as_ref().map(|sharer| sharer.cpu),
                state,
                bytes: level.bytes,
                block_bytes: block.bytes as usize,
                samples,
            };
            let measured = measure::measure(&setup).map_err(|error| match error {
                measure::MeasureError::Pin(error) => BenchError::from(error),
                measure::MeasureError::Memory(error) => BenchError::from(error),
            })?;
            let reason = sharer.map(|sharer| sharer.reason);
            emit(
                context, config, measurer, &setup, reason, &block, &level, &measured, pipeline,
            )?;
        }
    }
    Ok(skipped)
}

/// The records of one measurement.
#[allow(clippy::too_many_arguments)]
fn emit(
    context: &Context,
    config: &CacheConfig,
    measurer: &Measurer,
    setup: &measure::Setup,
    sharer_reason: Option<String>,
    block: &ChaseBlock,
    level: &LevelSize,
    measured: &measure::Measured,
    pipeline: &mut Pipeline,
) -> Result<(), BenchError> {
    let params = CacheStateParams {
        owner_cpu: Some(config.owner),
        measurer_cpu: Some(measurer.cpu),
        sharer_cpu: setup.sharer,
        sharer_reason,
        state: Some(setup.state.name().to_string()),
        level: Some(level.name().to_string()),
        relation: Some(measurer.relation.name().to_string()),
        distance: measurer.distance,
        size_bytes: Some(level.bytes as u64),
        chase: chase_order_params(ChaseOrder::TlbBlock, block),
        cache_bytes: Some(level.cache_bytes),
        owner_cpu_seen: Some(measured.owner_seen),
        measurer_cpu_seen: Some(measured.measurer_seen),
        sharer_cpu_seen: measured.sharer_seen,
    };
    let params = to_params(&params);
    let home = context.topology.node_of_cpu(config.owner);
    let pages = measured.pages.resident();
    let at_home = home.map_or(0, |node| measured.pages.on_nodes(&[node]));
    let fraction = PlacementCheck::fraction(at_home as f64, pages);
    let requested = to_params(&RequestedPlacement {
        owner_cpu: Some(config.owner),
        memory: Some(RequestedMemory::Label("first-touch by the owner".into())),
        ..RequestedPlacement::on_cpus(&[measurer.cpu])
    });
    let placement = Placement {
        requested,
        verified: Some(PlacementCheck {
            moved: None,
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
        pipeline.emit(&Record::of_median(
            "cache",
            metric,
            unit,
            summary,
            params.clone(),
            placement.clone(),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::discover_from_xml;
    use std::path::Path;

    /// On a two-socket SMT server (siblings 64 apart) with the CPUs in
    /// compact order (the owner's sibling next), the sharer of every
    /// measurer shares no core, L1 or L2 with the owner or the measurer,
    /// and is on the owner's node; with only the owner's and the
    /// measurer's cores allowed, the Shared state is refused with the
    /// reason instead of measuring Exclusive with a sibling. (Before: the
    /// sharer was the first allowed CPU on the owner's node, its sibling.)
    #[test]
    fn the_sharer_is_never_a_sibling_on_an_smt_server() {
        let topology = discover_from_xml(Path::new(&format!(
            "{}/tests/fixtures/two-socket-smt.xml",
            env!("CARGO_MANIFEST_DIR")
        )))
        .unwrap();
        let compact: Vec<u32> = topology.cores.iter().flatten().copied().collect();
        let owner = topology.cores[0][0];
        let sibling = topology.cores[0][1];
        assert_eq!(
            compact[1], sibling,
            "the sibling comes next in compact order"
        );
        let measurers = default_measurers(&topology, owner, &compact);
        assert!(measurers.len() >= 3, "{measurers:?}");
        for m in &measurers {
            let sharer = sharer_for(&topology, owner, m.cpu, &compact).unwrap();
            assert_ne!(sharer.cpu, sibling, "{m:?}");
            assert!(
                !share_private_cache(&topology, sharer.cpu, owner),
                "{m:?} {sharer:?}"
            );
            assert!(
                !share_private_cache(&topology, sharer.cpu, m.cpu),
                "{m:?} {sharer:?}"
            );
            assert_eq!(relation_of_sharer(&topology, owner, sharer.cpu), "apart");
            assert_eq!(
                topology.node_of_cpu(sharer.cpu),
                topology.node_of_cpu(owner),
                "{sharer:?}"
            );
            assert!(sharer.reason.contains("owner's node"), "{sharer:?}");
        }
        // Only the owner's core and another core allowed: no sharer, and why.
        let other = topology.cores[1].clone();
        let mut allowed = topology.cores[0].clone();
        allowed.extend(&other);
        let why = sharer_for(&topology, owner, other[0], &allowed)
            .unwrap_err()
            .to_string();
        assert!(why.contains("Exclusive"), "{why}");
    }

    /// Whether the sharer is apart from the owner by the relations' own rule.
    fn relation_of_sharer(topology: &Machine, owner: u32, cpu: u32) -> &'static str {
        match relations::relation_of(topology, owner, cpu) {
            Relation::SmtSibling | Relation::SameL2 => "private",
            _ => "apart",
        }
    }

    /// Under a 150 MiB memory limit, a host with a 480 MiB L3 (the Intel
    /// Xeon VM of 2026-11-27): the L3 buffer is cut to half of what the
    /// limit leaves usable, still above twice the L2, and DRAM (960 MiB,
    /// never cut) is left out with its reason. Before, both sizes were
    /// kept and `cache` was killed by the OOM killer.
    #[test]
    fn levels_fit_under_a_memory_limit_or_are_left_out_with_why() {
        let mut topology = crate::topology::synthetic(
            "pack:1 [numa(memory=16GiB)] l3:1(size=480MiB) l2:2(size=2MiB) l1d:2(size=48KiB) core:2 pu:1",
        );
        let owner = topology.cores[0][0];
        let sizes = level_sizes(&topology, owner, &[1, 2, 3, 0]);
        assert_eq!(sizes.len(), 4, "{sizes:?}");
        let (kept, left_out) = fit_memory_limit(&topology, owner, sizes.clone());
        assert_eq!(
            (kept, left_out.len()),
            (sizes.clone(), 0),
            "no limit: all kept"
        );
        topology.allowed.memory_limits = vec![crate::topology::MemoryLimit {
            source: "cgroup v2 memory.max (/sys/fs/cgroup/job)".into(),
            limit_bytes: 150 << 20,
            used_bytes: 10 << 20,
            origin: None,
        }];
        let cap = (crate::bench::limit_usable_bytes(&topology).unwrap() / 2) as usize / 4096 * 4096;
        let (kept, left_out) = fit_memory_limit(&topology, owner, sizes.clone());
        assert_eq!(kept.len(), 3, "{kept:?}");
        assert_eq!(kept[..2], sizes[..2], "L1 and L2 fit as they were");
        assert_eq!((kept[2].level, kept[2].bytes), (Some(3), cap));
        assert!(kept[2].bytes > 2 * (2 << 20) && kept[2].bytes < 480 << 20);
        assert_eq!(left_out.len(), 1, "{left_out:?}");
        assert!(
            left_out[0].starts_with("DRAM is not measured"),
            "{left_out:?}"
        );
        assert!(left_out[0].contains("960 MiB"), "{left_out:?}");
    }

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
