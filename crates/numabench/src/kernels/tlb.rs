//! The TLB block of the default latency order: how much memory the first-level
//! data TLB maps, read from the CPU, so a chase random within blocks of that
//! size takes almost no TLB misses while touching enough pages that the
//! hardware prefetchers cannot follow it (the "idle latency" of MLC and
//! multichase, whose default block is 64 pages).

use super::chase::ChaseBlock;

/// Entries assumed when the CPU does not say: multichase's default TLB
/// locality of 64 pages, which its authors chose to stay within the L1 data
/// TLB of current CPUs while spreading over enough pages (well past 32) to
/// defeat the stream prefetchers.
pub const DEFAULT_TLB_ENTRIES: u64 = 64;

/// The block for pages of `page_bytes` (a power-of-two number of pages; the
/// source says, e.g., "cpuid 0x80000005: 72-entry L1 dTLB for 4096-byte
/// pages, rounded down to 64 pages"): the L1 data TLB's entries for that
/// page size, rounded down to a power of two, times the page size; with
/// [`DEFAULT_TLB_ENTRIES`] when the CPU does not report them.
pub fn tlb_block(page_bytes: u64) -> ChaseBlock {
    let found = l1_dtlb_entries(page_bytes);
    let (entries, from) = match &found {
        Some((entries, from)) => (*entries, from.as_str()),
        None => (DEFAULT_TLB_ENTRIES, "L1 dTLB size not reported by the CPU"),
    };
    block_from_entries(entries, page_bytes, from, found.is_none())
}

/// The block of `entries` pages of `page_bytes` (entries rounded down to a
/// power of two, at least one), with its description.
fn block_from_entries(entries: u64, page_bytes: u64, from: &str, defaulted: bool) -> ChaseBlock {
    let pages = if entries == 0 {
        1
    } else {
        1u64 << entries.ilog2()
    };
    let source = if defaulted {
        format!("{from}: default of {pages} pages of {page_bytes} bytes (multichase's)")
    } else if pages == entries {
        format!("{from}: {entries}-entry L1 dTLB for {page_bytes}-byte pages")
    } else {
        format!(
            "{from}: {entries}-entry L1 dTLB for {page_bytes}-byte pages, rounded down to {pages} pages"
        )
    };
    ChaseBlock {
        bytes: pages * page_bytes,
        source,
    }
}

/// Entries of the first-level data TLB for `page_bytes` pages (4 KiB or
/// 2 MiB), and which CPUID leaf said so.
#[cfg(target_arch = "x86_64")]
fn l1_dtlb_entries(page_bytes: u64) -> Option<(u64, String)> {
    use std::arch::x86_64::__cpuid_count;
    let huge = page_bytes >= 2 << 20;
    let vendor = __cpuid_count(0, 0);
    let max_leaf = vendor.eax;
    let amd_like =
        vendor.ebx == u32::from_le_bytes(*b"Auth") || vendor.ebx == u32::from_le_bytes(*b"Hygo");
    if amd_like {
        // AMD: leaf 0x80000005 EBX (4 KiB) / EAX (2 MiB), bits 23:16 = L1 dTLB entries.
        if __cpuid_count(0x8000_0000, 0).eax < 0x8000_0005 {
            return None;
        }
        let leaf = __cpuid_count(0x8000_0005, 0);
        let register = if huge { leaf.eax } else { leaf.ebx };
        let entries = u64::from((register >> 16) & 0xff);
        return (entries > 0).then(|| (entries, "cpuid 0x80000005".to_string()));
    }
    if max_leaf < 0x18 {
        return None;
    }
    // Intel: leaf 0x18 describes one TLB per sub-leaf; take the first-level
    // data (or load-only) TLB that maps this page size.
    let sub_leaves = __cpuid_count(0x18, 0).eax;
    let size_bit = if huge { 1 << 1 } else { 1 << 0 };
    (0..=sub_leaves)
        .filter_map(|sub_leaf| {
            let leaf = __cpuid_count(0x18, sub_leaf);
            let kind = leaf.edx & 0x1f; // 1 data, 3 unified, 4 load-only
            let level = (leaf.edx >> 5) & 0x7;
            let maps = leaf.ebx & size_bit != 0;
            let entries = u64::from(leaf.ebx >> 16) * u64::from(leaf.ecx);
            (level == 1 && matches!(kind, 1 | 3 | 4) && maps && entries > 0).then_some(entries)
        })
        .max()
        .map(|entries| (entries, "cpuid 0x18".to_string()))
}

#[cfg(not(target_arch = "x86_64"))]
fn l1_dtlb_entries(_page_bytes: u64) -> Option<(u64, String)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_a_power_of_two_pages_within_the_tlb_reach() {
        for page in [4096u64, 2 << 20] {
            let block = tlb_block(page);
            let pages = block.bytes / page;
            assert_eq!(block.bytes % page, 0);
            assert!(pages.is_power_of_two(), "{block:?}");
            if let Some((entries, _)) = l1_dtlb_entries(page) {
                assert!(pages <= entries && 2 * pages > entries, "{block:?}");
            } else {
                assert_eq!(pages, DEFAULT_TLB_ENTRIES);
            }
            assert!(!block.source.is_empty());
        }
    }

    #[test]
    fn entries_round_down_and_say_so() {
        let block = block_from_entries(72, 4096, "cpuid 0x80000005", false);
        assert_eq!(block.bytes, 64 * 4096);
        assert!(block.source.contains("72-entry"), "{}", block.source);
        assert!(block.source.contains("rounded down to 64 pages"));
        let exact = block_from_entries(64, 4096, "cpuid 0x18", false);
        assert_eq!(exact.bytes, 64 * 4096);
        assert!(!exact.source.contains("rounded"));
        let default = block_from_entries(DEFAULT_TLB_ENTRIES, 4096, "not reported", true);
        assert!(default.source.contains("default"), "{}", default.source);
        assert_eq!(block_from_entries(0, 4096, "x", false).bytes, 4096);
    }
}
