//! Huge pages: the hugetlbfs pools the administrator reserved per node,
//! transparent huge pages (THP) as the fallback, and how much of a buffer
//! really got huge pages (from `/proc/self/smaps`), so a record never
//! claims huge pages it did not have.

use super::buffer::Buffer;
use super::errors::MemoryError;
use numabench_schema::HugePageCheck;
use std::path::Path;

/// The huge page size numabench uses: 2 MiB, the x86-64 and arm64 (4K
/// granule) PMD size.
pub const HUGE_PAGE_SIZE: usize = 2 << 20;

/// Free 2 MiB pages in `node`'s hugetlbfs pool, read below `root` (`/` on
/// a real system; a fixture directory in tests). `None` when the kernel
/// has no such pool for the node.
pub fn free_pool_pages(root: &Path, node: u32) -> Option<u64> {
    let path = root.join(format!(
        "sys/devices/system/node/node{node}/hugepages/hugepages-2048kB/free_hugepages"
    ));
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// True when every node in `nodes` has enough free pool pages to hold all
/// of `bytes` by itself. Conservative on purpose: a hugetlbfs fault that
/// finds its node's pool empty kills the process with SIGBUS, so the pool
/// is used only when no node can run short, whatever the placement.
pub fn pools_can_hold(root: &Path, nodes: &[u32], bytes: usize) -> bool {
    let needed = bytes.div_ceil(HUGE_PAGE_SIZE) as u64;
    !nodes.is_empty()
        && nodes
            .iter()
            .all(|&node| free_pool_pages(root, node).is_some_and(|free| free >= needed))
}

/// Huge-page coverage of `buffer` from `/proc/self/smaps`.
pub fn huge_page_check(buffer: &Buffer) -> Result<HugePageCheck, MemoryError> {
    huge_page_check_range(buffer.as_ptr() as usize, buffer.len(), buffer.is_hugetlb())
}

/// Huge-page coverage of `[start, start + bytes)` from `/proc/self/smaps`
/// (`hugetlb`: the range comes from a hugetlbfs pool), for memory held by
/// something else than a [`Buffer`] reference.
pub fn huge_page_check_range(
    start: usize,
    bytes: usize,
    hugetlb: bool,
) -> Result<HugePageCheck, MemoryError> {
    let smaps =
        std::fs::read_to_string("/proc/self/smaps").map_err(MemoryError::HugePageCoverage)?;
    let start = start as u64;
    let usage = smaps_usage(&smaps, start, start + bytes as u64);
    Ok(HugePageCheck {
        source: if hugetlb {
            "hugetlbfs".into()
        } else {
            "thp".into()
        },
        resident_bytes: usage.resident_bytes,
        huge_bytes: usage.huge_bytes,
        fraction: if usage.resident_bytes == 0 {
            0.0
        } else {
            (usage.huge_bytes as f64 / usage.resident_bytes as f64).min(1.0)
        },
    })
}

/// Resident and huge-page-backed bytes of the mappings overlapping
/// `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct SmapsUsage {
    resident_bytes: u64,
    huge_bytes: u64,
}

