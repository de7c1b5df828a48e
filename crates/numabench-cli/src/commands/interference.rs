//! `numabench interference`: its flags and its run.

use super::measuring::measure_steps;
use crate::args::parse::{parse_list_arg, parse_mix_arg, parse_size_arg, IdList};
use crate::args::shared::{MeasureArgs, OutputArgs};
use crate::exit::{CliError, Status};
use clap::Args;
use numabench::bench::interference::{aggressor_bytes, pairs_of, InterferenceConfig};
use numabench::bench::TrafficMix;
use numabench::bench::{check_memory_fits, working_set_of_buffers, Step};

/// How much one node's traffic slows another's loads and reads.
///
/// Example: numabench interference --victim 0 --aggressor 2 --load reads,writes
///
/// For each victim node and each aggressor node, the victim's latency
/// (a pinned thread chasing pointers through its memory) and one-thread
/// read bandwidth alone, then while the aggressor's threads load the
/// aggressor node with each traffic mix, in interleaved rounds; the
/// degradation matrix (Mann-Whitney p, Holm-adjusted) and the worst pair.
#[derive(Debug, Args)]
pub struct InterferenceArgs {
    /// Victim nodes: whose latency and read bandwidth are measured, from a CPU of the node (of the
    /// nearest node with CPUs for a CPU-less one). Default: every node with memory.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub victim: Option<IdList>,
    /// Aggressor nodes: loaded by the threads of their CPUs (of the nearest node with CPUs for a
    /// CPU-less one), never the victim's core (its CPU or an SMT sibling). Default: every node with memory, up to 8 nodes;
    /// beyond, one node per SLIT distance from each victim (itself first).
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub aggressor: Option<IdList>,
    /// The aggressors' traffic, one measurement each: reads, writes, 3:1, 2:1, 1:1, and with
    /// non-temporal writes 3:1-nt, 2:1-nt, 1:1-nt, nt-writes.
    #[arg(long, value_name = "MIX,...", default_value = "reads,writes", value_delimiter = ',', value_parser = parse_mix_arg)]
    pub load: Vec<TrafficMix>,
    /// Aggressor threads per pair. Default: every CPU near the aggressor node but the victim's core's.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub aggressor_threads: Option<u32>,
    /// The victim's buffer (each aggressor thread streams its share of it, at least 32MiB).
    /// Default: the DRAM working set of the victim's CPU (4x the caches in front, at least
    /// 256MiB), within what the nodes can hold.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Interleaved rounds: each measures every victim alone and under every load once, in a
    /// rotated order.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: &InterferenceArgs) -> Result<Status, CliError> {
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            let topology = &context.topology;
            let (victims, pairs) = pairs_of(
                topology,
                args.victim.as_ref().map(|list| list.0.as_slice()),
                args.aggressor.as_ref().map(|list| list.0.as_slice()),
                args.aggressor_threads.map(|count| count as usize),
            )?;
            // The victim's buffer, sized to miss the caches in front of its
            // CPU; the aggressor threads' buffers together about as large
            // (both held at once).
            let size = match args.size {
                Some(size) => size,
                None => victims
                    .iter()
                    .map(|victim| {
                        let nodes: Vec<u32> = std::iter::once(victim.node)
                            .chain(pairs.iter().map(|pair| pair.aggressor.node))
                            .collect();
                        working_set_of_buffers(topology, &[victim.cpu], &nodes, 2).bytes
                    })
                    .min()
                    .unwrap_or(256 << 20),
            };
            for pair in &pairs {
                let victim = victims[pair.victim].node;
                let aggressor = pair.aggressor.node;
                let threads = pair.aggressor.cpus.len();
                let load = aggressor_bytes(size, threads) * threads as u64;
                match victim == aggressor {
                    true => check_memory_fits(topology, &[victim], size + load)?,
                    false => {
                        check_memory_fits(topology, &[victim], size)?;
                        check_memory_fits(topology, &[aggressor], load)?;
                    }
                }
            }
            Ok(vec![Step::interference(InterferenceConfig {
                victims,
                pairs,
                loads: args.load.clone(),
                size,
                rounds: args.rounds as usize,
            })])
        },
        |_, _| {},
        |_, _| {},
    )
}
