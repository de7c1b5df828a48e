//! `numabench characterize`: topology, then every selected benchmark, then
//! a short summary of what this run measured.

use super::measuring::measure_steps_closing;
use crate::args::CharacterizeArgs;
use crate::exit::{CliError, Status};
use crate::progress::clock;
use numabench::bench::{characterize_plan, select, total_seconds, BenchError};
use numabench::summary::{summarize, summary_records};
use numabench::topology::render_table;

pub fn run(args: &CharacterizeArgs) -> Result<Status, CliError> {
    let show_topology = !args.output.json;
    measure_steps_closing(
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
        |records, pipeline| {
            // Sentences from this run's records only: as records (in every
            // output), then as plain lines after the table.
            let sentences = summarize(records);
            for record in summary_records(&sentences) {
                pipeline.emit(&record)?;
            }
            if show_topology && !sentences.is_empty() {
                println!("\nSummary:");
                for sentence in &sentences {
                    println!("  - {}", sentence.text);
                }
            }
            Ok(())
        },
    )
}
