//! `numabench list`.

use crate::args::ListArgs;
use crate::exit::{CliError, Status};
use numabench::bench::registry;

pub fn run(args: &ListArgs) -> Result<Status, CliError> {
    for info in registry() {
        if args.describe {
            println!("{}\n  {}\n", info.name, info.description);
        } else {
            println!("{:<16} {}", info.name, info.summary);
        }
    }
    Ok(Status::Clean)
}
