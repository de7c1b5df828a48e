//! `numabench c2c`.

use super::measuring::measure;
use crate::args::C2cArgs;
use crate::exit::{CliError, Status};
use numabench::bench::{run_c2c, BenchError};

pub fn run(args: &C2cArgs) -> Result<Status, CliError> {
    measure(
        &args.run,
        &args.output,
        |context| {
            if context.topology.allowed.cpus.len() < 2 {
                return Err(BenchError::Invalid(
                    "c2c needs at least two allowed CPUs".into(),
                ));
            }
            Ok(())
        },
        |context, (), pipeline| run_c2c(context, pipeline).map(drop),
    )
}
