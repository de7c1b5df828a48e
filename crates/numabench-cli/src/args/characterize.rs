//! `numabench characterize`'s flags.

use super::shared::{MeasureArgs, OutputArgs};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CharacterizeArgs {
    /// Run only these benchmarks (see `numabench list`; plugins included).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Skip these benchmarks (built-ins or plugins).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub skip: Vec<String>,
    /// A plugin file to load (repeatable), besides NUMABENCH_PLUGIN_PATH's; plugins run after the built-ins, one thread on the first allowed CPU, 64 MiB, their default parameters.
    #[arg(long, value_name = "FILE")]
    pub plugin: Vec<PathBuf>,
    /// Measure every cell of the node matrices, whatever the budget (never measure them by symmetry class).
    #[arg(long)]
    pub full_matrix: bool,
    /// Seed that draws the members of each matrix class measured besides its representative (default 1, so --plan shows the cells the run measures and two runs measure the same cells; the plan and the budget's cut line name it).
    #[arg(long, value_name = "N")]
    pub class_seed: Option<u64>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
