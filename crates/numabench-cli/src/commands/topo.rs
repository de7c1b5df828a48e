//! `numabench topo`.

use crate::args::TopoArgs;
use crate::exit::{CliError, Status};
use numabench::topology::{render_table, Machine};

/// Prints `report`: this machine's, or the `--topology` file's.
pub fn run(args: &TopoArgs, report: &Machine) -> Result<Status, CliError> {
    if args.json {
        let text = serde_json::to_string_pretty(report)?;
        println!("{text}");
    } else {
        print!("{}", render_table(report));
    }
    Ok(Status::Clean)
}
