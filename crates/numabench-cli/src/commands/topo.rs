//! `numabench topo`.

use crate::args::TopoArgs;
use crate::exit::{CliError, Status};
use numabench::topology::{discover_this_system, render_table};

pub fn run(args: &TopoArgs) -> Result<Status, CliError> {
    let report = discover_this_system().map_err(CliError::system)?;
    if args.json {
        let text = serde_json::to_string_pretty(&report).map_err(CliError::system)?;
        println!("{text}");
    } else {
        print!("{}", render_table(&report));
    }
    Ok(Status::Clean)
}
