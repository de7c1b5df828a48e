//! A buffer's pages grouped by the physical range they sit on: range `i`
//! holds physical addresses `[i x range_size, (i + 1) x range_size)`.
//! Pages next to each other in the buffer and in one range are merged into
//! one chunk, so a range is read as a few long runs where the kernel gave
//! contiguous memory (2 MiB at least under transparent huge pages).

use std::collections::BTreeMap;

/// Bytes `[offset, offset + bytes)` of the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    pub offset: usize,
    pub bytes: usize,
}

/// The buffer's pages on one physical range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhysicalRange {
    /// First physical address of the range.
    pub start: u64,
    /// One past its last physical address.
    pub end: u64,
    /// The buffer's pieces on it, in buffer order.
    pub chunks: Vec<Chunk>,
    /// Base pages of the buffer on it.
    pub pages: u64,
}

impl PhysicalRange {
    /// Bytes of the buffer on this range.
    pub fn bytes(&self) -> u64 {
        self.chunks.iter().map(|chunk| chunk.bytes as u64).sum()
    }
}

/// A buffer's pages by range, and those whose frame was not known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageGroups {
    /// Every range holding at least one page, by physical address.
    pub ranges: Vec<PhysicalRange>,
    /// Pages not present or whose frame number was hidden.
    pub pages_without_frame: u64,
}

/// Groups pages by physical range: `frames[i]` is the frame number of the
/// buffer's page `i` (`page_size` bytes each), `None` when unknown.
pub fn group_by_range(frames: &[Option<u64>], page_size: usize, range_size: u64) -> PageGroups {
    let mut ranges: BTreeMap<u64, PhysicalRange> = BTreeMap::new();
    let mut pages_without_frame = 0;
    for (page, frame) in frames.iter().enumerate() {
        let Some(frame) = frame else {
            pages_without_frame += 1;
            continue;
        };
        let index = frame * page_size as u64 / range_size;
        let range = ranges.entry(index).or_insert_with(|| PhysicalRange {
            start: index * range_size,
            end: (index + 1) * range_size,
            chunks: Vec::new(),
            pages: 0,
        });
        range.pages += 1;
        let offset = page * page_size;
        match range.chunks.last_mut() {
            Some(last) if last.offset + last.bytes == offset => last.bytes += page_size,
            _ => range.chunks.push(Chunk {
                offset,
                bytes: page_size,
            }),
        }
    }
    PageGroups {
        ranges: ranges.into_values().collect(),
        pages_without_frame,
    }
}

/// `chunks` cut into `shares` parts of equal bytes (within one `granule`,
/// at whose multiples chunks are cut), one per thread, in order.
pub fn split_among(chunks: &[Chunk], shares: usize, granule: usize) -> Vec<Vec<Chunk>> {
    let shares = shares.max(1);
    let total: usize = chunks.iter().map(|chunk| chunk.bytes).sum();
    let granules = total / granule;
    // Share s ends after this many bytes of the chunks' concatenation.
    let end_of = |share: usize| match share + 1 == shares {
        true => total,
        false => granules * (share + 1) / shares * granule,
    };
    let mut parts = vec![Vec::new(); shares];
    let mut share = 0;
    let mut before = 0; // bytes of the concatenation before the current chunk piece
    for chunk in chunks {
        let (mut offset, mut left) = (chunk.offset, chunk.bytes);
        while left > 0 {
            while share + 1 < shares && before >= end_of(share) {
                share += 1;
            }
            let take = left.min(end_of(share) - before).max(1).min(left);
            parts[share].push(Chunk {
                offset,
                bytes: take,
            });
            offset += take;
            left -= take;
            before += take;
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: usize = 4096;
    const RANGE: u64 = 1 << 30;

    fn frame_at(address: u64) -> Option<u64> {
        Some(address / PAGE as u64)
    }

    #[test]
    fn pages_fall_in_the_range_of_their_physical_address_and_neighbours_merge() {
        let frames = vec![
            frame_at(RANGE + 0x1000),     // range 1
            frame_at(RANGE + 0x2000),     // range 1, next in the buffer: merged
            frame_at(3 * RANGE),          // range 3
            None,                         // not present
            frame_at(RANGE + 0x5000),     // range 1 again, after a gap in the buffer
            frame_at(3 * RANGE + 0x1000), // range 3, after the gap
        ];
        let groups = group_by_range(&frames, PAGE, RANGE);
        assert_eq!(groups.pages_without_frame, 1);
        assert_eq!(groups.ranges.len(), 2);
        let one = &groups.ranges[0];
        assert_eq!((one.start, one.end, one.pages), (RANGE, 2 * RANGE, 3));
        assert_eq!(
            one.chunks,
            vec![
                Chunk {
                    offset: 0,
                    bytes: 2 * PAGE
                },
                Chunk {
                    offset: 4 * PAGE,
                    bytes: PAGE
                }
            ]
        );
        assert_eq!(one.bytes(), 3 * PAGE as u64);
        let three = &groups.ranges[1];
        assert_eq!((three.start, three.pages), (3 * RANGE, 2));
        assert_eq!(three.chunks.len(), 2, "pages 2 and 5 are not neighbours");
    }

    #[test]
    fn shares_are_equal_to_the_granule_and_cover_every_byte_once() {
        let chunks = vec![
            Chunk {
                offset: 0,
                bytes: 10 * PAGE,
            },
            Chunk {
                offset: 100 * PAGE,
                bytes: 3 * PAGE,
            },
            Chunk {
                offset: 200 * PAGE,
                bytes: 7 * PAGE,
            },
        ];
        for shares in 1..=7 {
            let parts = split_among(&chunks, shares, PAGE);
            assert_eq!(parts.len(), shares);
            let sizes: Vec<usize> = parts
                .iter()
                .map(|part| part.iter().map(|c| c.bytes).sum())
                .collect();
            assert_eq!(sizes.iter().sum::<usize>(), 20 * PAGE);
            let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(max - min <= PAGE, "{shares} shares: {sizes:?}");
            // In order, contiguous, page-aligned.
            let flat: Vec<Chunk> = parts.concat();
            assert!(flat
                .iter()
                .all(|c| c.offset % PAGE == 0 && c.bytes % PAGE == 0));
            let mut expected = Vec::new();
            for chunk in &chunks {
                for page in 0..chunk.bytes / PAGE {
                    expected.push(chunk.offset + page * PAGE);
                }
            }
            let mut got = Vec::new();
            for chunk in &flat {
                for page in 0..chunk.bytes / PAGE {
                    got.push(chunk.offset + page * PAGE);
                }
            }
            assert_eq!(got, expected);
        }
    }

    #[test]
    fn more_shares_than_granules_leave_some_empty() {
        let chunks = vec![Chunk {
            offset: 0,
            bytes: 2 * PAGE,
        }];
        let parts = split_among(&chunks, 4, PAGE);
        let total: usize = parts.iter().flatten().map(|c| c.bytes).sum();
        assert_eq!(total, 2 * PAGE);
        assert_eq!(parts.iter().filter(|part| part.is_empty()).count(), 2);
    }
}
