//! The chase orders `latency` and `mlp` share (`--order`).

use clap::ValueEnum;
use numabench::kernels::ChaseOrder;

/// The chase orders of `latency` and `mlp` (records name the block each
/// was random within: `params.block_bytes`, `params.block_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ChaseOrderArg {
    /// Idle memory latency: random within blocks the L1 data TLB maps (its
    /// entries x page size, read from CPUID; 64 pages if not reported),
    /// blocks in random order: almost no TLB misses, no prefetch help.
    TlbBlock,
    /// Random over the whole buffer: includes the page-walk (TLB miss) cost.
    Random,
    /// Random within each page, pages in random order: one TLB miss per
    /// page, but a page's lines are read back to back, so with 4 KiB pages
    /// the prefetchers help (reads below the idle latency).
    PageLocal,
}

impl From<ChaseOrderArg> for ChaseOrder {
    fn from(order: ChaseOrderArg) -> Self {
        match order {
            ChaseOrderArg::TlbBlock => ChaseOrder::TlbBlock,
            ChaseOrderArg::Random => ChaseOrder::Random,
            ChaseOrderArg::PageLocal => ChaseOrder::PageLocal,
        }
    }
}
