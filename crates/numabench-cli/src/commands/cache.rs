//! `numabench cache`: its flags and its run: another core's caches by
//! state, level and relation, printed as one table per state (shaped by
//! `output::tables`).

use super::measuring::measure_steps;
use crate::args::parse::{parse_list_arg, IdList};
use crate::args::shared::{MeasureArgs, OutputArgs};
use crate::exit::{CliError, Status};
use clap::Args;
use numabench::bench::cache::{
    default_measurers, fit_memory_limit, level_sizes, measurer, sharer_for, CacheConfig, State,
};
use numabench::bench::{resolve_cpu, BenchError, Context, Step};
use numabench::threads::CpuOrder;

/// Latency and bandwidth of lines held in another core's caches.
///
/// Example: numabench cache --states M,S --levels L2,L3
///
/// An owner CPU puts a buffer sized for L1, L2, L3 or DRAM into the
/// Modified, Exclusive or Shared state; CPUs of every relation to it the
/// topology has (SMT sibling, same L2, same L3, same node, same package,
/// another package per distance) chase it and read it through; beside
/// local and remote DRAM (the buffer flushed). One table per state.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// The CPU whose caches hold the lines (default: the first allowed CPU).
    #[arg(long, value_name = "CPU")]
    pub owner: Option<u32>,
    /// Measuring CPUs (numactl syntax). Default: one per relation to the owner the topology has.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub cpus: Option<IdList>,
    /// States to prepare: modified, exclusive, shared (M, E, S). Shared: a third CPU, sharing no core, L1 or L2 with the owner or the measurer (an SMT sibling would leave the lines Exclusive), reads them too; without one the state is not measured and a warning says why.
    #[arg(long, value_name = "STATE,...", value_delimiter = ',', default_values_t = ["M".to_string(), "E".to_string(), "S".to_string()])]
    pub states: Vec<String>,
    /// Buffer sizes: L1, L2, L3 (half the owner's cache of that level, above the level below) and/or DRAM (twice the largest cache, at least 16 MiB); levels the owner lacks are left out. Under a memory limit a cache level's buffer is cut to fit (above the level below) and a level that cannot fit is left out with a warning.
    #[arg(long, value_name = "LEVEL,...", value_delimiter = ',', default_values_t = ["L1".to_string(), "L2".to_string(), "L3".to_string(), "DRAM".to_string()])]
    pub levels: Vec<String>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: &CacheArgs) -> Result<Status, CliError> {
    // The tables (one per state) are the output's: `output::tables`.
    measure_steps(
        &args.run,
        &args.output,
        |context| Ok(vec![Step::cache(validate(args, context)?)]),
        |_, _| {},
        |_, _| {},
    )
}

fn parse_state(text: &str) -> Result<State, BenchError> {
    match text.to_ascii_lowercase().as_str() {
        "m" | "modified" => Ok(State::Modified),
        "e" | "exclusive" => Ok(State::Exclusive),
        "s" | "shared" => Ok(State::Shared),
        _ => Err(BenchError::Invalid(format!(
            "--states {text}: not a state (M, E, S or modified, exclusive, shared)"
        ))),
    }
}

fn parse_level(text: &str) -> Result<u32, BenchError> {
    match text.to_ascii_uppercase().as_str() {
        "L1" => Ok(1),
        "L2" => Ok(2),
        "L3" => Ok(3),
        "DRAM" => Ok(0),
        _ => Err(BenchError::Invalid(format!(
            "--levels {text}: not a level (L1, L2, L3, DRAM)"
        ))),
    }
}

fn validate(args: &CacheArgs, context: &Context) -> Result<CacheConfig, BenchError> {
    let topology = &context.topology;
    let allowed = CpuOrder::Compact.all_allowed(topology);
    let owner = match args.owner {
        Some(cpu) => resolve_cpu(topology, cpu)?,
        None => allowed[0],
    };
    let mut states = args
        .states
        .iter()
        .map(|text| parse_state(text))
        .collect::<Result<Vec<_>, _>>()?;
    states.sort_unstable();
    states.dedup();
    let mut levels = args
        .levels
        .iter()
        .map(|text| parse_level(text))
        .collect::<Result<Vec<_>, _>>()?;
    levels.sort_unstable_by_key(|&level| if level == 0 { u32::MAX } else { level });
    levels.dedup();
    let measurers = match &args.cpus {
        Some(list) => list
            .0
            .iter()
            .map(|&cpu| {
                let cpu = resolve_cpu(topology, cpu)?;
                if cpu == owner {
                    return Err(BenchError::Invalid(format!(
                        "--cpus {cpu}: the owner's own CPU cannot measure another core's cache"
                    )));
                }
                Ok(measurer(topology, owner, cpu))
            })
            .collect::<Result<Vec<_>, _>>()?,
        None => default_measurers(topology, owner, &allowed),
    };
    if measurers.is_empty() {
        return Err(BenchError::Invalid(format!(
            "cache: no CPU other than the owner (CPU {owner}) is allowed to measure from"
        )));
    }
    if states.contains(&State::Shared) {
        for m in &measurers {
            if let Err(why) = sharer_for(topology, owner, m.cpu, &allowed) {
                eprintln!(
                    "numabench: warning: the shared state from CPU {} is not measured: {why}",
                    m.cpu
                );
            }
        }
    }
    let (fitted, left_out) =
        fit_memory_limit(topology, owner, level_sizes(topology, owner, &levels));
    if fitted.is_empty() && !left_out.is_empty() {
        return Err(BenchError::Invalid(format!(
            "cache: {}",
            left_out.join("; ")
        )));
    }
    for line in left_out {
        eprintln!("numabench: warning: {line}");
    }
    Ok(CacheConfig {
        owner,
        measurers,
        states,
        levels: fitted,
        allowed,
    })
}
