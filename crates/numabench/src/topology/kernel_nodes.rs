//! Facts about NUMA nodes that hwloc does not report, read from the
//! kernel's node directory (`/sys/devices/system/node/nodeN`).

use crate::parse::parse_id_list;
use std::fs;
use std::path::Path;

const NODE_DIR: &str = "/sys/devices/system/node";

/// Memory of node `index` a program can have now, in bytes: `MemFree` of its
/// `meminfo` plus what the kernel reclaims at once when asked
/// ([`parse_meminfo_available`]). A node whose memory a build or a file
/// copy filled with page cache is not full.
pub fn free_bytes(index: u32) -> Option<u64> {
    let text = fs::read_to_string(Path::new(NODE_DIR).join(format!("node{index}/meminfo"))).ok()?;
    parse_meminfo_available(&text)
}

/// The CPUs the kernel lists for node `index` (empty for a CPU-less node).
pub fn cpus(index: u32) -> Option<Vec<u32>> {
    let text = fs::read_to_string(Path::new(NODE_DIR).join(format!("node{index}/cpulist"))).ok()?;
    let text = text.trim();
    if text.is_empty() {
        Some(Vec::new())
    } else {
        parse_id_list(text).ok()
    }
}

/// One field (in bytes) of a per-node meminfo file, whose lines look like
/// `Node 0 MemFree:        1234 kB`.
fn meminfo_field(text: &str, name: &str) -> Option<u64> {
    let key = format!(" {name}:");
    text.lines().find_map(|line| {
        let (_, rest) = line.split_once(&key)?;
        let kib: u64 = rest.split_whitespace().next()?.parse().ok()?;
        Some(kib * 1024)
    })
}

/// What a node can give a program now, from its meminfo: `MemFree`, plus
/// its clean file pages (`Active(file)` + `Inactive(file)` less `Dirty` and
/// `Writeback`) and reclaimable slab (`SReclaimable`), which the kernel
/// drops on demand, as `/proc/meminfo`'s `MemAvailable` counts them. Only
/// `MemFree` where the other fields are missing.
fn parse_meminfo_available(text: &str) -> Option<u64> {
    let free = meminfo_field(text, "MemFree")?;
    let field = |name| meminfo_field(text, name).unwrap_or(0);
    let file = field("Active(file)") + field("Inactive(file)");
    let clean_file = file.saturating_sub(field("Dirty") + field("Writeback"));
    Some(free + clean_file + field("SReclaimable"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_memfree_from_node_meminfo() {
        let text = "Node 0 MemTotal:       24576000 kB\nNode 0 MemFree:        20000000 kB\n";
        assert_eq!(parse_meminfo_available(text), Some(20_000_000 * 1024));
        assert_eq!(parse_meminfo_available("garbage"), None);
    }

    /// A node filled with page cache by a build (figures of this machine's
    /// node 0 after one): 7 GB free, but 23 GB a program can have.
    #[test]
    fn clean_page_cache_and_reclaimable_slab_count_as_available() {
        let text = "Node 0 MemTotal:       24684084 kB
Node 0 MemFree:         7348016 kB
Node 0 Active(anon):       1872 kB
Node 0 Active(file):    4909572 kB
Node 0 Inactive(file): 10854452 kB
Node 0 Dirty:             51320 kB
Node 0 Writeback:             0 kB
Node 0 FilePages:      15773140 kB
Node 0 SReclaimable:     687948 kB
";
        let kib = 7348016 + 4909572 + 10854452 - 51320 + 687948;
        assert_eq!(parse_meminfo_available(text), Some(kib * 1024));
    }
}
