//! Which cache level a working set falls in, as the tables name it: the
//! record's own `cache_level` ([`Machine::level_holding`], the one rule),
//! or the same rule over a ladder of declared sizes for records made
//! before they carried it.

use crate::output::Record;
use crate::topology::levels::{holding, MEMORY};
use crate::topology::{HoldingLevel, Machine};

/// The levels one CPU sees, smallest first (`L1 32 KiB`, `L2 1 MiB`, ...),
/// to name the level of a record without `cache_level`. Empty when unknown
/// (records read from a file): then only "cache" or "DRAM" is said, from
/// the record's `cache_affected`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheLadder {
    levels: Vec<HoldingLevel>,
}

impl CacheLadder {
    /// The ladder from named sizes, in any order.
    pub fn new(levels: Vec<(String, u64)>) -> Self {
        let mut levels: Vec<HoldingLevel> = levels
            .into_iter()
            .map(|(name, bytes)| HoldingLevel { name, bytes })
            .collect();
        levels.sort_by_key(|level| level.bytes);
        Self { levels }
    }

    /// The CPU caches the first allowed CPU of a topology uses
    /// ([`Machine::holding_levels`]).
    pub fn of(topology: &Machine) -> Self {
        let cpu = topology.allowed.cpus.first().copied().unwrap_or(0);
        Self {
            levels: topology.holding_levels(&[cpu], &[]),
        }
    }

    /// The level a record's working set falls in: its `cache_level` (for a
    /// record without one, the level of the ladder holding its
    /// `size_bytes`, by the same rule); `L3+DRAM` when no cache holds it
    /// but the caches in front still hold a good part of it
    /// (`cache_affected`); `DRAM` when the caches hold too little to
    /// matter.
    pub fn level_of(&self, record: &Record) -> String {
        let affected = record.typed_params().cache_affected();
        if affected == Some(false) {
            return "DRAM".to_string();
        }
        let level = match record.typed_params().cache_level() {
            Some(level) => (level != MEMORY).then(|| level.to_string()),
            None => {
                let Some(size) = record.typed_params().size_bytes() else {
                    return "-".to_string();
                };
                holding(&self.levels, size).map(|level| level.name.clone())
            }
        };
        match (level, self.levels.last(), affected) {
            (Some(level), _, _) => level,
            (None, Some(last), _) => format!("{}+DRAM", last.name),
            (None, None, Some(true)) => "cache".to_string(),
            (None, None, _) => "-".to_string(),
        }
    }
}
