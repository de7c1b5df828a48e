//! `numabench c2c`'s flags.

use super::shared::{MeasureArgs, OutputArgs};
use clap::Args;

#[derive(Debug, Args)]
pub struct C2cArgs {
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
