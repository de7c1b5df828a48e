//! The flags of the commands that read results files: `report`, `compare`
//! and `export-memattrs`.

use super::shared::OutputArgs;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Results files: JSON Lines, JSON documents, `topo --json`, `doctor --json`.
    #[arg(required = true, value_name = "RESULTS")]
    pub inputs: Vec<PathBuf>,
    /// The HTML file to write (never one of the inputs).
    #[arg(short, long, value_name = "FILE", default_value = "report.html")]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Results files (JSON Lines from --jsonl or JSON documents from
    /// --json), two or more; the first is the baseline of every ratio.
    #[arg(value_name = "RESULTS")]
    pub files: Vec<PathBuf>,
    /// How records are matched: exact (same benchmark and params: two runs
    /// of one machine), role (what each figure is on its machine: two
    /// machines), auto (role when the files' metadata name different
    /// machines; without metadata, role when exact matching leaves more than
    /// half of a file's records unmatched)
    #[arg(long, value_enum, value_name = "HOW", default_value = "auto")]
    pub by: MatchByArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `compare --by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatchByArg {
    Auto,
    Exact,
    Role,
}

#[derive(Debug, Args)]
pub struct ExportMemattrsArgs {
    /// Results files of `matrix latency` and/or `matrix bandwidth` (--jsonl or --json).
    #[arg(required = true, value_name = "RESULTS")]
    pub inputs: Vec<PathBuf>,
    /// The hwloc XML file to write.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}
