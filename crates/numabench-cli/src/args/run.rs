//! `numabench run`'s flags.

use super::parse::parse_interval_arg;
use super::shared::{plan_help, OutputArgs, PlanArgs};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
#[command(mut_args(plan_help(
    "Print the policies that would run (each one's pin order and memory policy, repetitions, interleaving) and run nothing; see docs/plan.md"
)))]
pub struct RunCommandArgs {
    /// Policy (repeatable): as-is, pin-compact, pin-scatter, pin-k-per-core:K, bind:N, membind:LIST,
    /// interleave:LIST|all, weighted:LIST|all (the kernel's weighted interleave with its own weights)
    /// or weighted:N=W,... (where the kernel holds these weights), preferred:N, preferred-many:LIST,
    /// or CPU and memory parts joined with '+' (pin-scatter+interleave:all). Default: as-is, pin-compact, pin-scatter, interleave:all.
    /// pin-* pins every thread of every process the command starts to the next CPU of the
    /// order (through libnumabench_pin.so, found beside numabench or at $NUMABENCH_PIN_LIB):
    /// pin-compact in tree order (SMT siblings together, then the next core of the same L3,
    /// node, package), pin-scatter round robin over nodes and over L3 domains within a node,
    /// pin-k-per-core:K (1 to 64) K threads on each core, cores in cores-first order.
    /// MPI ranks (mpirun, srun, MPICH's mpiexec) each get their own block of the order and
    /// their threads are pinned within it: compact consecutive CPUs, scatter dealt round
    /// robin, k-per-core:K local rank r on core r/K; a rank keeps to the cpuset its launcher
    /// gave it (launch with --bind-to none / --cpu-bind=none to let numabench place ranks).
    /// A rank starts on its whole block, so an OpenMP rank's default team is its block's size.
    #[arg(long = "policy", value_name = "POLICY")]
    pub policies: Vec<String>,
    /// Parameter scan (repeatable), like hyperfine's --parameter-list: NAME=V1,V2,... replaces
    /// {NAME} in the command's arguments (`-- env OMP_NUM_THREADS={t} ./prog`, `-- mpirun -np
    /// {ranks} ./prog`); several --param run every combination. Each configuration (values x
    /// policy) runs --repeat times, interleaved round robin. With one numeric parameter, taken
    /// to be a worker count (threads or ranks): speedup and parallel efficiency against its
    /// smallest value. With --param the default policy is as-is alone.
    #[arg(long = "param", value_name = "NAME=LIST")]
    pub params: Vec<String>,
    /// Timed runs per policy (per configuration with --param).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub repeat: u32,
    /// Untimed runs per policy first.
    #[arg(long, value_name = "W", default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub warmup: u32,
    /// Sample the program's threads' CPUs every INTERVAL (default 20ms) and its per-node memory
    /// (numa_maps) every 100ms or INTERVAL if longer, less often where reading numa_maps costs more
    /// than 2% of a CPU; thread migrations come from the kernel's per-thread count where it has one.
    #[arg(long, value_name = "INTERVAL", num_args = 0..=1, default_missing_value = "20ms", require_equals = true, value_parser = parse_interval_arg)]
    pub observe: Option<std::time::Duration>,
    /// Show the program's own output (hidden by default). Where numabench holds its terminal
    /// (the shell's foreground job), each run's program gets the terminal for its run, so it
    /// can set the terminal up or read from it (an editor, a pager, stty); Ctrl-C then reaches
    /// the program, and a program that dies of it stops numabench as Ctrl-C would.
    #[arg(long)]
    pub show_output: bool,
    /// End what each run leaves running after its program ended (its process group, and
    /// processes that left the group, such as setsid() daemons): SIGTERM, 2 s, then SIGKILL,
    /// after the run's clock stopped. Without it they are counted (leftover_processes in each
    /// run record, one warning) and left running.
    #[arg(long)]
    pub kill_leftovers: bool,
    /// Go on when a run exits non-zero (it is counted and not timed).
    #[arg(long)]
    pub ignore_failure: bool,
    /// Also write the comparison table as markdown to FILE.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    #[command(flatten)]
    pub planning: PlanArgs,
    /// Write each weighted interleave's weights (weighted:0=3,2=1, --interleave 0=3,2=1) into
    /// the kernel's (/sys/kernel/mm/mempolicy/weighted_interleave, system-wide; root, Linux
    /// 6.9+) just before it is used, so it runs in the kernel's mode; put back at exit.
    #[arg(long)]
    pub set_weights: bool,
    /// Preload the MPI runtime monitor (libnumabench_mpi.so, beside numabench or at
    /// $NUMABENCH_MPI_LIB) into the ranks the command starts (`mpirun ...`, `srun ...`)
    /// and report its per-rank records (wall and blocking-MPI time, messages, rusage)
    /// and per-host TLP_1..TLP_4. Policies default to as-is only. A run killed before
    /// MPI_Finalize reports the ranks' last partial snapshots, taken every
    /// $NUMABENCH_MPI_FLUSH seconds (default 10) and on SIGTERM (params.partial).
    #[arg(long)]
    pub mpi_monitor: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    /// The program and its arguments (after --).
    // Not `required`: the command itself names a missing program, in one line.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}
