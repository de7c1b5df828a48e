//! One file per subcommand; `run` dispatches.

mod app;
mod app_budget;
mod app_scaling;
mod bandwidth;
mod baseline;
mod c2c;
mod cache;
mod characterize;
mod check;
mod cluster;
mod compare;
mod contention;
mod doctor;
mod documentation;
mod each_cpu;
mod export_memattrs;
mod interference;
mod latency;
mod list;
mod loaded_latency;
mod matrix;
mod measuring;
mod mlp;
mod mpi_monitor;
mod npb;
mod overdecompose;
mod per_cpu_matrix;
mod placement_study;
mod plugin;
mod report;
mod run;
mod run_scan;
mod scaling;
mod scan;
mod stream;
mod tiers;
mod topo;
mod topology_source;

use crate::args::{Cli, Command};
use crate::exit::{CliError, Status};
use numabench::topology::Purpose;
use topology_source::{refuse_unless_this_machine, topology_for};

/// Runs the parsed command line. A measuring command given `--topology`,
/// or started with HWLOC_XMLFILE or HWLOC_SYNTHETIC set, is refused here,
/// before it reads anything else, unless it only plans (`plan_only`:
/// [`crate::args::asks_for_plan`]). `set_weights`
/// ([`crate::args::asks_for_set_weights`]) lets weighted policies write
/// the kernel's weights, refused here when they cannot.
pub fn run(cli: Cli, plan_only: bool, set_weights: bool) -> Result<Status, CliError> {
    let file = cli.topology.as_deref();
    if cli.command.measures() && !plan_only {
        refuse_unless_this_machine(file)?;
    }
    if set_weights && !plan_only {
        numabench::memory::set_weights::enable()?;
    }
    match cli.command {
        Command::Topo(args) => topo::run(&args, &topology_for(file, Purpose::Describe)?),
        Command::Doctor(args) => doctor::run(&args, &topology_for(file, Purpose::Describe)?),
        Command::List(args) => {
            // `list` needs no topology, but a file given to it must load.
            if file.is_some() {
                topology_for(file, Purpose::Describe)?;
            }
            list::run(&args)
        }
        Command::Latency(args) => latency::run(&args),
        Command::Bandwidth(args) => bandwidth::run(&args),
        Command::Matrix(command) => matrix::run(&command),
        Command::Tiers(command) => tiers::run(&command),
        Command::Interference(args) => interference::run(&args),
        Command::Scan(args) => scan::run(&args),
        Command::Contention(args) => contention::run(&args),
        Command::Scaling(args) => scaling::run(&args),
        Command::LoadedLatency(args) => loaded_latency::run(&args),
        Command::Mlp(args) => mlp::run(&args),
        Command::C2c(args) => c2c::run(&args),
        Command::Characterize(args) => characterize::run(&args),
        Command::Stream(args) => stream::run(&args),
        Command::Mg(args) => npb::run_mg(&args),
        Command::Cg(args) => npb::run_cg(&args),
        Command::PlacementStudy(args) => placement_study::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Overdecompose(args) => overdecompose::run(&args),
        Command::OverdecomposeWorker(args) => overdecompose::worker(&args),
        Command::Check(args) => check::run(&args),
        Command::Cluster(args) => cluster::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Report(args) => report::run(&args),
        Command::ExportMemattrs(args) => export_memattrs::run(&args, file),
        Command::Cache(args) => cache::run(&args),
        Command::Plugin(args) => plugin::run(&args),
        Command::Completions(args) => documentation::completions(&args),
        Command::Man(args) => documentation::man(&args),
    }
}

/// Writes a whole file the user named (`report -o`, `man`'s pages); a
/// place that cannot be written is the user's to fix (status 2).
fn write_whole(path: &std::path::Path, bytes: &[u8]) -> Result<(), CliError> {
    numabench::output::output_file::write_whole(path, bytes)
        .map_err(|error| CliError::usage(format!("cannot write {}: {error}", path.display())))
}
