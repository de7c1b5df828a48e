//! `scan`: read bandwidth of each physically contiguous range of a node's
//! memory, to find a slow DIMM or channel. Each node's buffer is bound to
//! it and touched by its threads; `/proc/self/pagemap` (root only) gives
//! every page's physical frame; the pages are grouped by physical range
//! and every range with enough of them is read by the node's pinned
//! threads in interleaved rounds; a range well below the node's median,
//! significantly, is named.
//!
//! A command of its own, like `tiers advise`: not in the registry (it has
//! no `characterize` steps), run as one step by its command.

mod config;
mod findings;
mod measure;
mod plan;
mod ranges;
mod read;
mod records;
pub mod report;
mod run;

pub use config::{
    default_size, ScanConfig, ScanNode, ScanRequest, DEFAULT_MIN_RANGE_BYTES, DEFAULT_RANGE_SIZE,
};
pub use findings::{judge, NodeVerdict, RangeVerdict, SLOW_DEFICIT};
pub use measure::{run_scan, FRAMES_HIDDEN};
pub use ranges::{group_by_range, Chunk, PageGroups, PhysicalRange};
