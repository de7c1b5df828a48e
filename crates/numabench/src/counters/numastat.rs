//! The kernel's per-node allocation counters,
//! /sys/devices/system/node/nodeN/numastat, read before and after a run.
//! They count pages allocated on node N since boot, system-wide (every
//! process adds to them, not only the one measured):
//! - `numa_hit`: allocated on N, the node the allocation preferred;
//! - `numa_miss`: allocated on N although another node was preferred;
//! - `numa_foreign`: preferred N but allocated on another node;
//! - `interleave_hit`: interleave policy allocations that got N as asked;
//! - `local_node`: allocated on N by a task running on N;
//! - `other_node`: allocated on N by a task running on another node (a
//!   remote placement such as `bind` to the other node shows here).

use std::collections::BTreeMap;
use std::path::Path;

/// The counters of one node, in file order.
pub const NUMASTAT_FIELDS: [&str; 6] = [
    "numa_hit",
    "numa_miss",
    "numa_foreign",
    "interleave_hit",
    "local_node",
    "other_node",
];

/// One node's counters (pages), by name.
pub type NodeNumastat = BTreeMap<String, u64>;

/// Parses a numastat file (`name value` lines); unknown names are kept.
pub fn parse_numastat(text: &str) -> NodeNumastat {
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(char::is_whitespace)?;
            Some((name.to_string(), value.trim().parse().ok()?))
        })
        .collect()
}

/// Every node's counters under `root` (/sys/devices/system/node); empty
/// where the kernel has no NUMA statistics.
pub fn read_numastat_under(root: &Path) -> BTreeMap<u32, NodeNumastat> {
    std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let node = entry
                .file_name()
                .to_string_lossy()
                .strip_prefix("node")?
                .parse::<u32>()
                .ok()?;
            let text = std::fs::read_to_string(entry.path().join("numastat")).ok()?;
            Some((node, parse_numastat(&text)))
        })
        .collect()
}

/// Every node's counters now.
pub fn read_numastat() -> BTreeMap<u32, NodeNumastat> {
    read_numastat_under(Path::new("/sys/devices/system/node"))
}

/// `after - before` per node and counter (nodes and counters in both).
pub fn numastat_delta(
    before: &BTreeMap<u32, NodeNumastat>,
    after: &BTreeMap<u32, NodeNumastat>,
) -> BTreeMap<u32, NodeNumastat> {
    after
        .iter()
        .filter_map(|(node, counters)| {
            let earlier = before.get(node)?;
            let delta = counters
                .iter()
                .filter_map(|(name, value)| {
                    Some((name.clone(), value.saturating_sub(*earlier.get(name)?)))
                })
                .collect();
            Some((*node, delta))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_parsed_and_subtracted_per_node() {
        let dir = tempfile::tempdir().unwrap();
        let write = |node: u32, text: &str| {
            let path = dir.path().join(format!("node{node}"));
            std::fs::create_dir_all(&path).unwrap();
            std::fs::write(path.join("numastat"), text).unwrap();
        };
        write(0, "numa_hit 100\nnuma_miss 0\nnuma_foreign 0\ninterleave_hit 4\nlocal_node 100\nother_node 0\n");
        write(1, "numa_hit 50\nnuma_miss 2\nnuma_foreign 1\ninterleave_hit 4\nlocal_node 40\nother_node 10\n");
        std::fs::create_dir_all(dir.path().join("power")).unwrap();
        let before = read_numastat_under(dir.path());
        assert_eq!(before.len(), 2);
        assert_eq!(before[&1]["other_node"], 10);
        write(1, "numa_hit 1074\nnuma_miss 2\nnuma_foreign 1\ninterleave_hit 4\nlocal_node 40\nother_node 1034\n");
        let delta = numastat_delta(&before, &read_numastat_under(dir.path()));
        assert_eq!(delta[&1]["other_node"], 1024);
        assert_eq!(delta[&1]["numa_hit"], 1024);
        assert_eq!(delta[&1]["local_node"], 0);
        assert_eq!(delta[&0]["numa_hit"], 0);
        for field in NUMASTAT_FIELDS {
            assert!(delta[&0].contains_key(field), "{field}");
        }
    }

    #[test]
    fn this_machine_has_node_counters() {
        let now = read_numastat();
        if std::path::Path::new("/sys/devices/system/node/node0/numastat").exists() {
            assert!(now[&0].contains_key("numa_hit"), "{now:?}");
        }
    }
}
