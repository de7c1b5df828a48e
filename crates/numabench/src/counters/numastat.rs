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
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::OnceLock;

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
#[cfg(test)]
fn read_numastat_under(root: &Path) -> BTreeMap<u32, NodeNumastat> {
    read_node_files(&open_node_files(root))
}

/// Every node's counters now.
///
/// `run` reads them before and after every run, so the node list is read
/// once per process and each node's file is kept open and read again from
/// its start (`pread` at offset 0 makes sysfs produce the counters afresh).
/// Listing the directory and opening every node's file per read cost
/// several system calls per node per run, outside the timed region but in
/// every run's marginal cost (#21 item 25). A node brought online while
/// numabench runs (memory hot-plug) is not in its figures. The kernel's
/// side grows with the machine: reading any node's file folds every
/// populated zone's per-CPU NUMA counters on every online CPU
/// (`fold_vm_numa_events`), so one read of all nodes costs nodes x zones
/// x CPUs counter exchanges.
pub fn read_numastat() -> BTreeMap<u32, NodeNumastat> {
    static NODE_FILES: OnceLock<Vec<(u32, File)>> = OnceLock::new();
    read_node_files(
        NODE_FILES.get_or_init(|| open_node_files(Path::new("/sys/devices/system/node"))),
    )
}

/// Reads each open node file from its start.
fn read_node_files(files: &[(u32, File)]) -> BTreeMap<u32, NodeNumastat> {
    let mut buffer = [0u8; 4096];
    files
        .iter()
        .filter_map(|(node, file)| {
            let length = file.read_at(&mut buffer, 0).ok()?;
            let text = std::str::from_utf8(&buffer[..length]).ok()?;
            Some((*node, parse_numastat(text)))
        })
        .collect()
}

/// Every node's numastat file under `root`, open, in node order.
fn open_node_files(root: &Path) -> Vec<(u32, File)> {
    let mut files: Vec<(u32, File)> = std::fs::read_dir(root)
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
            Some((node, File::open(entry.path().join("numastat")).ok()?))
        })
        .collect();
    files.sort_by_key(|(node, _)| *node);
    files
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

    /// This process's descriptors open on a node's numastat file in sysfs.
    fn numastat_descriptors() -> Vec<(String, std::path::PathBuf)> {
        let mut open: Vec<_> = std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .flatten()
            .filter_map(|entry| {
                let target = std::fs::read_link(entry.path()).ok()?;
                target
                    .starts_with("/sys/devices/system/node")
                    .then(|| (entry.file_name().to_string_lossy().into_owned(), target))
            })
            .collect();
        open.sort();
        open
    }

    /// Structural (#21 item 25): the node files are opened once and kept,
    /// and what is read through them again is current, not the first
    /// read's text: touching 64 MiB of fresh memory raises the machine's
    /// `numa_hit` by at least its 16,384 pages. Before, every read listed
    /// the directory and opened each node's file afresh.
    #[test]
    fn node_files_are_kept_open_and_read_afresh() {
        if !Path::new("/sys/devices/system/node/node0/numastat").exists() {
            return;
        }
        let hits = |counters: &BTreeMap<u32, NodeNumastat>| -> u64 {
            counters.values().map(|node| node["numa_hit"]).sum()
        };
        let first = read_numastat();
        let open = numastat_descriptors();
        assert!(!open.is_empty(), "no node file is kept open");
        let mut memory = vec![0u8; 64 << 20];
        for page in memory.chunks_mut(4096) {
            page[0] = 1;
        }
        std::hint::black_box(&memory);
        let second = read_numastat();
        assert_eq!(
            numastat_descriptors(),
            open,
            "a later read opened its files again"
        );
        assert!(
            hits(&second) >= hits(&first) + 16_384,
            "numa_hit {} -> {}",
            hits(&first),
            hits(&second)
        );
    }

    #[test]
    fn this_machine_has_node_counters() {
        let now = read_numastat();
        if std::path::Path::new("/sys/devices/system/node/node0/numastat").exists() {
            assert!(now[&0].contains_key("numa_hit"), "{now:?}");
        }
    }
}
