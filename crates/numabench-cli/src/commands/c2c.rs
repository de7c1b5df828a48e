//! `numabench c2c`: its flags and its run (the steps it measures).

use super::measuring::measure_steps;
use crate::args::{MeasureArgs, OutputArgs};
use crate::exit::{CliError, Status};
use clap::Args;
use numabench::bench::{BenchError, Step};

/// Core-to-core latency of a modified cache line.
///
/// Example: numabench c2c
///
/// The latency of a modified line moving between two cores, for each
/// CPU pair (representative pairs on large machines).
#[derive(Debug, Args)]
pub struct C2cArgs {
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: &C2cArgs) -> Result<Status, CliError> {
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            if context.topology.allowed.cpus.len() < 2 {
                return Err(BenchError::Invalid(
                    "c2c needs at least two allowed CPUs".into(),
                ));
            }
            Ok(vec![Step::c2c()])
        },
        |_, _| {},
        |_, _| {},
    )
}
