//! Facts about NUMA nodes that hwloc does not report, read from the
//! kernel's node directory (`/sys/devices/system/node/nodeN`).

use crate::parse::parse_id_list;
use std::fs;
use std::path::Path;

const NODE_DIR: &str = "/sys/devices/system/node";

/// Free memory of node `index` in bytes (`MemFree` of its `meminfo`).
pub fn free_bytes(index: u32) -> Option<u64> {
    let text = fs::read_to_string(Path::new(NODE_DIR).join(format!("node{index}/meminfo"))).ok()?;
    parse_meminfo_free(&text)
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

/// Extracts `MemFree` (in bytes) from a per-node meminfo file, whose lines
/// look like `Node 0 MemFree:        1234 kB`.
fn parse_meminfo_free(text: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (_, rest) = line.split_once("MemFree:")?;
        let kib: u64 = rest.split_whitespace().next()?.parse().ok()?;
        Some(kib * 1024)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_memfree_from_node_meminfo() {
        let text = "Node 0 MemTotal:       24576000 kB\nNode 0 MemFree:        20000000 kB\n";
        assert_eq!(parse_meminfo_free(text), Some(20_000_000 * 1024));
        assert_eq!(parse_meminfo_free("garbage"), None);
    }
}
