//! Which cache level a working set falls in.

use crate::output::Record;
use crate::topology::Machine;

/// The data caches one CPU sees, smallest first (`L1d 32 KiB`, `L2
/// 1 MiB`, ...), to name the level a working set fits in. Empty when
/// unknown (records read from a file): then only "cache" or "DRAM" is
/// said, from the record's `cache_affected`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheLadder {
    levels: Vec<(String, u64)>,
}

impl CacheLadder {
    /// The ladder from named sizes, in any order.
    pub fn new(mut levels: Vec<(String, u64)>) -> Self {
        levels.sort_by_key(|(_, size)| *size);
        Self { levels }
    }

    /// The data and unified CPU caches of a topology, one per level.
    pub fn of(topology: &Machine) -> Self {
        let mut levels: Vec<(String, u64)> = Vec::new();
        for cache in &topology.caches {
            let name = match cache.cache_type.as_str() {
                "instruction" => continue,
                "data" => format!("L{}d", cache.level),
                _ => format!("L{}", cache.level),
            };
            match levels.iter_mut().find(|(known, _)| *known == name) {
                Some(known) => known.1 = known.1.max(cache.size_bytes),
                None => levels.push((name, cache.size_bytes)),
            }
        }
        Self::new(levels)
    }

    /// The level a record's working set (`size_bytes`) falls in: the
    /// smallest cache that holds it; `L3+DRAM` when the caches in front
    /// still hold a good part of it (`cache_affected`) but no one cache
    /// holds all; `DRAM` when the caches hold too little to matter.
    pub fn level_of(&self, record: &Record) -> String {
        let size = super::cells::u64_param(record, "size_bytes");
        let affected = record
            .params
            .get("cache_affected")
            .and_then(serde_json::Value::as_bool);
        if affected == Some(false) {
            return "DRAM".to_string();
        }
        let Some(size) = size else {
            return "-".to_string();
        };
        if let Some((name, _)) = self.levels.iter().find(|(_, bytes)| *bytes >= size) {
            return name.clone();
        }
        match (self.levels.last(), affected) {
            (Some((last, _)), _) => format!("{last}+DRAM"),
            (None, Some(true)) => "cache".to_string(),
            (None, _) => "-".to_string(),
        }
    }
}
