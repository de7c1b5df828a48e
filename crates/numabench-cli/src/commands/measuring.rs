//! What every measuring command shares: the topology, the context, and the
//! output pipeline opened before anything is measured.

use crate::args::{OutputArgs, RunArgs};
use crate::exit::{CliError, Status};
use crate::placement_warnings::PlacementWarnings;
use numabench::bench::{
    check_memory_fits, cpus_of_node, resolve_cpu, resolve_node_with_memory, working_set_for,
    BenchError, Context,
};
use numabench::interrupt::install_interrupt_handler;
use numabench::output::{OutputConfig, OutputError, Pipeline, RunMetadata};
use numabench::topology::{Purpose, TopologyReport};

/// This machine's topology, to measure on. (`commands::run` has refused a
/// `--topology` file before any measuring command starts; this refuses
/// whatever else makes hwloc describe another machine.)
pub fn this_machine() -> Result<TopologyReport, CliError> {
    super::topology::topology_for(None, Purpose::Measure)
}

/// The benchmark context from the common flags.
pub fn context(run: &RunArgs) -> Result<Context, CliError> {
    let topology = this_machine()?;
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
    let mut pipeline = Pipeline::open(&config, &metadata).map_err(|error| match error {
        OutputError::Unwritable { .. } | OutputError::SameFile { .. } => CliError::usage(error),
        other => CliError::system(other),
    })?;
    // Placement not achieved: the records say so, and the user is told on stderr.
    pipeline
        .add_sink(
            Box::new(PlacementWarnings::new(std::io::stderr())),
            &metadata,
        )
        .map_err(CliError::system)?;
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

/// `--cpu N`, or the first allowed CPU of `--cpu-node`, or the first
/// allowed CPU.
pub fn choose_cpu(
    topology: &TopologyReport,
    cpu: Option<u32>,
    cpu_node: Option<u32>,
) -> Result<u32, BenchError> {
    match (cpu, cpu_node) {
        (Some(cpu), _) => resolve_cpu(topology, cpu),
        (None, Some(node)) => Ok(cpus_of_node(topology, node)?[0]),
        (None, None) => Ok(topology.allowed.cpus[0]),
    }
}

/// `--mem-node`, or the node of `cpu`.
pub fn choose_memory_node(
    topology: &TopologyReport,
    mem_node: Option<u32>,
    cpu: u32,
) -> Result<u32, BenchError> {
    match mem_node {
        Some(node) => resolve_node_with_memory(topology, node),
        None => Ok(topology.node_of_cpu(cpu).unwrap_or(0)),
    }
}

/// `--size`, or the DRAM-sized working set of threads on `cpus` measuring
/// `nodes` ([`working_set_for`]); either must fit in `nodes`.
pub fn size_or_dram(
    topology: &TopologyReport,
    size: Option<u64>,
    cpus: &[u32],
    nodes: &[u32],
) -> Result<u64, BenchError> {
    let size = size.unwrap_or_else(|| working_set_for(topology, cpus, nodes).bytes);
    check_memory_fits(topology, nodes, size)?;
    Ok(size)
}

/// Runs a measuring command: validate first (nothing allocated, no file
/// created on bad input), then open the outputs, run, and close them.
pub fn measure<T>(
    run: &RunArgs,
    output: &OutputArgs,
    validate: impl FnOnce(&Context) -> Result<T, BenchError>,
    body: impl FnOnce(&Context, T, &mut Pipeline) -> Result<(), BenchError>,
) -> Result<Status, CliError> {
    let context = context(run)?;
    let config = validate(&context).map_err(bench_error)?;
    let mut pipeline = pipeline(output, &context)?;
    let result = body(&context, config, &mut pipeline);
    // Close the outputs even when the run failed midway: finished records stay valid.
    pipeline.finish().map_err(CliError::system)?;
    result.map_err(bench_error)?;
    Ok(Status::Clean)
}
