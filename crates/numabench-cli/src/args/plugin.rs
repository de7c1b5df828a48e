//! `numabench plugin`'s flags.

use super::parse::{parse_list_arg, parse_size_arg, parse_timeout_arg, IdList};
use super::shared::{MeasureArgs, OutputArgs};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct PluginArgs {
    /// The plugins to run, by name (default: every plugin found).
    #[arg(value_name = "NAME,...", value_delimiter = ',')]
    pub names: Vec<String>,
    /// A plugin file to load (repeatable), besides NUMABENCH_PLUGIN_PATH's.
    #[arg(long, value_name = "FILE")]
    pub plugin: Vec<PathBuf>,
    /// Threads, on the first N allowed CPUs in cores-first order (default: 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "cpus")]
    pub threads: Option<u32>,
    /// The threads' CPUs (numactl syntax).
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub cpus: Option<IdList>,
    /// Bytes of each thread's buffer.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg, default_value = "64M")]
    pub size: u64,
    /// Bind every buffer to this node (default: first touch by its thread, on the thread's node).
    #[arg(long, value_name = "NODE")]
    pub mem_node: Option<u32>,
    /// A plugin parameter NAME=VALUE (repeatable); see `list --describe`.
    #[arg(long, value_name = "NAME=VALUE")]
    pub param: Vec<String>,
    /// A plugin still running after this long (e.g. 90s, 30m, 2h; a bare
    /// number is seconds) is stopped (SIGTERM, then SIGKILL after 2 s) and
    /// reported failed.
    #[arg(long, value_name = "DURATION", default_value = PLUGIN_TIMEOUT, value_parser = parse_timeout_arg)]
    pub timeout: std::time::Duration,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The default `plugin --timeout`: generous, a plugin normally runs for
/// seconds; `list --describe` states it.
pub const PLUGIN_TIMEOUT: &str = "1h";
