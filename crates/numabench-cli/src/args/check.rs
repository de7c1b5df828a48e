//! `numabench check`'s flags.

use super::shared::{plan_help, PlanArgs};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(mut_args(plan_help(
    "Print the plan (each metric, its CPUs, node, working set, the estimate against the budget) and stop. Works with --topology FILE; with --baseline, the baseline's plan"
)))]
pub struct CheckArgs {
    /// The baseline to compare with (written by --write-baseline on a
    /// healthy node of this type; one file may hold several node types).
    #[arg(long, value_name = "FILE", required_unless_present_any = ["write_baseline", "plan"])]
    pub baseline: Option<PathBuf>,
    /// Measure this node --runs times and write (or add to) a baseline:
    /// per metric the median, with a tolerance of three robust standard
    /// deviations of the runs (1.4826 x their median absolute deviation),
    /// at least 5% for a bandwidth and 10% for a latency (--tolerance sets
    /// one instead). Runs too noisy for that (a bandwidth's tolerance at
    /// 100% or more) write nothing and exit 2.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub write_baseline: Option<PathBuf>,
    /// With --write-baseline: healthy runs to take the medians and the
    /// spread from (interleaved: every metric once a run).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub runs: u32,
    /// With --write-baseline: tolerances instead of those from the spread,
    /// as KIND=PERCENT: bandwidth=8%, latency=15%, or a metric's key
    /// (node1.triad_bandwidth=6%). Repeatable or comma-separated.
    #[arg(long, value_name = "KIND=PERCENT,...", value_delimiter = ',')]
    pub tolerance: Vec<String>,
    /// The time the check's plan is fitted to when a baseline is written
    /// (working sets halved together until the estimate fits). Retries of
    /// a check stop before 50 s in all (Slurm ends a health check at 60 s;
    /// draining comes after).
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    pub budget: String,
    /// With --write-baseline (or --plan): every working set this size
    /// instead of the plan's (a small or emulated machine; figures under
    /// twice the caches in front are partly the caches').
    #[arg(long, value_name = "SIZE", value_parser = super::parse::parse_size_arg)]
    pub size: Option<u64>,
    /// With --write-baseline: repetitions per bandwidth metric, every one
    /// taken, the fastest compared (default 11); latencies take up to 5
    /// samples.
    #[arg(long, value_name = "N", default_value_t = 11, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Measure a failing metric again up to N times before reporting it:
    /// one noisy sample must not drain a node.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub retries: u32,
    /// nhc: nothing and exit 0 when healthy, one `ERROR numabench: ...`
    /// line per problem and exit 1 when not, exit 2 when it could not
    /// check. npd: node-problem-detector's plugin protocol (exit 0 OK,
    /// 1 problem, 2 unknown; one message line on stdout). json: the
    /// records as a JSON document on stdout, the same exit statuses.
    #[arg(long, value_enum, default_value_t = CheckFormat::Nhc)]
    pub format: CheckFormat,
    /// Same as --format json.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Also write the records as JSON Lines to FILE.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// When unhealthy, drain this node in Slurm: scontrol update
    /// NodeName=<node> State=DRAIN Reason="numabench: <first problem>".
    /// A reason someone else set is never overwritten.
    #[arg(long)]
    pub drain: bool,
    /// When healthy, resume this node if numabench drained it (its reason
    /// starts with "numabench:"); any other reason is left alone.
    #[arg(long)]
    pub undrain: bool,
    /// Slurm's name for this node (default: SLURMD_NODENAME, else the node
    /// whose NodeName, NodeHostName or NodeAddr is this host).
    #[arg(long, value_name = "NAME")]
    pub node_name: Option<String>,
    #[command(flatten)]
    pub planning: PlanArgs,
}

/// `check --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Nhc,
    Npd,
    Json,
}
