//! `numabench characterize`: topology, then every selected benchmark.

use super::measuring::measure;
use crate::args::CharacterizeArgs;
use crate::exit::{CliError, Status};
use crate::progress::Progress;
use numabench::bench::{characterize_plan, run_step, select, BenchError};
use numabench::interrupt::interrupted;
use numabench::topology::render_table;

pub fn run(args: &CharacterizeArgs) -> Result<Status, CliError> {
    let show_topology = !args.output.json;
    measure(
        &args.run,
        &args.output,
        |context| {
            let selected = select(&args.only, &args.skip)
                .map_err(|error| BenchError::Invalid(error.to_string()))?;
            Ok(characterize_plan(context, &selected))
        },
        |context, steps, pipeline| {
            if show_topology {
                println!("{}", render_table(&context.topology));
            }
            let mut progress = Progress::new(steps.len());
            for step in &steps {
                if interrupted() {
                    break;
                }
                progress.step(&step.label);
                run_step(context, step, pipeline)?;
            }
            Ok(())
        },
    )
}
