//! Which level of the memory hierarchy a working set is read from: the one
//! rule every record's `cache_level`, every table's level column and
//! characterize's latency sizes use ([`holding`]), over the capacities a
//! topology declares ([`Machine::holding_levels`]).

use super::Machine;

/// What a working set that no cache holds is read from.
pub const MEMORY: &str = "memory";

/// One level a working set can sit in, with the capacity that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldingLevel {
    /// `L1`, `L2`, ... (CPU data caches) or `memory-side cache`.
    pub name: String,
    /// The capacity of the level as the measuring CPUs use it: every cache
    /// of the level that one of them uses, counted once.
    pub bytes: u64,
}

/// The one rule: the level holding a working set of `bytes` is the
/// smallest of `levels` (smallest first) whose capacity is at least
/// `bytes`; `None` when none is, and it is read from memory.
///
/// A working set no larger than a cache is read from it: a random chase
/// over 32 KiB with a 48 KiB L1d measures the L1's 5 cycles. A size at a
/// level's boundary mixes two levels whatever rule names it, so the sizes
/// numabench chooses itself sit well inside each level
/// ([`Machine::inside_each_level`]) instead.
pub fn holding(levels: &[HoldingLevel], bytes: u64) -> Option<&HoldingLevel> {
    levels.iter().find(|level| level.bytes >= bytes)
}

impl Machine {
    /// The levels a working set read by `cpus` from the memory of `nodes`
    /// can sit in, smallest first: each CPU data (or unified) cache level
    /// with the capacity of its caches `cpus` use, then the memory-side
    /// caches in front of `nodes`. A level larger than none below it (a
    /// declared size that does not grow) is left out. Memory is not a level
    /// here ([`MEMORY`]).
    pub fn holding_levels(&self, cpus: &[u32], nodes: &[u32]) -> Vec<HoldingLevel> {
        let mut numbers: Vec<u32> = self
            .caches
            .iter()
            .filter(|cache| cache.cache_type != "instruction")
            .map(|cache| cache.level)
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        let mut levels: Vec<HoldingLevel> = numbers
            .into_iter()
            .map(|number| HoldingLevel {
                name: format!("L{number}"),
                bytes: self.data_cache_bytes(cpus, |of| of == number),
            })
            .collect();
        levels.push(HoldingLevel {
            name: "memory-side cache".into(),
            bytes: self.memory_side_cache_bytes(nodes),
        });
        let mut growing: Vec<HoldingLevel> = Vec::new();
        for level in levels {
            if level.bytes > growing.last().map_or(0, |below| below.bytes) {
                growing.push(level);
            }
        }
        growing
    }

    /// The level whose figure a working set of `bytes` read from `cpus`
    /// out of the memory of `nodes` gives ([`holding`] over
    /// [`Machine::holding_levels`]): `L1`, `L2`, ..., `memory-side cache`,
    /// else [`MEMORY`]; with the level's capacity (`None` for memory).
    pub fn level_holding(&self, bytes: u64, cpus: &[u32], nodes: &[u32]) -> (String, Option<u64>) {
        let levels = self.holding_levels(cpus, nodes);
        match holding(&levels, bytes) {
            Some(level) => (level.name.clone(), Some(level.bytes)),
            None => (MEMORY.into(), None),
        }
    }

    /// [`Machine::level_holding`]'s name only: what a record's
    /// `cache_level` says.
    pub fn cache_level_holding(&self, bytes: u64, cpus: &[u32], nodes: &[u32]) -> String {
        self.level_holding(bytes, cpus, nodes).0
    }

    /// One working-set size well inside each level of
    /// [`Machine::holding_levels`], smallest first, as likwid's and Intel
    /// MLC's latency sweeps place theirs: half the first level; for each
    /// level above it, the geometric middle between the level below and it
    /// (rounded down to whole 4 KiB pages), as far from either boundary by
    /// ratio. A size at a boundary mixes two levels; one at a power of two
    /// need not be inside any (32 KiB with a 48 KiB L1d is 2/3 of it).
    /// Memory's size is the caller's (a DRAM working set).
    pub fn inside_each_level(&self, cpus: &[u32], nodes: &[u32]) -> Vec<u64> {
        let levels = self.holding_levels(cpus, nodes);
        let mut sizes = Vec::new();
        let mut below: Option<u64> = None;
        for level in &levels {
            let size = match below {
                None => level.bytes / 2,
                Some(below) => {
                    let middle = ((below as f64) * (level.bytes as f64)).sqrt() as u64;
                    (middle / PAGE * PAGE).max(below + 1)
                }
            };
            sizes.push(size.max(1));
            below = Some(level.bytes);
        }
        sizes
    }
}

