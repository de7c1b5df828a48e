//! Whether a resident page is part of a huge page (a THP or a hugetlbfs
//! page), from `/proc/self/pagemap` and `/proc/kpageflags`. Reading page
//! frame numbers needs CAP_SYS_ADMIN: without it the answer is `None`,
//! never a guess.

use super::frames::{frame_of_entry, PM_PRESENT};
use super::syscalls::PAGE_SIZE;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// `/proc/kpageflags` bit: the page belongs to a hugetlbfs page.
const KPF_HUGE: u64 = 1 << 17;
/// `/proc/kpageflags` bit: the page belongs to a transparent huge page.
const KPF_THP: u64 = 1 << 22;

/// Open handles on the two files, for many look-ups.
#[derive(Debug)]
pub struct PageFlags {
    pagemap: File,
    kpageflags: File,
}

impl PageFlags {
    /// Opens the files; `None` when either cannot be read (no procfs, no
    /// privilege).
    pub fn open() -> Option<Self> {
        Some(Self {
            pagemap: File::open("/proc/self/pagemap").ok()?,
            kpageflags: File::open("/proc/kpageflags").ok()?,
        })
    }

    fn word(file: &File, index: u64) -> Option<u64> {
        let mut bytes = [0u8; 8];
        file.read_exact_at(&mut bytes, index * 8).ok()?;
        Some(u64::from_ne_bytes(bytes))
    }

    /// Whether the page at `address` is part of a huge page: `Some(false)`
    /// when it is not present or a base page, `None` when the frame number
    /// is hidden (no CAP_SYS_ADMIN) or the files cannot be read.
    pub fn is_huge(&self, address: usize) -> Option<bool> {
        let entry = Self::word(&self.pagemap, (address / PAGE_SIZE) as u64)?;
        if entry & PM_PRESENT == 0 {
            return Some(false);
        }
        let frame = frame_of_entry(entry)?;
        let flags = Self::word(&self.kpageflags, frame)?;
        Some(is_huge_flags(flags))
    }
}

/// True when kpageflags `flags` mark a THP or hugetlbfs page.
fn is_huge_flags(flags: u64) -> bool {
    flags & (KPF_HUGE | KPF_THP) != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{Buffer, HUGE_PAGE_SIZE};

    #[test]
    fn thp_and_hugetlb_bits_mark_huge_pages() {
        assert!(is_huge_flags(KPF_THP | 1));
        assert!(is_huge_flags(KPF_HUGE));
        assert!(!is_huge_flags(1 << 5));
    }

    #[test]
    fn a_base_page_is_not_huge_and_an_absent_one_neither() {
        let Some(flags) = PageFlags::open() else {
            return; // no kpageflags here: nothing to check, and nothing claimed
        };
        let mut buffer = Buffer::new(4 * HUGE_PAGE_SIZE).unwrap();
        buffer.advise_no_huge_pages().unwrap();
        assert_eq!(flags.is_huge(buffer.as_ptr() as usize), Some(false));
        buffer.touch_pages();
        assert!(matches!(
            flags.is_huge(buffer.as_ptr() as usize),
            Some(false) | None
        ));
    }
}
