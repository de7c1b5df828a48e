//! One file per subcommand; `run` dispatches, through the table of
//! [`dispatch!`]: a command that runs from its flags alone is one row,
//! `Variant => module`, which declares its module and dispatches to its
//! `run`.

mod app;
mod app_budget;
mod app_scaling;
mod baseline;
mod doctor;
mod documentation;
mod each_cpu;
mod export_memattrs;
mod list;
mod measuring;
mod mpi_monitor;
mod npb;
mod per_cpu_matrix;
mod run_scan;
mod topo;
mod topology_source;

use crate::args::{Cli, Command};
use crate::exit::{CliError, Status};
use numabench::topology::Purpose;
use std::path::Path;
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
    dispatch(cli.command, file)
}

/// Writes the table-driven dispatch: the rows `Variant => module` of the
/// commands that run from their flags alone (`module::run(&args)`) declare
/// their modules (`pub(crate)`: a command's flags may live beside it, as
/// c2c's do) and their arms; the arms of the other commands follow, so
/// the `match` stays exhaustive.
macro_rules! dispatch {
    (
        $(#[$doc:meta])*
        fn $name:ident($command:ident, $file:ident);
        from_flags { $($variant:ident => $module:ident,)* }
        others { $($arms:tt)* }
    ) => {
        $(pub(crate) mod $module;)*

        $(#[$doc])*
        fn $name($command: Command, $file: Option<&Path>) -> Result<Status, CliError> {
            match $command {
                $(Command::$variant(args) => $module::run(&args),)*
                $($arms)*
            }
        }
    };
}

dispatch! {
    /// Runs the command: its module's `run`, given the global `--topology
    /// FILE` where the command reads it from there.
    fn dispatch(command, file);
    from_flags {
        Latency => latency,
        Bandwidth => bandwidth,
        Matrix => matrix,
        Tiers => tiers,
        Interference => interference,
        Scan => scan,
        Contention => contention,
        Scaling => scaling,
        LoadedLatency => loaded_latency,
        Mlp => mlp,
        C2c => c2c,
        Characterize => characterize,
        Stream => stream,
        PlacementStudy => placement_study,
        Run => run,
        Overdecompose => overdecompose,
        Check => check,
        Cluster => cluster,
        Compare => compare,
        Report => report,
        Cache => cache,
        Plugin => plugin,
    }
    others {
        Command::Topo(args) => topo::run(&args, &topology_for(file, Purpose::Describe)?),
        Command::Doctor(args) => doctor::run(&args, &topology_for(file, Purpose::Describe)?),
        Command::List(args) => {
            // `list` needs no topology, but a file given to it must load.
            if file.is_some() {
                topology_for(file, Purpose::Describe)?;
            }
            list::run(&args)
        }
        Command::Mg(args) => npb::run_mg(&args),
        Command::Cg(args) => npb::run_cg(&args),
        Command::OverdecomposeWorker(args) => overdecompose::worker(&args),
        Command::ExportMemattrs(args) => export_memattrs::run(&args, file),
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
