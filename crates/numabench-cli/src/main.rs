//! The `numabench` command: parses flags, validates them into plain
//! configurations from the library, runs them, and maps failures to exit
//! statuses. Domain logic lives in the `numabench` library.

mod args;
mod commands;
mod cpu_sequence;
mod exit;
mod placement_warnings;
mod plan;
mod progress;
mod split_plan;
mod tables;

use clap::FromArgMatches;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Inherited as ignored, it would make every wait for a started program fail.
    numabench::interrupt::reset_child_signal();
    let parsed = args::command().try_get_matches().and_then(|matches| {
        let plan_only = args::asks_for_plan(&matches);
        args::Cli::from_arg_matches(&matches).map(|cli| (cli, plan_only))
    });
    let (cli, plan_only) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return exit::clap_error(&error),
    };
    let result = commands::run(cli, plan_only);
    // Every temporary file lives in the private folder: gone on every way out.
    numabench::private_dir::remove();
    let status = match result {
        Ok(status) => status.into(),
        Err(error) => exit::report(&error),
    };
    // Stopped by SIGINT or SIGTERM: 130 or 143, as a shell reports it.
    match numabench::interrupt::exit_status() {
        Some(code) => ExitCode::from(code),
        None => status,
    }
}
