//! `numabench doctor`.

use crate::args::DoctorArgs;
use crate::exit::{CliError, Status};
use numabench::doctor::{run_doctor, SystemFiles};
use numabench::topology::Machine;

/// Audits this machine, or what a `--topology` file shows of another one.
pub fn run(args: &DoctorArgs, topology: &Machine) -> Result<Status, CliError> {
    let report = run_doctor(&SystemFiles::real(), topology);
    if args.json {
        let text = serde_json::to_string_pretty(&report)?;
        println!("{text}");
    } else {
        let width = usize::from(crate::tables::terminal_width());
        print!(
            "{}",
            crate::tables::wrap_lines(&report.render_text(), width)
        );
    }
    Ok(if report.warnings == 0 {
        Status::Clean
    } else {
        Status::Warnings
    })
}
