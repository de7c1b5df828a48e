//! `numabench scan`.

use super::measuring::measure_steps;
use crate::args::ScanArgs;
use crate::exit::{CliError, Status};
use numabench::bench::scan::{ScanConfig, ScanRequest, FRAMES_HIDDEN};
use numabench::bench::tiers::ThreadCount;
use numabench::bench::{BenchError, Context, Step};
use numabench::memory::frames_visible;

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
