//! The flags of the commands that inspect this machine and measure
//! nothing: `topo`, `doctor` and `list`.

use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct TopoArgs {
    /// Print a stable JSON document (schema in docs/topology.md) instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print the findings as a JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// A paragraph per benchmark: what it measures, how, what the numbers mean.
    #[arg(long)]
    pub describe: bool,
    /// Also list this plugin (repeatable); NUMABENCH_PLUGIN_PATH's are listed too.
    #[arg(long, value_name = "FILE")]
    pub plugin: Vec<PathBuf>,
}
