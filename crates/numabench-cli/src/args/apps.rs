//! The applications' flags: `stream`, `cg` and `mg` (each with the one
//! [`AppRunArgs`] block: threads, placement, repetitions, budget) and
//! `placement-study`, which runs them under a grid of schemes.

use super::parse::{parse_budget_arg, parse_simd_arg, parse_size_arg, Listed};
use super::shared::{plan_help, OutputArgs, PlanArgs, DEFAULT_BUDGET};
use clap::{Args, ValueEnum};
use numabench::bench::Budget;
use numabench::kernels::SimdLevel;
use numabench::runtime::{PlacementError, PlacementScheme, ThreadScheme};
use numabench::workloads::{NpbClass, UnknownClass};

/// How an application kernel is placed and repeated.
#[derive(Debug, Args)]
#[command(mut_args(plan_help(
    "Print what would run (threads and their CPUs, placement, array bytes, runs, estimate) and allocate nothing; see docs/plan.md"
)))]
pub struct AppRunArgs {
    /// Write each weighted interleave's weights (weighted:0=3,2=1, --interleave 0=3,2=1) into
    /// the kernel's (/sys/kernel/mm/mempolicy/weighted_interleave, system-wide; root, Linux
    /// 6.9+) just before it is used, so it runs in the kernel's mode; put back at exit.
    #[arg(long)]
    pub set_weights: bool,
    /// Worker threads, at most the allowed CPUs. Default: every allowed CPU.
    /// A list (1,2,4) runs each count as one configuration, interleaved over
    /// the repetitions, CPUs taken cores-first, and adds speedup and
    /// parallel efficiency against the smallest count.
    #[arg(long, value_name = "N[,N...]", value_parser = parse_thread_counts_arg)]
    pub threads: Option<ThreadCounts>,
    /// Main arrays: first-touch, serial, interleave[:LIST], weighted:N=W,... (or weighted[:LIST]: the
    /// kernel's weights), bind:N, serial+migrate, next-touch, autonuma.
    #[arg(long, value_name = "SCHEME", default_value = "first-touch", value_parser = parse_placement_arg)]
    pub placement: PlacementScheme,
    /// Threads: compact (tree order: SMT siblings together), scatter (round robin over nodes,
    /// and over L3 domains within a node) — both pinned before data is touched — or unpinned.
    /// With a --threads list or --threads-sweep, CPUs go cores-first: compact fills the nodes
    /// one after another, every core before any SMT sibling; scatter deals them over the nodes.
    #[arg(long, value_name = "SCHEME", default_value = "compact", value_parser = parse_thread_scheme_arg)]
    pub threads_placement: ThreadScheme,
    /// Over-decomposition: K threads per CPU (1 to 64).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub threads_per_core: u32,
    /// Runs (each a fresh setup and placement), for min/mean/max/stddev/CV.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub repeat: u32,
    /// Time budget (90s, 10m, 2h; none: exactly what the flags say): where the plan's estimate is
    /// over it, the runs are cut (down to 3), then STREAM's arrays halved together (never below 4x
    /// the CPU caches or 10M elements; below 4x the caches in front, memory-side caches included,
    /// the figures are partly those caches' and the cut says so). A CG or MG class is never cut.
    /// --plan and the run name every cut.
    #[arg(long, value_name = "DURATION", default_value = DEFAULT_BUDGET, value_parser = parse_budget_arg)]
    pub budget: Budget,
    #[command(flatten)]
    pub planning: PlanArgs,
    /// Thread-count scaling over 1, 2, 4, ... up to every allowed CPU (and
    /// all of them when that is not a power of two), as a --threads list.
    #[arg(long, conflicts_with = "threads")]
    pub threads_sweep: bool,
    /// The workers' CPUs, in this order (e.g. 0,2,4-5): worker i runs on the i-th CPU (with
    /// --threads-per-core K each CPU takes K workers in turn); overrides --threads-placement.
    /// --threads, if given, must equal the list's length.
    #[arg(long, value_name = "LIST", value_parser = crate::cpu_sequence::parse_cpu_sequence_arg)]
    pub cpus: Option<crate::cpu_sequence::CpuSequence>,
    /// Also run the same thread count with all threads and data on one node (cores first on
    /// the node of the first worker's CPU, memory bound there), when they fit, one baseline run
    /// beside each repetition (alternating which goes first): every record then gives
    /// params.one_node_seconds and params.relative_to_one_node.
    #[arg(long, value_enum, value_name = "BASELINE")]
    pub baseline: Option<BaselineArg>,
    /// Back the arrays with 2 MiB huge pages, under any placement: from the
    /// hugetlbfs pools when every node the pages may land on has enough
    /// reserved, else transparent huge pages via madvise; serial+migrate and
    /// next-touch move whole huge pages. Records say which, how much of the
    /// arrays got them, and how many moved as huge pages.
    #[arg(long)]
    pub hugepages: bool,
}

/// `--baseline`: the reference a run's time is given against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BaselineArg {
    /// All threads and data on one node.
    OneNode,
}

/// A `--threads` list: positive counts, none twice, ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadCounts(pub Vec<usize>);

fn parse_thread_counts_arg(
    text: &str,
) -> Result<ThreadCounts, numabench::experiments::ThreadCountsError> {
    numabench::experiments::parse_thread_counts(text).map(ThreadCounts)
}

