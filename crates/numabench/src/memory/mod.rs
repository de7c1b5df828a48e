//! Memory: page-aligned buffers, kernel memory policies (bind, interleave,
//! preferred, local first touch), the page-location query that verifies
//! where pages really landed, and huge-page advice.

mod buffer;
mod errors;
mod location;
mod policy;
mod syscalls;

pub use buffer::Buffer;
pub use errors::MemoryError;
pub use location::{check_placement, page_nodes, PageNodes};
pub use policy::MemoryPlacement;
pub use syscalls::{allowed_memory_nodes, PAGE_SIZE};
