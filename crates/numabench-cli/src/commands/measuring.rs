//! What every measuring command shares: the topology, the context, and the
//! output pipeline opened before anything is measured.

use crate::args::{OutputArgs, RunArgs};
use crate::exit::CliError;
use numabench::bench::{install_interrupt_handler, BenchError, Context};
use numabench::output::{OutputConfig, OutputError, Pipeline, RunMetadata};
use numabench::topology::discover_this_system;

/// The benchmark context from the common flags.
pub fn context(run: &RunArgs) -> Result<Context, CliError> {
    let topology = discover_this_system().map_err(CliError::system)?;
    let mut context = Context::new(topology);
    context.repeat = run.repeat as usize;
    context.hugepages = run.hugepages;
    Ok(context)
}

/// Opens every requested output (an unwritable file is a usage error) and
/// arms Ctrl-C so the outputs are closed properly.
pub fn pipeline(output: &OutputArgs, context: &Context) -> Result<Pipeline, CliError> {
    let config = OutputConfig {
        csv: output.csv.clone(),
        delimiter: output.delimiter,
        jsonl: output.jsonl.clone(),
        json_stdout: output.json,
    };
    let metadata = RunMetadata::collect(std::env::args().collect(), &context.topology);
    let pipeline = Pipeline::open(&config, &metadata).map_err(|error| match error {
        OutputError::Unwritable { .. } => CliError::usage(error),
        other => CliError::system(other),
    })?;
    install_interrupt_handler();
    Ok(pipeline)
}

/// Maps a benchmark failure to the exit status it deserves.
pub fn bench_error(error: BenchError) -> CliError {
    if error.is_user_error() {
        CliError::usage(error)
    } else {
        CliError::system(error)
    }
}
