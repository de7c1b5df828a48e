//! `numabench characterize`: topology, then every selected benchmark.

use super::measuring::measure_steps;
use crate::args::CharacterizeArgs;
use crate::exit::{CliError, Status};
use crate::progress::clock;
use numabench::bench::{characterize_plan, select, total_seconds, BenchError};
use numabench::topology::render_table;

pub fn run(args: &CharacterizeArgs) -> Result<Status, CliError> {
    let show_topology = !args.output.json;
    measure_steps(
        &args.run,
        &args.output,
        |context| {
            let selected = select(&args.only, &args.skip)
                .map_err(|error| BenchError::Invalid(error.to_string()))?;
            Ok(characterize_plan(context, &selected))
        },
        |context, plan| {
            // The estimate first, on stderr: stdout keeps only the results.
            eprintln!(
                "characterize: {} steps, estimated {} (see --plan)",
                plan.len(),
                clock(total_seconds(plan))
            );
            if show_topology {
                println!("{}", render_table(&context.topology));
            }
        },
        |_, _| {},
    )
}
