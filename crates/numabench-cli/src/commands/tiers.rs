//! `numabench tiers advise`.

use super::measuring::measure_steps;
use crate::args::{TiersAdviseArgs, TiersCommand};
use crate::exit::{CliError, Status};
use numabench::bench::tiers::{
    mix_kernels, sockets_of, ThreadCount, TiersConfig, DEFAULT_MIXES, DEFAULT_RATIOS,
};
use numabench::bench::{check_memory_fits, working_set_for, BenchError, Context, Step};
use numabench::memory::weighted;

pub fn run(command: &TiersCommand) -> Result<Status, CliError> {
    match command {
        TiersCommand::Advise(args) => advise(args),
    }
}

fn advise(args: &TiersAdviseArgs) -> Result<Status, CliError> {
    measure_steps(
        &args.run,
        &args.output,
        |context| Ok(vec![Step::tiers(validate(args, context)?)]),
        |_, _| {},
        |_, _| {},
    )
}

fn validate(args: &TiersAdviseArgs, context: &Context) -> Result<TiersConfig, BenchError> {
    let topology = &context.topology;
    let sockets = sockets_of(
        topology,
        args.cpu_node.as_ref().map(|list| list.0.as_slice()),
        args.memory.as_ref().map(|list| list.0.as_slice()),
    )
    .map_err(BenchError::Invalid)?;
    let mut ratios: Vec<(u32, u32)> = match args.weights.is_empty() {
        true => DEFAULT_RATIOS.to_vec(),
        false => args.weights.clone(),
    };
    // The baselines, and the two sides alone (the measured weights come from them).
    for baseline in [(1, 0), (1, 1), (0, 1)] {
        if !ratios
            .iter()
            .any(|&(d, t)| d * baseline.1 == t * baseline.0)
        {
            ratios.push(baseline);
        }
    }
    let mixes: Vec<String> = match args.mix.is_empty() {
        true => DEFAULT_MIXES.iter().map(|mix| mix.to_string()).collect(),
        false => args.mix.clone(),
    };
    let kernels =
        mix_kernels(&mixes).map_err(|reason| BenchError::Invalid(format!("--mix {reason}")))?;
    let threads = match args.threads.is_empty() {
        true => vec![ThreadCount::One, ThreadCount::Half, ThreadCount::All],
        false => args
            .threads
            .iter()
            .map(|text| ThreadCount::parse(text))
            .collect::<Result<_, _>>()
            .map_err(|reason| BenchError::Invalid(format!("--threads {reason}")))?,
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
        rounds: args.rounds as usize,
        kernel_weights: topology.this_system && weighted::kernel_weights().is_some(),
    })
}
