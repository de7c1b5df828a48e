//! Memory errors, with errno captured at the system-call boundary.

use thiserror::Error;

/// What went wrong allocating, placing or querying memory.
///
/// Always the system's fault: the kernel refused the call.
#[derive(Debug, Error)]
pub enum MemoryError {
    /// mmap refused the allocation.
    #[error("cannot allocate {bytes} bytes: {source}")]
    Allocate {
        bytes: usize,
        source: std::io::Error,
    },
    /// The kernel refused a memory policy (mbind/set_mempolicy).
    #[error("cannot apply memory policy {policy}: {source}")]
    Policy {
        policy: String,
        source: std::io::Error,
    },
    /// move_pages could not be queried.
    #[error("cannot query page locations: {0}")]
    Query(std::io::Error),
    /// madvise refused huge pages.
    #[error("cannot advise huge pages: {0}")]
    HugePages(std::io::Error),
    /// /proc/self/smaps could not be read (huge-page coverage).
    #[error("cannot read huge-page coverage from /proc/self/smaps: {0}")]
    HugePageCoverage(std::io::Error),
    /// Migration failed.
    #[error("cannot migrate pages: {0}")]
    Migrate(std::io::Error),
}

crate::error::all_faulty!(System: MemoryError);