#[derive(Debug, Args)]
pub struct StreamArgs {
    /// Bytes per array. Default: STREAM's rule, 4x every cache in front of the threads (at least 10M elements), capped to fit memory.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Passes over the four kernels (STREAM's NTIMES).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=10_000))]
    pub iterations: u32,
    /// Vector instructions of the four loops, all with ordinary stores: avx512, avx2, sse2, scalar. Default: per loop, the fastest in a calibration during the first iteration (whose times STREAM discards); copy also weighs streaming stores and the C library's memcpy (what a compiler makes of STREAM's copy), and params.variant names what ran.
    #[arg(long, value_name = "LEVEL", value_parser = parse_simd_arg)]
    pub simd: Option<SimdLevel>,
    #[command(flatten)]
    pub app: AppRunArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct NpbArgs {
    /// NPB class: S, W, A, B, C. Default: A if it fits in memory, else W.
    #[arg(long, value_name = "CLASS", value_parser = parse_class_arg)]
    pub class: Option<NpbClass>,
    #[command(flatten)]
    pub app: AppRunArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
#[command(mut_args(plan_help(
    "Print the grid that would run (one step per configuration: threads and their CPUs, placement, array bytes, runs, estimate) and allocate nothing; see docs/plan.md"
)))]
pub struct PlacementStudyArgs {
    /// The kernel: stream, cg or mg.
    #[arg(value_name = "KERNEL", value_parser = ["stream", "cg", "mg"])]
    pub kernel: String,
    /// NPB class for cg and mg. Default: W.
    #[arg(long, value_name = "CLASS", value_parser = parse_class_arg)]
    pub class: Option<NpbClass>,
    /// STREAM bytes per array.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Worker threads, at most the allowed CPUs. Default: every allowed CPU.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Runs per configuration.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub repeat: u32,
    /// Placement schemes to compare. Default: first-touch, serial, interleave, serial+migrate, next-touch (+ autonuma when balancing is on).
    #[arg(long, value_name = "LIST", value_parser = parse_placements_arg)]
    pub placements: Vec<Listed<PlacementScheme>>,
    /// Thread schemes to compare. Default: compact, scatter, unpinned.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_thread_scheme_arg)]
    pub threads_placements: Vec<ThreadScheme>,
    /// Over-decomposition levels: threads per CPU (1 to 64), e.g. 1,2,4,8 (first-touch + compact).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=64))]
    pub oversubscribe: Vec<u32>,
    /// Back the arrays with 2 MiB huge pages (as for stream, cg, mg).
    #[arg(long)]
    pub hugepages: bool,
    /// Time budget (90s, 10m, 2h; none: exactly what the flags say): where the plan's estimate is
    /// over it, the runs per configuration are cut (down to 5: the study measures their spread),
    /// then STREAM's arrays halved together (never below 4x the CPU caches or 10M elements; the cut
    /// says where the figures become partly a cache's). No configuration is dropped; a CG or MG
    /// class is never cut. --plan and the run name every cut.
    #[arg(long, value_name = "DURATION", default_value = DEFAULT_BUDGET, value_parser = parse_budget_arg)]
    pub budget: Budget,
    #[command(flatten)]
    pub planning: PlanArgs,
    /// Compare node splits of --threads T instead of thread schemes: all on one node, evenly over
    /// 2, 4, ... nodes, then uneven splits, deduplicated by SLIT symmetry, each cores first per
    /// node, under each placement (default first-touch); names the best and the worst split.
    #[arg(long, requires = "threads", conflicts_with_all = ["threads_placements", "oversubscribe"])]
    pub node_splits: bool,
    /// With --node-splits: at most this many distinct splits.
    #[arg(long, value_name = "N", default_value_t = 16, requires = "node_splits", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_splits: u32,
    /// Also run each thread count with all threads and data on one node (see `stream --help`;
    /// here the baselines run before the grid).
    #[arg(long, value_enum, value_name = "BASELINE")]
    pub baseline: Option<BaselineArg>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Placements separated by commas, where a node list continues an
/// `interleave:` item as numactl writes it: `interleave:0,1,serial` is
/// interleave over nodes 0 and 1, then serial (no placement name starts
/// with a digit, so the reading is unambiguous).
fn parse_placements_arg(text: &str) -> Result<Listed<PlacementScheme>, PlacementError> {
    let mut items: Vec<String> = Vec::new();
    for piece in text.split(',') {
        match items.last_mut() {
            Some(last)
                if last.starts_with("interleave:")
                    && piece.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                last.push(',');
                last.push_str(piece);
            }
            _ => items.push(piece.to_string()),
        }
    }
    items
        .iter()
        .map(|item| parse_placement_arg(item))
        .collect::<Result<_, _>>()
        .map(Listed)
}

fn parse_class_arg(text: &str) -> Result<NpbClass, UnknownClass> {
    NpbClass::parse(text)
}

fn parse_placement_arg(text: &str) -> Result<PlacementScheme, PlacementError> {
    PlacementScheme::parse(text)
}

fn parse_thread_scheme_arg(text: &str) -> Result<ThreadScheme, PlacementError> {
    ThreadScheme::parse(text)
}
