//! `numabench scan`: its flags and its run.

use super::measuring::measure_steps;
use crate::args::parse::{parse_list_arg, parse_size_arg, IdList};
use crate::args::shared::{MeasureArgs, OutputArgs};
use crate::exit::{CliError, Status};
use clap::Args;
use numabench::bench::scan::{ScanConfig, ScanRequest, FRAMES_HIDDEN};
use numabench::bench::tiers::ThreadCount;
use numabench::bench::{BenchError, Context, Step};
use numabench::memory::frames_visible;

/// Bandwidth of each physical GiB of a node: a slow DIMM or channel (root).
///
/// Example: numabench scan --size 4GiB
///
/// Each node's memory bound to it and touched by its threads, every
/// page's physical address read from /proc/self/pagemap (root only:
/// refused otherwise), the pages grouped by physical range and every
/// range with enough of them read by the node's pinned threads in
/// rounds, the ranges' order rotated each round; a range more than 10%
/// below the node's median of ranges, and significantly by a
/// Mann-Whitney test over the rounds (Holm-adjusted), is named slow.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Nodes to scan. Default: every node with memory this process may use.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub node: Option<IdList>,
    /// Bytes allocated on each node. Default: 3/4 of the node's free memory, at most 64GiB, within
    /// this process's memory limit.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Bytes of one physical range (whole 2MiB pages).
    #[arg(long, value_name = "SIZE", default_value = "1GiB", value_parser = parse_size_arg)]
    pub range_size: u64,
    /// Least bytes of a range in the buffer for it to be measured. Default: the smaller of 64MiB
    /// and a quarter of --range-size, at least 4x the caches in front of the node.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub min_range: Option<u64>,
    /// Interleaved rounds: each reads every range of a node once, in a rotated order.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    /// Threads reading each node: 1, half, all or a number (of the node's CPUs, the nearest ones
    /// for a CPU-less node).
    #[arg(long, value_name = "N", default_value = "all")]
    pub threads: String,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: &ScanArgs) -> Result<Status, CliError> {
    measure_steps(
        &args.run,
        &args.output,
        |context| Ok(vec![Step::scan(validate(args, context)?)]),
        |_, _| {},
        |_, _| {},
    )
}

/// The flags checked against the machine. A run (not a plan) is refused
/// here, before anything is allocated, when this process cannot see
/// physical addresses.
fn validate(args: &ScanArgs, context: &Context) -> Result<ScanConfig, BenchError> {
    let threads = ThreadCount::parse(&args.threads)?;
    let config = ScanConfig::validate(
        &context.topology,
        &ScanRequest {
            nodes: args.node.as_ref().map(|list| list.0.clone()),
            size: args.size,
            range_size: Some(args.range_size),
            min_range_bytes: args.min_range,
            threads: Some(threads),
            rounds: args.rounds as usize,
        },
    )?;
    if !args.run.planning.plan && !frames_visible() {
        return Err(BenchError::Invalid(FRAMES_HIDDEN.into()));
    }
    Ok(config)
}
