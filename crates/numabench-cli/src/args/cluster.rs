//! `numabench cluster`'s flags (MPI build), with its outlier rule's value
//! parsers.

use super::parse::{parse_interval_arg, parse_size_arg};
use super::shared::{plan_help, OutputArgs, PlanArgs};
use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
#[command(mut_args(plan_help(
    "Say what a run on --hosts N hosts costs and stop (no MPI, nothing measured): the ping-pong's pairs, bytes per pair and time at an assumed 10 GbE link (1.25 GB/s, 5 us), against a budget of 600 s, and the rounds of disjoint pairs that would cover every host"
)))]
pub struct ClusterArgs {
    /// Unit compared: node (one per host; the host's lowest rank measures,
    /// its other ranks stay idle), numa (one per host and NUMA node: the
    /// host's lowest rank measures each of its nodes in turn) or rank (every
    /// rank measures within the CPUs it was given).
    #[arg(long, value_enum, default_value_t = PerArg::Node)]
    pub per: PerArg,
    /// Run only these parts: topo, stream, latency, matrix, check,
    /// pingpong (default: all but check, which --baseline and
    /// --write-baseline add; check measures what `numabench check` does).
    #[arg(long, value_name = "PART,...", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Skip these parts (names as for --only).
    #[arg(long, value_name = "PART,...", value_delimiter = ',')]
    pub skip: Vec<String>,
    /// Measure one host (or rank) at a time, in rank order: for shared or
    /// oversubscribed nodes. Ping-pong pairs always run one at a time.
    /// Waiting ranks sleep between tests for a message (never spin).
    #[arg(long)]
    pub sequential: bool,
    /// Outlier rule: each unit is compared with the OTHER units (itself
    /// left out): m = their median, MAD = their median absolute deviation.
    /// A unit is an outlier when |x - m| / (1.4826 MAD) is above K and it
    /// is more than a factor 1 + F (--min-deviation) from m; when the
    /// others agree exactly (MAD 0) the factor alone decides. An outlier
    /// stands nearly alone: fewer than half the units within the factor
    /// of it (two equal halves name no one). Needs at
    /// least 3 units per metric (a note names each metric with fewer).
    /// Among 3 hosts, 100, 90, 60 flags 60; 100, 99, 98 flags none.
    #[arg(long, value_name = "K", default_value_t = 3.0, value_parser = parse_positive_arg)]
    pub mad_k: f64,
    /// A unit must also be more than a factor 1 + F from the other units'
    /// median to be an outlier (0.1: 10% above it, or below median/1.1): noise between
    /// identical hosts is never flagged.
    #[arg(long, value_name = "F", default_value_t = 0.1, value_parser = parse_share_arg)]
    pub min_deviation: f64,
    /// Working set of every stream, latency and matrix measurement
    /// (default: each one's DRAM working set, from the topology).
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Timed repetitions per measurement (and ping-pong samples).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub repeat: u32,
    /// Message size of the ping-pong bandwidth.
    #[arg(long, value_name = "SIZE", default_value = "4MiB", value_parser = parse_size_arg)]
    pub pingpong_size: u64,
    /// A rank silent this long (1s to 3600s; a bare number is milliseconds)
    /// is reported failed by host name and left behind; the job then ends
    /// with MPI_Abort after the verdict. Every ping-pong message is timed
    /// out after this too: a partner that does not answer is named and
    /// skipped for the rest of the run.
    #[arg(long, value_name = "DURATION", default_value = "600s", value_parser = parse_interval_arg)]
    pub timeout: std::time::Duration,
    /// Back buffers with 2 MiB huge pages (as for other measuring commands).
    #[arg(long)]
    pub hugepages: bool,
    /// How the ping-pong pairs hosts: serial (every pair up to 16, else
    /// each with the ones 1, 2, 4, ... places after it; one pair at a
    /// time), rounds (ceil(log2 N) rounds of disjoint pairs measured at
    /// once, round k pairing i with i XOR 2^k; then every suspect is
    /// measured again with 2 fresh partners before it is named) or auto
    /// (rounds when serial pairs would take over the 600 s budget of
    /// --plan's model, e.g. at 1000 hosts).
    #[arg(long, value_enum, default_value_t = PairingArg::Auto)]
    pub pairing: PairingArg,
    #[command(flatten)]
    pub planning: PlanArgs,
    /// Drain every flagged host in Slurm (rank 0 runs scontrol update
    /// NodeName=<host> State=DRAIN Reason="numabench: <first problem>";
    /// a reason that does not start with "numabench:" is kept). Without
    /// it, the lines are printed, ready to run.
    #[arg(long)]
    pub drain: bool,
    /// With --plan: the number of hosts (of ranks with --per rank).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub hosts: Option<u32>,
    /// Compare every host with the entry of its node type in this baseline
    /// (written by `numabench check --write-baseline` or `cluster
    /// --write-baseline`; read on every rank, as a health check reads it
    /// on every node): adds the check part, which measures that entry's
    /// plan; a host outside a bound, or of a type the file has no entry
    /// for, is flagged. Suspects are measured again before the verdict.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<std::path::PathBuf>,
    /// Write (or add to) a baseline from this run for `numabench check` on
    /// every node: adds the check part; per node type (hosts with the
    /// same CPU model, packages and NUMA nodes) each metric is the median
    /// of its hosts, with a tolerance of three robust standard deviations
    /// of the hosts, at least 5% for a bandwidth and 10% for a latency;
    /// nothing is written when a bandwidth's tolerance would reach 100%.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<std::path::PathBuf>,
    /// With --write-baseline: tolerances instead of those from the hosts'
    /// spread, as KIND=PERCENT: bandwidth=8%, latency=15%, or a metric's
    /// key (node1.triad_bandwidth=6%).
    #[arg(
        long,
        value_name = "KIND=PERCENT,...",
        value_delimiter = ',',
        requires = "write_baseline"
    )]
    pub tolerance: Vec<String>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `cluster --pairing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PairingArg {
    Auto,
    Serial,
    Rounds,
}

/// `cluster --per`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PerArg {
    Node,
    Numa,
    Rank,
}

fn parse_positive_arg(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!("'{text}' is not a positive number")),
    }
}

fn parse_share_arg(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && (0.0..10.0).contains(&value) => Ok(value),
        _ => Err(format!(
            "'{text}' is not a share between 0 and 10 (0.1 = 10%)"
        )),
    }
}
