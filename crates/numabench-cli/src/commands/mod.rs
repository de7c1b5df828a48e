//! One file per subcommand; `run` dispatches.

mod app;
mod bandwidth;
mod c2c;
mod characterize;
mod contention;
mod doctor;
mod latency;
mod list;
mod loaded_latency;
mod matrix;
mod measuring;
mod mlp;
mod npb;
mod placement_study;
mod run;
mod scaling;
mod stream;
mod topo;

use crate::args::{Cli, Command};
use crate::exit::{CliError, Status};

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<Status, CliError> {
    match cli.command {
        Command::Topo(args) => topo::run(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::List(args) => list::run(&args),
        Command::Latency(args) => latency::run(&args),
        Command::Bandwidth(args) => bandwidth::run(&args),
        Command::Matrix(command) => matrix::run(&command),
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
    }
}
