//! Physical page frame numbers of this process's pages, from
//! `/proc/self/pagemap`: entry bit 63 says the page is present, bits 0-54
//! hold its frame number. The kernel shows frame numbers only to a process
//! with CAP_SYS_ADMIN; to others it reads 0, which is never taken for a
//! frame here ([`frames_visible`] probes for it before anything relies on
//! them).

use super::buffer::Buffer;
use super::syscalls::PAGE_SIZE;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// `/proc/self/pagemap` bit: the page is present in RAM.
pub(super) const PM_PRESENT: u64 = 1 << 63;
/// `/proc/self/pagemap` bits 0..=54: the page frame number.
const PM_PFN_MASK: u64 = (1 << 55) - 1;
/// Entries read from the file in one call (8 bytes each: 4 MiB of memory
/// described per 8 KiB read).
const ENTRIES_PER_READ: usize = 1 << 10;

/// The frame number a pagemap `entry` holds: `None` when the page is not
/// present or the number is hidden (read as 0 without CAP_SYS_ADMIN).
pub fn frame_of_entry(entry: u64) -> Option<u64> {
    let frame = entry & PM_PFN_MASK;
    (entry & PM_PRESENT != 0 && frame != 0).then_some(frame)
}

/// The frame number of every base page of `[start, start + length)`, in
/// order (`start` page-aligned): `None` for a page not present or whose
/// number this process may not see.
pub fn page_frames(start: usize, length: usize) -> io::Result<Vec<Option<u64>>> {
    let pagemap = File::open("/proc/self/pagemap")?;
    let first = (start / PAGE_SIZE) as u64;
    let pages = length.div_ceil(PAGE_SIZE);
    let mut frames = Vec::with_capacity(pages);
    let mut bytes = vec![0u8; ENTRIES_PER_READ * 8];
    let mut done = 0;
    while done < pages {
        let count = ENTRIES_PER_READ.min(pages - done);
        let chunk = &mut bytes[..count * 8];
        pagemap.read_exact_at(chunk, (first + done as u64) * 8)?;
        frames.extend(
            chunk
                .chunks_exact(8)
                .map(|word| u64::from_ne_bytes(word.try_into().expect("8 bytes")))
                .map(frame_of_entry),
        );
        done += count;
    }
    Ok(frames)
}

/// Whether this process can see physical frame numbers: one page mapped,
/// touched and looked up. False without CAP_SYS_ADMIN (the kernel shows 0)
/// or without a readable pagemap.
pub fn frames_visible() -> bool {
    let Ok(mut page) = Buffer::new(PAGE_SIZE) else {
        return false;
    };
    page.touch_pages();
    page_frames(page.as_ptr() as usize, page.len())
        .map(|frames| frames.first().copied().flatten().is_some())
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_gives_its_frame_only_when_present_and_shown() {
        assert_eq!(frame_of_entry(PM_PRESENT | 0x1234), Some(0x1234));
        assert_eq!(frame_of_entry(0x1234), None, "not present");
        assert_eq!(frame_of_entry(PM_PRESENT), None, "hidden: read as 0");
        // Bits above the frame number (soft-dirty, exclusive, ...) are not part of it.
        assert_eq!(frame_of_entry(PM_PRESENT | (1 << 55) | 7), Some(7));
    }

    #[test]
    fn touched_pages_have_frames_exactly_when_they_are_visible() {
        let mut buffer = Buffer::new(8 * PAGE_SIZE).unwrap();
        let before = page_frames(buffer.as_ptr() as usize, buffer.len()).unwrap();
        assert_eq!(before, vec![None; 8], "nothing touched, nothing present");
        buffer.touch_pages();
        let after = page_frames(buffer.as_ptr() as usize, buffer.len()).unwrap();
        assert_eq!(after.len(), 8);
        assert_eq!(
            after.iter().all(Option::is_some),
            frames_visible(),
            "{after:?}"
        );
    }
}
