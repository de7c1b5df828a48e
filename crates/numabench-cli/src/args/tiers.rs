//! `numabench tiers`'s flags.

use super::parse::{parse_list_arg, parse_size_arg, IdList};
use super::shared::{MeasureArgs, OutputArgs};
use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum TiersCommand {
    /// Which DRAM:tier interleave ratio reads and writes fastest from each socket.
    ///
    /// Example: numabench tiers advise --cpu-node 0 --memory 2
    ///
    /// For each socket, its DRAM and the slower nodes near it (CPU-less
    /// nodes nearest by distance, else every other node), every weight
    /// ratio, read/write mix and thread count, measured in interleaved
    /// rounds; then the fastest ratio per mix with its gain over DRAM only,
    /// plain interleave and the kernel's weights (Mann-Whitney p), the
    /// weights measured bandwidth suggests, and the lines that apply them.
    ///
    /// With a COMMAND after --, the same ratios for that program: it runs
    /// under each ratio's weighted interleave (and DRAM only, the tier
    /// only, plain interleave and as it is), interleaved as `numabench run`
    /// runs policies, with its times compared (root and --set-weights: the
    /// kernel holds the weights a started program is placed by).
    Advise(TiersAdviseArgs),
}

#[derive(Debug, Args)]
pub struct TiersAdviseArgs {
    /// Sockets to advise: nodes whose CPUs run the threads. Default: every socket a CPU-less node
    /// is nearest; without CPU-less nodes, the first socket (against every other node).
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub cpu_node: Option<IdList>,
    /// The tier's memory nodes, for every socket. Default: the CPU-less nodes nearest each socket,
    /// else every other node with memory (local against remote DRAM).
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub memory: Option<IdList>,
    /// DRAM:tier ratios, e.g. 1:0,4:1,1:1 (1:0 and 1:1, the baselines, are always measured).
    /// Default: 1:0, 9:1, 4:1, 3:1, 2:1, 1:1, 1:2, 1:3, 1:4, 1:9, 0:1.
    #[arg(long, value_name = "D:T,...", value_delimiter = ',', value_parser = parse_ratio_arg)]
    pub weights: Vec<(u32, u32)>,
    /// Read/write mixes as bandwidth kernels: read (all reads), triad (2 reads a write), copy
    /// (1:1), copy-nt (1:1, non-temporal writes), or write, triad-nt, write-nt. Default: read,
    /// triad, copy, copy-nt.
    #[arg(long, value_name = "KERNEL,...", value_delimiter = ',')]
    pub mix: Vec<String>,
    /// Thread counts of each socket: 1, half, all or a number. Default: 1, half, all.
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    pub threads: Vec<String>,
    /// Whole working set of one measurement (all arrays and threads together). Default: the DRAM
    /// working set of a socket's CPUs and nodes (4x every cache in front, at least 256MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Interleaved rounds: each measures every configuration once, in a rotated order.
    /// Default: 2; with a COMMAND, 5 (its runs per ratio).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: Option<u32>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// A program to sweep the ratios on, and its arguments (after --).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `D:T` with D and T from 0 to 255, not both 0.
fn parse_ratio_arg(text: &str) -> Result<(u32, u32), String> {
    let parsed = text.split_once(':').and_then(|(dram, tier)| {
        Some((
            dram.trim().parse::<u32>().ok()?,
            tier.trim().parse::<u32>().ok()?,
        ))
    });
    match parsed {
        Some((dram, tier)) if dram <= 255 && tier <= 255 && dram + tier > 0 => Ok((dram, tier)),
        _ => Err(format!(
            "'{text}' is not a DRAM:tier ratio (3:1 puts three pages on DRAM for one on the tier; 0 to 255 each, not both 0)"
        )),
    }
}
