//! `numabench cache`'s flags.

use super::parse::{parse_list_arg, IdList};
use super::shared::{MeasureArgs, OutputArgs};
use clap::Args;

#[derive(Debug, Args)]
pub struct CacheArgs {
    /// The CPU whose caches hold the lines (default: the first allowed CPU).
    #[arg(long, value_name = "CPU")]
    pub owner: Option<u32>,
    /// Measuring CPUs (numactl syntax). Default: one per relation to the owner the topology has.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub cpus: Option<IdList>,
    /// States to prepare: modified, exclusive, shared (M, E, S). Shared: a third CPU, sharing no core, L1 or L2 with the owner or the measurer (an SMT sibling would leave the lines Exclusive), reads them too; without one the state is not measured and a warning says why.
    #[arg(long, value_name = "STATE,...", value_delimiter = ',', default_values_t = ["M".to_string(), "E".to_string(), "S".to_string()])]
    pub states: Vec<String>,
    /// Buffer sizes: L1, L2, L3 (half the owner's cache of that level, above the level below) and/or DRAM (twice the largest cache, at least 16 MiB); levels the owner lacks are left out. Under a memory limit a cache level's buffer is cut to fit (above the level below) and a level that cannot fit is left out with a warning.
    #[arg(long, value_name = "LEVEL,...", value_delimiter = ',', default_values_t = ["L1".to_string(), "L2".to_string(), "L3".to_string(), "DRAM".to_string()])]
    pub levels: Vec<String>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
