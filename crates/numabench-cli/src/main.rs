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

/// Puts back the kernel's weights that `--set-weights` wrote, and says so.
fn weights_restored() {
    let Some(restored) = numabench::memory::set_weights::restore() else {
        return;
    };
    if !restored.weights.is_empty() {
        let weights: Vec<String> = restored
            .weights
            .iter()
            .map(|(node, weight)| format!("node {node}: {weight}"))
            .collect();
        let auto = match restored.auto_back {
            Some(true) => " (auto on again)",
            _ => "",
        };
        eprintln!(
            "numabench: the kernel's interleave weights are back: {}{auto}",
            weights.join(", ")
        );
    }
    for problem in restored.problems {
        eprintln!("numabench: warning: --set-weights: {problem}");
    }
}

fn main() -> ExitCode {
    // Inherited as ignored, it would make every wait for a started program fail.
    numabench::interrupt::reset_child_signal();
    let parsed = args::command().try_get_matches().and_then(|matches| {
        let plan_only = args::asks_for_plan(&matches);
        let set_weights = args::asks_for_set_weights(&matches);
        args::Cli::from_arg_matches(&matches).map(|cli| (cli, plan_only, set_weights))
    });
    let (cli, plan_only, set_weights) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return exit::clap_error(&error),
    };
    let result = commands::run(cli, plan_only, set_weights);
    weights_restored();
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
