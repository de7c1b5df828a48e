//! The flags the measuring commands share, flattened into each, so they
//! read and mean the same everywhere: where results go ([`OutputArgs`]);
//! how measurements are repeated, budgeted and planned, on which topology
//! ([`MeasureArgs`]); the CPU orders of the commands that pick their CPUs
//! ([`CpuOrderArg`]); and the defaults several commands share.

use super::parse::parse_budget_arg;
use clap::{Args, ValueEnum};
use numabench::bench::Budget;
use numabench::threads::CpuOrder;
use std::path::PathBuf;

/// Where results go (every measuring command has these).
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Also write results as CSV to FILE (one row per record, run metadata
    /// as run.* columns, params as params.* columns; loads into pandas
    /// with no options). A regular file is replaced whole, its mode kept; a
    /// symbolic link is written through and kept; a pipe or /dev/stdout gets
    /// the table at the end.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// CSV delimiter: one character, e.g. ';' or '\t'.
    #[arg(long, value_name = "C", value_parser = parse_delimiter_arg)]
    pub delimiter: Option<u8>,
    /// Also write results as JSON Lines to FILE (one record per line, each
    /// with the run metadata as "run").
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Print a JSON document on stdout instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Print one line per record as it arrives (benchmark, metric, value,
    /// unit, cv, placement, params) instead of the tables shaped per
    /// measurement.
    #[arg(long, conflicts_with = "json")]
    pub records: bool,
}

fn parse_delimiter_arg(text: &str) -> Result<u8, numabench::output::DelimiterError> {
    numabench::output::parse_delimiter(text)
}

/// How measurements are repeated (every measuring command has these).
#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Timed repetitions per measurement, after one warm-up. For latency
    /// and bandwidth measurements (latency, bandwidth, matrix, contention,
    /// scaling, per-cpu, one-thread mlp, characterize) the most taken: they stop after 3
    /// once the median's 95% confidence interval is within ±1%, and the
    /// record says the interval reached (params.convergence).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub repeat: u32,
    /// Back buffers with 2 MiB huge pages: from the hugetlbfs pools when the
    /// nodes have enough reserved, else transparent huge pages via madvise.
    /// Records say which, and how much of each buffer got them.
    #[arg(long)]
    pub hugepages: bool,
    /// Write each weighted interleave's weights (weighted:0=3,2=1, --interleave 0=3,2=1) into
    /// the kernel's (/sys/kernel/mm/mempolicy/weighted_interleave, system-wide; root, Linux
    /// 6.9+) just before it is used, so it runs in the kernel's mode; put back at exit.
    #[arg(long)]
    pub set_weights: bool,
    /// latency, matrix latency: add the histogram of the timed batches' load latencies to
    /// params.tail (bins 5% wide), besides its percentiles.
    #[arg(long)]
    pub histogram: bool,
    /// Time budget (90s, 10m, 2h; none: exactly what the flags say): where the plan's estimate is
    /// over it, cuts are made in order, each only as far as needed and only where it saves 1% of the
    /// estimate or more. characterize: latency sizes (down to 3); the node matrices measured by
    /// symmetry class (every node's own cell always, about sqrt(n) members of each other class;
    /// unless --full-matrix); CPUs sampled (contention's threads alone in turn, down to one per
    /// node; per-cpu's CPUs within each node, down to 2 per node; scaling's thread counts, down to
    /// 4); repetitions (down to 3); then the largest working sets halved together (never below 4x
    /// the CPU caches; behind a huge memory-side cache the capped figures are that cache's). What
    /// the cuts leave of the budget draws more class members and pays for measuring classes whose
    /// members disagree, and the plan names what the cut plan cannot find (a slow CPU not measured,
    /// a slow pair not measured) with the budget that buys it back; plugins are not counted. Every
    /// other command: the `matrix` command's cells by symmetry class as above (unless
    /// --full-matrix), contention's threads alone in turn sampled, repetitions (down to 3), then
    /// working sets; a request for every CPU (--each-cpu, --per-cpu) keeps every CPU. --plan and
    /// the run name every cut.
    #[arg(long, value_name = "DURATION", default_value = DEFAULT_BUDGET, value_parser = parse_budget_arg)]
    pub budget: Budget,
    #[command(flatten)]
    pub planning: PlanArgs,
}

/// `--plan` and the machine a plan describes: the one block of every
/// command that plans. Its help is the measuring commands'; a command whose
/// plan shows other things rewords it (`#[command(mut_args(plan_help(...)))]`
/// on its flags).
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Print what would run and allocate nothing: each step's benchmark,
    /// threads and their CPUs in order, memory nodes, working-set bytes and
    /// the cache capacity in front, repetitions, estimated duration (with
    /// --json: a JSON document, schema in docs/plan.md). Works with
    /// --topology FILE: a plan describes, never measures.
    #[arg(long)]
    pub plan: bool,
    /// The global `--topology FILE` (clap copies it here): the machine a
    /// plan describes.
    #[arg(from_global)]
    pub topology: Option<PathBuf>,
}

/// `--plan`'s help reworded, for a command whose plan shows other things
/// than [`PlanArgs`] says; the flag keeps its place among the command's
/// (which the completions follow).
pub fn plan_help(help: &'static str) -> impl FnMut(clap::Arg) -> clap::Arg {
    move |arg| match arg.get_id() == "plan" {
        true => arg.help(help),
        false => arg,
    }
}

/// The default `--budget` of every command that plans: ten minutes.
pub const DEFAULT_BUDGET: &str = "10m";

/// The seed of the matrix classes' draws when none is given
/// (characterize's --class-seed, the `matrix` command): fixed, so `--plan`
/// draws the cells the run measures, and runs of one build and of every
/// later build draw alike (the draws are SplitMix64's).
pub const DEFAULT_CLASS_SEED: u64 = 1;

/// The CPU orders (`threads::CpuOrder`) of commands that pick their CPUs:
/// which CPU the n-th thread gets (records name it in `params.cpu_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CpuOrderArg {
    /// Tree order: SMT siblings together, then the next core of the same L3, node, package.
    Compact,
    /// One thread of every core, round robin over L3 domains, before any second thread.
    CoresFirst,
    /// Round robin over nodes, and over L3 domains within a node (cores first).
    Scatter,
}

impl From<CpuOrderArg> for CpuOrder {
    fn from(order: CpuOrderArg) -> Self {
        match order {
            CpuOrderArg::Compact => CpuOrder::Compact,
            CpuOrderArg::CoresFirst => CpuOrder::CoresFirst,
            CpuOrderArg::Scatter => CpuOrder::Scatter,
        }
    }
}