/// Sums `Rss` and huge-page bytes (`AnonHugePages` for THP,
/// `Private_Hugetlb` + `Shared_Hugetlb` for hugetlbfs, whose pages do not
/// count in `Rss`) over the smaps entries overlapping `[start, end)`. The
/// kernel may have merged the buffer's mapping with a neighbour of the same
/// flags and policy; the entry's counts then cover both, which is still the
/// coverage of memory placed the same way.
fn smaps_usage(smaps: &str, start: u64, end: u64) -> SmapsUsage {
    let mut usage = SmapsUsage::default();
    let mut inside = false;
    for line in smaps.lines() {
        if let Some((low, high)) = mapping_range(line) {
            inside = low < end && start < high;
            continue;
        }
        if !inside {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let kilobytes = || -> u64 {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .unwrap_or(0)
                * 1024
        };
        match key {
            "Rss" => usage.resident_bytes += kilobytes(),
            "AnonHugePages" => usage.huge_bytes += kilobytes(),
            "Private_Hugetlb" | "Shared_Hugetlb" => {
                let bytes = kilobytes();
                usage.huge_bytes += bytes;
                usage.resident_bytes += bytes;
            }
            _ => {}
        }
    }
    usage
}

/// The address range of an smaps header line (`7f..-7f.. rw-p ...`).
fn mapping_range(line: &str) -> Option<(u64, u64)> {
    let range = line.split_whitespace().next()?;
    let (low, high) = range.split_once('-')?;
    if line.split_whitespace().nth(1)?.len() != 4 {
        return None;
    }
    Some((
        u64::from_str_radix(low, 16).ok()?,
        u64::from_str_radix(high, 16).ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
55d0a0000000-55d0a0021000 rw-p 00000000 00:00 0                          [heap]
Size:                132 kB
Rss:                   8 kB
AnonHugePages:         0 kB
7f0000000000-7f0000800000 rw-p 00000000 00:00 0 
Size:               8192 kB
KernelPageSize:        4 kB
Rss:                8192 kB
AnonHugePages:      6144 kB
Private_Hugetlb:       0 kB
7f1000000000-7f1000400000 rw-s 00000000 00:0f 1234                       /anon_hugepage (deleted)
Size:               4096 kB
KernelPageSize:     2048 kB
Rss:                   0 kB
AnonHugePages:         0 kB
Shared_Hugetlb:        0 kB
Private_Hugetlb:    4096 kB
";

    #[test]
    fn thp_coverage_is_anon_huge_pages_over_rss() {
        let usage = smaps_usage(SMAPS, 0x7f00_0000_0000, 0x7f00_0080_0000);
        assert_eq!(usage.resident_bytes, 8192 * 1024);
        assert_eq!(usage.huge_bytes, 6144 * 1024);
    }

    #[test]
    fn hugetlb_pages_count_though_rss_leaves_them_out() {
        let usage = smaps_usage(SMAPS, 0x7f10_0000_0000, 0x7f10_0040_0000);
        assert_eq!(usage.resident_bytes, 4096 * 1024);
        assert_eq!(usage.huge_bytes, 4096 * 1024);
    }

    #[test]
    fn ranges_outside_every_mapping_count_nothing() {
        assert_eq!(smaps_usage(SMAPS, 0x1000, 0x2000), SmapsUsage::default());
    }

    #[test]
    fn pools_are_read_per_node_and_must_each_hold_everything() {
        let root = tempfile::tempdir().unwrap();
        let pool = |node: u32, free: u64| {
            let dir = root.path().join(format!(
                "sys/devices/system/node/node{node}/hugepages/hugepages-2048kB"
            ));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("free_hugepages"), format!("{free}\n")).unwrap();
        };
        pool(0, 10);
        pool(1, 3);
        assert_eq!(free_pool_pages(root.path(), 0), Some(10));
        assert_eq!(free_pool_pages(root.path(), 2), None);
        let four_pages = 4 * HUGE_PAGE_SIZE;
        assert!(pools_can_hold(root.path(), &[0], four_pages));
        assert!(!pools_can_hold(root.path(), &[0, 1], four_pages));
        assert!(pools_can_hold(
            root.path(),
            &[0, 1],
            four_pages - HUGE_PAGE_SIZE
        ));
        assert!(!pools_can_hold(root.path(), &[2], 1));
        assert!(!pools_can_hold(root.path(), &[], 1));
    }

    /// A buffer mapped for THP starts on a 2 MiB boundary and holds whole
    /// 2 MiB units, so (THP on) every byte of it is a huge page; a plain
    /// mapping of the same odd size generally is not aligned.
    #[test]
    fn a_thp_buffer_is_aligned_and_covered_whole() {
        let odd = 5 * HUGE_PAGE_SIZE + 3 * 4096;
        let mut buffer = Buffer::new_thp(odd).unwrap();
        assert_eq!(buffer.as_ptr() as usize % HUGE_PAGE_SIZE, 0);
        assert_eq!(buffer.len(), 6 * HUGE_PAGE_SIZE);
        buffer.touch_pages();
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if thp.contains("[never]") || thp.is_empty() {
            eprintln!("THP is off here: coverage not checked");
            return;
        }
        let check = huge_page_check(&buffer).unwrap();
        assert_eq!(check.source, "thp");
        assert_eq!(check.fraction, 1.0, "{check:?}");
    }

    #[test]
    fn this_process_reports_thp_coverage_of_a_touched_buffer() {
        let mut buffer = Buffer::new(8 * HUGE_PAGE_SIZE).unwrap();
        buffer.advise_huge_pages().unwrap();
        buffer.touch_pages();
        let check = huge_page_check(&buffer).unwrap();
        assert_eq!(check.source, "thp");
        // THP may be off or fragmented here: the coverage is whatever the
        // kernel granted, but the buffer is resident and the fraction sane.
        assert!(check.resident_bytes >= 8 * HUGE_PAGE_SIZE as u64);
        assert!((0.0..=1.0).contains(&check.fraction));
        assert!(check.huge_bytes <= check.resident_bytes);
    }
}
