//! `numabench latency`'s flags, and the chase orders it shares with `mlp`.

use super::parse::{parse_list_arg, parse_sizes_arg, IdList, Listed};
use super::shared::{MeasureArgs, OutputArgs};
use clap::{Args, ValueEnum};
use numabench::kernels::ChaseOrder;

#[derive(Debug, Args)]
pub struct LatencyArgs {
    /// Working-set size(s), e.g. 32K,1M,1G. Default: 1GiB, or the DRAM working set (4x every cache in front) when larger (or --sweep); less under a memory limit (topo shows it). A size the limit cannot hold is refused.
    #[arg(long, value_name = "SIZE,...", value_parser = parse_sizes_arg, conflicts_with = "sweep")]
    pub size: Vec<Listed<u64>>,
    /// Sweep sizes from half the L1 cache, doubling, to the DRAM working set (4x every cache in front of the CPU and memory).
    #[arg(long)]
    pub sweep: bool,
    /// CPU the chasing thread is pinned to.
    #[arg(long, value_name = "N", conflicts_with = "cpu_node")]
    pub cpu: Option<u32>,
    /// Run on the first allowed CPU of this node.
    #[arg(long, value_name = "NODE")]
    pub cpu_node: Option<u32>,
    /// Bind the buffer to this node (default: first touch by the chasing thread).
    #[arg(long, value_name = "NODE")]
    pub mem_node: Option<u32>,
    /// Order of the chase: tlb-block (idle latency), random (plus page walks), page-local.
    #[arg(long, value_enum, default_value_t = ChaseOrderArg::TlbBlock)]
    pub order: ChaseOrderArg,
    /// Measure from each CPU of LIST in turn (numactl syntax; without LIST every allowed CPU), one pinned thread, memory on that CPU's node (or --mem-node); one record per CPU, then each CPU's ratio to its node's median. Default size: each CPU's DRAM working set.
    #[arg(long, value_name = "LIST", num_args = 0..=1, value_parser = parse_list_arg, conflicts_with_all = ["cpu", "cpu_node", "sweep"])]
    pub each_cpu: Option<Option<IdList>>,
    /// The remote-cache chase: a thread on CPU C builds the chain in its own memory (first touch on C's node, unless --mem-node) and rewrites it before every pass; the chasing CPU follows it without flushing: lines come from C's caches (Modified) while the size fits there, else from C's memory. With --sweep: the remote-cache plateau, then (remote) DRAM.
    #[arg(long, value_name = "C", conflicts_with = "each_cpu")]
    pub writer_cpu: Option<u32>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

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
