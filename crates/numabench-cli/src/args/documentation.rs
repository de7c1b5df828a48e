//! `numabench completions` and `numabench man`'s flags.

use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Directory the pages are written to (created if missing).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}
