//! `numabench c2c`.

use super::measuring::measure_steps;
use crate::args::C2cArgs;
use crate::exit::{CliError, Status};
use numabench::bench::{BenchError, Step};

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
