//! `numabench run --param NAME=LIST ...`: the parameter scan's part of the
//! `run` command's flags (validation); the library plans it
//! (`numabench::runner::RunPlan::scan`) and runs it
//! (`numabench::runner::run_command`).

use crate::args::RunCommandArgs;
use crate::exit::CliError;
use numabench::runner::{parse_scan, ScanParam};

/// The scan's parameters, checked against the command (None without
/// `--param`); a bad one is a usage error naming it.
pub fn parse(args: &RunCommandArgs) -> Result<Option<Vec<ScanParam>>, CliError> {
    if args.params.is_empty() {
        return Ok(None);
    }
    Ok(Some(parse_scan(&args.params, &args.command)?))
}
