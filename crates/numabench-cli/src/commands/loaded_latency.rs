//! `numabench loaded-latency`: its flags and its run.

use super::measuring::{choose_cpu, choose_memory_node, measure_steps};
use crate::args::parse::{parse_list_arg, parse_mix_arg, parse_size_arg, IdList};
use crate::args::shared::{CpuOrderArg, MeasureArgs, OutputArgs};
use crate::exit::{CliError, Status};
use clap::Args;
use numabench::bench::TrafficMix;
use numabench::bench::{
    check_memory_fits, working_set_of_buffers, BenchError, LoadedLatencyConfig, Step, CURVE_DELAYS,
    DEFAULT_DELAYS,
};
use numabench::memory::MemoryPlacement;
use numabench::threads::CpuOrder;

/// Latency under increasing traffic: the loaded-latency curve.
///
/// Example: numabench loaded-latency --mix 3:1
///
/// One chasing thread measures latency while the other cores generate
/// traffic at decreasing delays: a latency-vs-bandwidth curve.
#[derive(Debug, Args)]
pub struct LoadedLatencyArgs {
    /// CPU of the chasing thread (default: the first allowed CPU in --cpu-order); every other allowed CPU generates traffic.
    #[arg(long, value_name = "N")]
    pub cpu: Option<u32>,
    /// The order the allowed CPUs are taken in: the chaser is the first (unless --cpu), the
    /// generators follow in this order: cores-first, compact, scatter.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst)]
    pub cpu_order: CpuOrderArg,
    /// Node(s) holding the chased buffer and the traffic, CPU-less ones included (default: the
    /// chaser's node); one curve per node and mix: a family per node.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub mem_node: Option<IdList>,
    /// Read:write mix(es) of the traffic: reads, 3:1, 2:1, 1:1, writes; with non-temporal
    /// (streaming) writes: 3:1-nt, 2:1-nt, 1:1-nt, nt-writes. A list draws one curve per mix.
    #[arg(long, value_name = "MIX,...", default_value = "reads", value_delimiter = ',', value_parser = parse_mix_arg)]
    pub mix: Vec<TrafficMix>,
    /// Delays between a generator's requests (nop iterations, ~1 cycle each), light to heavy. Default: 2000,1000,500,250,120,60,30,0.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        conflicts_with = "curve"
    )]
    pub delays: Vec<u32>,
    /// A full curve from idle to saturation, as Mess draws it: 24 delays (4000 down to 0, about
    /// 1.35x apart), 25 points with the idle one.
    #[arg(long)]
    pub curve: bool,
    /// Working set of the chase and of each generator. Default: DRAM-sized, at most 256MiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: &LoadedLatencyArgs) -> Result<Status, CliError> {
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            let topology = &context.topology;
            let order = CpuOrder::from(args.cpu_order);
            let ordered = order.all_allowed(topology);
            let chaser = match args.cpu {
                Some(_) => choose_cpu(topology, args.cpu, None)?,
                None => ordered[0],
            };
            let nodes = match &args.mem_node {
                None => vec![choose_memory_node(topology, None, chaser)?],
                Some(list) => list
                    .0
                    .iter()
                    .map(|&node| choose_memory_node(topology, Some(node), chaser))
                    .collect::<Result<_, _>>()?,
            };
            let generators: Vec<u32> = ordered.into_iter().filter(|&cpu| cpu != chaser).collect();
            if generators.is_empty() {
                return Err(BenchError::Invalid(
                    "loaded-latency needs at least two allowed CPUs (one chases, the others load)"
                        .into(),
                ));
            }
            // The chase and every generator each get a buffer of this size.
            let buffers = 1 + generators.len() as u64;
            let size = args.size.unwrap_or_else(|| {
                working_set_of_buffers(topology, &[chaser], &nodes, buffers).bytes
            });
            for &node in &nodes {
                check_memory_fits(topology, &[node], size * buffers)?;
            }
            let delays = match (args.curve, args.delays.is_empty()) {
                (true, _) => CURVE_DELAYS.to_vec(),
                (false, true) => DEFAULT_DELAYS.to_vec(),
                (false, false) => args.delays.clone(),
            };
            // One step per node and mix: each node's family of curves.
            let mut steps = Vec::new();
            for &node in &nodes {
                for &mix in &args.mix {
                    steps.push(
                        Step::loaded_latency(LoadedLatencyConfig {
                            chaser_cpu: chaser,
                            generator_cpus: generators.clone(),
                            memory: MemoryPlacement::bind(node),
                            size,
                            delays: delays.clone(),
                            mix,
                        })
                        // The generators (and the chaser, without --cpu) in --cpu-order.
                        .in_order(order),
                    );
                }
            }
            Ok(steps)
        },
        |_, _| {},
        |_, _| {},
    )
}
