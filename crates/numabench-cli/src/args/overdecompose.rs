//! `numabench overdecompose`'s flags, and those of the hidden
//! `overdecompose-worker` it starts through mpirun.

use super::parse::Listed;
use super::shared::{plan_help, OutputArgs, PlanArgs};
use clap::Args;
use numabench::overdecompose::ListError;
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(mut_args(plan_help(
    "Print the configurations (ranks, K, each rank's CPU, grid columns) and run nothing"
)))]
pub struct OverdecomposeArgs {
    /// Ranks per core K, each 1 to 32 (K = 1, the speedups' baseline, is always run).
    #[arg(long, value_name = "LIST", default_value = "1,2,4,8", value_parser = parse_ranks_per_core_arg)]
    pub ranks_per_core: Listed<usize>,
    /// Cores to run on, on every host (the first N allowed cores in cores-first order). Default: every allowed core of this host.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub cores: Option<u32>,
    /// Run across the hosts of this OpenMPI hostfile ('name [slots=N]' lines), K x cores ranks on each.
    /// Default: this host, or every node of the Slurm allocation numabench runs in.
    #[arg(long, value_name = "FILE", conflicts_with = "host")]
    pub hostfile: Option<PathBuf>,
    /// Run across these hosts (a comma-separated list, as mpirun's --host), K x cores ranks on each.
    #[arg(long, value_name = "LIST")]
    pub host: Option<String>,
    /// Runs of each configuration, interleaved round-robin.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub repeat: u32,
    /// Target shares of blocking communication at one rank per core, in percent (between 0 and 100).
    #[arg(long, value_name = "LIST", default_value = "25,50,75", value_parser = parse_comm_shares_arg)]
    pub comm_share: Listed<f64>,
    /// Grid columns (short rows keep the halo exchange latency-bound).
    #[arg(long, value_name = "N", default_value_t = 128, value_parser = clap::value_parser!(u32).range(2..=1_000_000))]
    pub nx: u32,
    /// SOR iterations of every run. Default: calibrated so a K = 1 run takes about 3 s.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    pub iterations: Option<u32>,
    #[command(flatten)]
    pub planning: PlanArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct OverdecomposeWorkerArgs {
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..))]
    pub nx: u32,
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub ny: u32,
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: u32,
    #[arg(long, default_value_t = 1.5)]
    pub omega: f64,
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=32))]
    pub ranks_per_core: u32,
    #[arg(long)]
    pub no_verify: bool,
}

fn parse_ranks_per_core_arg(text: &str) -> Result<Listed<usize>, ListError> {
    numabench::overdecompose::parse_ranks_per_core(text).map(Listed)
}

fn parse_comm_shares_arg(text: &str) -> Result<Listed<f64>, ListError> {
    numabench::overdecompose::parse_comm_shares(text).map(Listed)
}
