//! `numabench cache`: another core's caches by state, level and relation,
//! printed as one table per state (shaped by `output::tables`).

use super::measuring::measure_steps;
use crate::args::CacheArgs;
use crate::exit::{CliError, Status};
use numabench::bench::cache::{
    default_measurers, fit_memory_limit, level_sizes, measurer, sharer_for, CacheConfig, State,
};
use numabench::bench::{resolve_cpu, BenchError, Context, Step};
use numabench::threads::CpuOrder;

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
