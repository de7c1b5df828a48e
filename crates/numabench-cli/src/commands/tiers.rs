//! `numabench tiers advise`.

use super::measuring::measure_steps;
use crate::args::{PlanArgs, RunCommandArgs, TiersAdviseArgs, TiersCommand};
use crate::exit::{CliError, Status};
use numabench::bench::tiers::{
    mix_kernels, sockets_of, ThreadCount, TiersConfig, Weights, DEFAULT_MIXES, DEFAULT_RATIOS,
};
use numabench::bench::{check_memory_fits, working_set_for, BenchError, Context, Step};
use numabench::memory::auto_weights::auto_weights;
use numabench::memory::weighted;
use numabench::topology::memory_nodes;

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
