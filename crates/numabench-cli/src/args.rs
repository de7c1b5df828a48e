//! Command-line flags (clap derive). Only shapes and pure parsing live
//! here; checks against the machine happen when a command validates its
//! flags into a library configuration.
//!
//! This file is the root: [`Cli`], the top-level help ([`command()`], its
//! "Measure" group read from the benchmark registry) and the re-exports
//! the commands use. The subcommands and their `--help` texts are in
//! `args/command.rs`. A benchmark's flags are beside its run in
//! `commands/<command>.rs` (latency, bandwidth, matrix, contention,
//! scaling, loaded-latency, mlp, c2c, cache, interference, tiers, scan: a
//! benchmark's command is one file); the other commands' flags are in
//! `args/<command>.rs` (a family shares one: `apps.rs` for stream, cg, mg
//! and placement-study, `inspect.rs` for topo, doctor and list,
//! `results.rs` for report, compare and export-memattrs); the flags every
//! measuring command flattens (output, repetitions, budget, and
//! [`PlanArgs`]: `--plan` and its topology, the one block of every command
//! that plans) in `args/shared.rs`; the value parsers several commands
//! share in `args/parse.rs`; the chase orders latency and mlp share in
//! `args/chase_order.rs`.

use clap::Parser;
use std::path::PathBuf;

mod apps;
mod characterize;
mod chase_order;
mod check;
mod cluster;
mod command;
mod documentation;
mod inspect;
mod overdecompose;
pub(crate) mod parse;
mod plugin;
mod results;
mod run;
pub(crate) mod shared;
#[cfg(test)]
mod tests;

pub use apps::{AppRunArgs, NpbArgs, PlacementStudyArgs, StreamArgs};
pub use characterize::CharacterizeArgs;
pub use chase_order::ChaseOrderArg;
pub use check::{CheckArgs, CheckFormat};
pub use cluster::{ClusterArgs, PairingArg};
// Only the MPI build's cluster run reads `--per`.
#[cfg(feature = "mpi")]
pub use cluster::PerArg;
pub use command::{asks_for_plan, asks_for_set_weights, Command};
pub use documentation::{CompletionsArgs, ManArgs};
pub use inspect::{DoctorArgs, ListArgs, TopoArgs};
pub use overdecompose::{OverdecomposeArgs, OverdecomposeWorkerArgs};
pub use parse::{all_items, IdList};
pub use plugin::{PluginArgs, PLUGIN_TIMEOUT};
pub use results::{CompareArgs, ExportMemattrsArgs, MatchByArg, ReportArgs};
pub use run::RunCommandArgs;
pub use shared::{MeasureArgs, OutputArgs, PlanArgs, DEFAULT_CLASS_SEED};

/// Measure what NUMA costs on this machine and which thread and memory
/// placement makes a program fast and repeatable.
#[derive(Debug, Parser)]
#[command(
    name = "numabench",
    version = numabench::VERSION_LINE,
    about = "What NUMA costs on this machine, and which placement makes a program fast and repeatable.",
    long_about = None,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// An hwloc XML file's machine (lstopo --of xml): topo, list, doctor, --plan.
    #[arg(long, global = true, value_name = "FILE")]
    pub topology: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// The measuring commands no registry entry has, last in the top-level
/// help's "Measure" group ([`command_groups`]).
const MEASURE_BESIDES_REGISTRY: &[&str] = &["interference", "cache", "plugin"];

/// The top-level help's groups of commands, in order: every visible
/// subcommand is in exactly one (a unit test checks it). "Measure" is
/// `characterize`, then every registry benchmark's command in registry
/// order ([`benchmark_commands`]), then [`MEASURE_BESIDES_REGISTRY`]: a
/// benchmark added to the registry is listed with no entry here.
pub fn command_groups(command: &clap::Command) -> Vec<(&'static str, Vec<&str>)> {
    let mut measure = vec!["characterize"];
    measure.extend(benchmark_commands(command));
    measure.extend(MEASURE_BESIDES_REGISTRY);
    vec![
        ("Inspect", vec!["topo", "doctor", "list"]),
        ("Measure", measure),
        ("Applications", vec!["stream", "cg", "mg"]),
        (
            "Studies",
            vec!["placement-study", "run", "overdecompose", "tiers"],
        ),
        ("Operations", vec!["check", "cluster", "scan"]),
        ("Results", vec!["report", "compare", "export-memattrs"]),
        ("Shell", vec!["completions", "man"]),
    ]
}

/// The top-level commands that run the registry's benchmarks, in registry
/// order, each once: the command whose path spells the benchmark's name
/// as its man page is named (`c2c`; `matrix latency` for `matrix-latency`,
/// listed as `matrix`). A benchmark run only through another command's
/// flags (`per-cpu`: `latency --each-cpu`, ...) has none.
fn benchmark_commands(command: &clap::Command) -> Vec<&str> {
    fn runs(command: &clap::Command, name: &str) -> bool {
        let own = command.get_name();
        !command.is_hide_set()
            && (name == own
                || name
                    .strip_prefix(own)
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|rest| command.get_subcommands().any(|sub| runs(sub, rest))))
    }
    let mut commands: Vec<&str> = Vec::new();
    for info in numabench::bench::registry() {
        let found = command.get_subcommands().find(|sub| runs(sub, info.name));
        if let Some(name) = found.map(clap::Command::get_name) {
            if !commands.contains(&name) {
                commands.push(name);
            }
        }
    }
    commands
}

/// Groups the top-level help names on one line, without their abouts
/// (each command's own `--help` says what it does): the help stays within
/// one 50-line screen.
pub const ONE_LINE_GROUPS: &[&str] = &["Shell"];

/// The command line's definition, with the top-level help grouped by
/// [`command_groups`] (one line per command, its one-sentence about) and a
/// "Start here" for new users, as git and cargo do.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let command = Cli::command();
    let mut groups = String::new();
    for (group, names) in command_groups(&command) {
        if ONE_LINE_GROUPS.contains(&group) {
            groups.push_str(&format!("{group}: {}\n", names.join(", ")));
            continue;
        }
        groups.push_str(&format!("{group}:\n"));
        for name in names {
            let about = command
                .find_subcommand(name)
                .and_then(|sub| sub.get_about())
                .map(|about| about.to_string())
                .unwrap_or_default();
            groups.push_str(&format!("  {name:<16} {about}\n"));
        }
    }
    command.help_template(format!(
        "{{about}}\n\n{{usage-heading}} {{usage}}\n\n\
         Start here:\n  \
         numabench characterize --jsonl r.jsonl   this machine (--plan: what, how long)\n  \
         numabench report r.jsonl -o r.html       one page of plots\n\n\
         {groups}\n\
         Options:\n{{options}}\n\n\
         More: numabench help COMMAND, numabench COMMAND --help, man numabench-COMMAND\n"
    ))
}
