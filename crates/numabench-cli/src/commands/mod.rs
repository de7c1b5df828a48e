//! One file per subcommand; `run` dispatches.

mod bandwidth;
mod doctor;
mod latency;
mod list;
mod measuring;
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
    }
}
