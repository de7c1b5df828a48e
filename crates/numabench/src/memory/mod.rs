//! Memory: page-aligned buffers, kernel memory policies (bind, interleave,
//! preferred, local first touch), the page-location query that verifies
//! where pages really landed, the physical frames they are on (root only),
//! and huge pages (hugetlbfs pools or THP, with the coverage actually
//! granted).

mod buffer;
mod check;
mod errors;
mod frames;
mod huge_pages;
mod location;
mod page_flags;
mod placement;
mod policy;
pub(crate) mod syscalls;

pub use buffer::Buffer;
pub use check::interleave_fraction;
pub use errors::MemoryError;
pub use frames::{frames_visible, page_frames};
pub use huge_pages::{
    free_pool_pages, huge_page_check, huge_page_check_range, pools_can_hold, HUGE_PAGE_SIZE,
};
pub use location::{check_placement, page_nodes, page_statuses, PageNodes};
pub use numabench_schema::{HugePageCheck, PlacementCheck, PlacementStatus};
pub use page_flags::PageFlags;
pub use placement::MemoryPlacement;
pub use policy::{
    auto_weights, set_weights, weighted, MemoryPolicy, NotOneNode, PolicyMode, PolicyTextError,
};
pub use syscalls::{allowed_memory_nodes, PAGE_SIZE};
