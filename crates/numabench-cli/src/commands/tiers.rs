//! `numabench tiers advise`: `numabench tiers`'s flags and the advisor's
//! run.

use super::measuring::measure_steps;
use crate::args::parse::{parse_list_arg, parse_size_arg, IdList};
use crate::args::shared::{MeasureArgs, OutputArgs};
use crate::args::{PlanArgs, RunCommandArgs};
use crate::exit::{CliError, Status};
use clap::{Args, Subcommand};
use numabench::bench::tiers::{
    mix_kernels, sockets_of, ThreadCount, TiersConfig, Weights, DEFAULT_MIXES, DEFAULT_RATIOS,
};
use numabench::bench::{check_memory_fits, working_set_for, BenchError, Context, Step};
use numabench::memory::auto_weights::auto_weights;
use numabench::memory::weighted;
use numabench::topology::memory_nodes;

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

pub fn run(command: &TiersCommand) -> Result<Status, CliError> {
    match command {
        TiersCommand::Advise(args) => advise(args),
    }
}

fn advise(args: &TiersAdviseArgs) -> Result<Status, CliError> {
    if !args.command.is_empty() {
        return advise_program(args);
    }
    measure_steps(
        &args.run,
        &args.output,
        |context| Ok(vec![Step::tiers(validate(args, context)?)]),
        |_, _| {},
        |_, _| {},
    )
}

/// The ratios asked for (default [`DEFAULT_RATIOS`]), with the baselines
/// and the two sides alone (the measured weights come from them).
fn ratios_of(args: &TiersAdviseArgs) -> Vec<(u32, u32)> {
    let mut ratios: Vec<(u32, u32)> = match args.weights.is_empty() {
        true => DEFAULT_RATIOS.to_vec(),
        false => args.weights.clone(),
    };
    for baseline in [(1, 0), (1, 1), (0, 1)] {
        if !ratios
            .iter()
            .any(|&(d, t)| d * baseline.1 == t * baseline.0)
        {
            ratios.push(baseline);
        }
    }
    ratios
}

fn validate(args: &TiersAdviseArgs, context: &Context) -> Result<TiersConfig, BenchError> {
    let topology = &context.topology;
    let sockets = sockets_of(
        topology,
        args.cpu_node.as_ref().map(|list| list.0.as_slice()),
        args.memory.as_ref().map(|list| list.0.as_slice()),
    )?;
    let ratios = ratios_of(args);
    let mixes: Vec<String> = match args.mix.is_empty() {
        true => DEFAULT_MIXES.iter().map(|mix| mix.to_string()).collect(),
        false => args.mix.clone(),
    };
    let kernels = mix_kernels(&mixes)?;
    let threads = match args.threads.is_empty() {
        true => vec![ThreadCount::One, ThreadCount::Half, ThreadCount::All],
        false => args
            .threads
            .iter()
            .map(|text| ThreadCount::parse(text))
            .collect::<Result<_, _>>()?,
    };
    let size = match args.size {
        Some(size) => size,
        None => sockets
            .iter()
            .map(|socket| {
                let nodes: Vec<u32> = socket.dram.iter().chain(&socket.tier).copied().collect();
                working_set_for(topology, &socket.cpus, &nodes).bytes
            })
            .max()
            .unwrap_or(256 << 20),
    };
    for socket in &sockets {
        let nodes: Vec<u32> = socket.dram.iter().chain(&socket.tier).copied().collect();
        check_memory_fits(topology, &nodes, size)?;
    }
    Ok(TiersConfig {
        sockets,
        ratios,
        kernels,
        threads,
        size,
        rounds: args.rounds.unwrap_or(2) as usize,
        kernel_weights: topology.this_system && weighted::kernel_weights().is_some(),
        auto_weights: auto_weights(topology, &memory_nodes(topology))
            .map(|(weights, source)| (weights, source.as_str())),
    })
}

/// `tiers advise -- COMMAND`: the ratios of every socket's DRAM and tier
/// (all sockets' nodes together: a program's threads run where they run)
/// as `numabench run` policies, with DRAM only, the tier only, plain
/// interleave and the program as it is: `run` runs them interleaved and
/// compares their times.
fn advise_program(args: &TiersAdviseArgs) -> Result<Status, CliError> {
    let planning = &args.run.planning;
    let topology = super::measuring::topology(planning.plan, planning.topology.as_deref())?;
    let sockets = sockets_of(
        &topology,
        args.cpu_node.as_ref().map(|list| list.0.as_slice()),
        args.memory.as_ref().map(|list| list.0.as_slice()),
    )?;
    let mut all = sockets[0].clone();
    for socket in &sockets[1..] {
        all.dram.extend(&socket.dram);
        all.tier.extend(&socket.tier);
    }
    all.dram.sort_unstable();
    all.dram.dedup();
    all.tier.retain(|node| !all.dram.contains(node));
    all.tier.sort_unstable();
    all.tier.dedup();
    let ratios = ratios_of(args);
    let mut policies = vec!["as-is".to_string()];
    for (dram, tier) in ratios {
        let label = Weights::Ratio(dram, tier).policy(&all).label();
        // Memory only: `run`'s bind:N would hold the program's CPUs to node N too.
        let label = match label.strip_prefix("bind:") {
            Some(node) => format!("membind:{node}"),
            None => label,
        };
        if !policies.contains(&label) {
            policies.push(label);
        }
    }
    super::run::run(&RunCommandArgs {
        policies,
        params: Vec::new(),
        repeat: args.rounds.unwrap_or(5),
        warmup: 1,
        observe: None,
        show_output: false,
        kill_leftovers: false,
        ignore_failure: false,
        markdown: None,
        planning: PlanArgs {
            plan: args.run.planning.plan,
            topology: args.run.planning.topology.clone(),
        },
        set_weights: args.run.set_weights,
        mpi_monitor: false,
        output: args.output.clone(),
        command: args.command.clone(),
    })
}