/// Of the sizes of one sweep that one level holds, the size whose figure
/// stands for the level (what the findings quote and `compare` matches by
/// role): for memory (`memory` is true) the largest, the least affected by
/// the caches; for a cache the middle one (the lower of two), the furthest
/// from both of its boundaries. A sweep that characterize chose has one
/// size per level, well inside it ([`Machine::inside_each_level`]).
pub fn standing_for_level(memory: bool, sizes: &[u64]) -> Option<u64> {
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable();
    if memory {
        sorted.last().copied()
    } else {
        sorted.get(sorted.len().checked_sub(1)? / 2).copied()
    }
}

/// The page the geometric middles are rounded to.
const PAGE: u64 = 4096;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::synthetic;

    /// This project's build VM as its hypervisor declares it.
    fn declared_480m_l3() -> Machine {
        synthetic(
            "pack:1 [numa(memory=8GiB)] l3:1(size=480MiB) l2:2(size=2MiB) l1d:1(size=48KiB) core:1 pu:1",
        )
    }

    /// 32 KiB with a 48 KiB L1d is the L1's: a random chase over it
    /// measured 1.23 ns, 5 cycles. The former rule (at most half a level)
    /// named it `L2`, while the table beside it said `L1d`.
    #[test]
    fn a_working_set_that_fits_a_level_is_that_levels() {
        let machine = declared_480m_l3();
        let name = |bytes| machine.cache_level_holding(bytes, &[0], &[0]);
        assert_eq!(name(32 << 10), "L1");
        assert_eq!(name(48 << 10), "L1");
        assert_eq!(name((48 << 10) + 1), "L2");
        assert_eq!(name(2 << 20), "L2");
        assert_eq!(name(256 << 20), "L3");
        assert_eq!(name(480 << 20), "L3");
        assert_eq!(name(1 << 30), MEMORY);
        assert_eq!(
            machine.level_holding(32 << 20, &[0], &[0]),
            ("L3".to_string(), Some(480 << 20))
        );
        assert_eq!(
            machine.level_holding(1 << 30, &[0], &[0]),
            (MEMORY.into(), None)
        );
    }

    /// Two CPUs with an L2 each hold twice one L2's working set.
    #[test]
    fn a_level_holds_what_the_caches_the_cpus_use_hold() {
        let machine = declared_480m_l3();
        assert_eq!(machine.cache_level_holding(3 << 20, &[0], &[0]), "L3");
        assert_eq!(machine.cache_level_holding(3 << 20, &[0, 1], &[0]), "L2");
    }

    /// Half of L1d, then the geometric middles: each named by its own
    /// level, at least twice as far from either boundary. The former
    /// characterize sizes (x4 from the next power of two above half the
    /// L1d) put 32 KiB at 2/3 of a 48 KiB L1d and 2 MiB on the L2's
    /// boundary.
    #[test]
    fn sizes_sit_well_inside_each_level() {
        let machine = declared_480m_l3();
        let sizes = machine.inside_each_level(&[0], &[0]);
        assert_eq!(sizes.len(), 3);
        assert_eq!(sizes[0], 24 << 10);
        let levels = machine.holding_levels(&[0], &[0]);
        let mut below = 0;
        for (size, level) in sizes.iter().zip(&levels) {
            assert_eq!(machine.cache_level_holding(*size, &[0], &[0]), level.name);
            assert!(*size * 2 <= level.bytes, "{size} in {level:?}");
            assert!(*size >= 2 * below, "{size} above {below}");
            below = level.bytes;
        }
    }

    #[test]
    fn a_cache_stands_by_its_middle_size_and_memory_by_its_largest() {
        assert_eq!(standing_for_level(false, &[256, 64, 1024]), Some(256));
        assert_eq!(standing_for_level(false, &[256, 64]), Some(64));
        assert_eq!(standing_for_level(true, &[256, 64, 1024]), Some(1024));
        assert_eq!(standing_for_level(false, &[]), None);
    }

    /// A memory-side cache is a level after the CPU caches; a declared
    /// level no larger than the one below it is none.
    #[test]
    fn memory_side_caches_count_and_shrinking_levels_do_not() {
        let mut machine = declared_480m_l3();
        machine
            .memory_side_caches
            .push(crate::topology::MemorySideCache {
                level: 1,
                size_bytes: 16 << 30,
                line_bytes: 64,
                nodes: vec![0],
            });
        let names: Vec<String> = machine
            .holding_levels(&[0], &[0])
            .into_iter()
            .map(|level| level.name)
            .collect();
        assert_eq!(names, ["L1", "L2", "L3", "memory-side cache"]);
        assert_eq!(
            machine.cache_level_holding(4 << 30, &[0], &[0]),
            "memory-side cache"
        );
        let odd = synthetic(
            "pack:1 [numa(memory=8GiB)] l3:1(size=1MiB) l2:1(size=2MiB) l1d:1(size=48KiB) core:1 pu:1",
        );
        let names: Vec<String> = odd
            .holding_levels(&[0], &[0])
            .into_iter()
            .map(|level| level.name)
            .collect();
        assert_eq!(names, ["L1", "L2"]);
    }
}
