//! The subcommands ([`Command`]), each variant's doc comment its `--help`
//! text (the first line is the about the top-level help lists; a command
//! whose flags live beside its run, as every benchmark's do, has it on its
//! flags' struct in `commands/<command>.rs`), and what a parsed command
//! line asks for (`--plan`, `--set-weights`), read from clap's matches
//! before the command is built.

use super::apps::{NpbArgs, PlacementStudyArgs, StreamArgs};
use super::characterize::CharacterizeArgs;
use super::check::CheckArgs;
use super::cluster::ClusterArgs;
use super::documentation::{CompletionsArgs, ManArgs};
use super::inspect::{DoctorArgs, ListArgs, TopoArgs};
use super::overdecompose::{OverdecomposeArgs, OverdecomposeWorkerArgs};
use super::plugin::PluginArgs;
use super::results::{CompareArgs, ExportMemattrsArgs, ReportArgs};
use super::run::RunCommandArgs;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Packages, NUMA nodes, caches, distances, HMAT, usable CPUs.
    ///
    /// Example: numabench topo --json > topology.json
    ///
    /// Shows packages, NUMA nodes (CPU-less ones marked), CPUs, caches, the
    /// node distance matrix, HMAT latency/bandwidth, memory-side caches and
    /// what this process may use (cgroup, taskset, Slurm) and its memory
    /// limit (memory cgroup memory.max or memory.high, RLIMIT_AS, RLIMIT_DATA: default sizes fit
    /// under it, an explicit --size that cannot is refused), of this machine
    /// or of the machine a --topology file describes.
    Topo(TopoArgs),
    /// Audit the settings that change NUMA results.
    ///
    /// Example: numabench doctor
    ///
    /// Checks NUMA balancing, THP, zone reclaim, huge page pools, governor,
    /// SMT, CPU/node restrictions, free memory per node, the process's
    /// memory limit, hypervisor and perf counters: found / why / fix. A setting it cannot read is reported
    /// unknown, as a warning. With --topology FILE, checks what the file
    /// shows and reports this kernel's settings as not checked. Exit status
    /// 0 when clean, 1 when there are warnings. Reads only; never changes a
    /// setting.
    Doctor(DoctorArgs),
    /// Name every benchmark and plugin (--describe: what and how).
    ///
    /// Example: numabench list --describe
    List(ListArgs),
    Latency(crate::commands::latency::LatencyArgs),
    Bandwidth(crate::commands::bandwidth::BandwidthArgs),
    /// Node x node latency or read bandwidth matrices.
    ///
    /// Example: numabench matrix bandwidth --mode parallel
    ///
    /// A thread on each CPU node (its first CPU in compact order; parallel:
    /// all its CPUs), memory on each node (CPU-less nodes included as memory
    /// targets).
    #[command(subcommand)]
    Matrix(crate::commands::matrix::MatrixCommand),
    /// Tiered memory (CXL, HBM): the interleave ratio to use, measured.
    #[command(subcommand)]
    Tiers(crate::commands::tiers::TiersCommand),
    Interference(crate::commands::interference::InterferenceArgs),
    Scan(crate::commands::scan::ScanArgs),
    Contention(crate::commands::contention::ContentionArgs),
    Scaling(crate::commands::scaling::ScalingArgs),
    LoadedLatency(crate::commands::loaded_latency::LoadedLatencyArgs),
    Mlp(crate::commands::mlp::MlpArgs),
    C2c(crate::commands::c2c::C2cArgs),
    /// Characterize this machine: every benchmark, sized for it.
    ///
    /// Example: numabench characterize --jsonl results.jsonl, then numabench report results.jsonl
    ///
    /// The topology, then every benchmark (or those chosen with
    /// --only/--skip) with defaults derived from the topology; latencies are
    /// chased random within TLB-sized blocks (idle latency). --plan shows
    /// every step and the estimated duration without running anything.
    Characterize(CharacterizeArgs),
    /// STREAM under a placement scheme and a thread scheme.
    ///
    /// Example: numabench stream --placement serial --threads-placement scatter
    ///
    /// STREAM copy/scale/add/triad as an application, with STREAM's
    /// validation. Records also say what the threads were doing: per-thread
    /// user and system time and context switches, TLP_1..TLP_4 (sampled
    /// runnable threads per core), the kernel's per-node numastat deltas
    /// (system-wide) and perf event counts; events this machine cannot count
    /// are named with the reason (params threads_usage, tlp, numastat_delta,
    /// perf, perf_unavailable; docs/results.md).
    Stream(StreamArgs),
    /// NPB MG under a placement scheme and a thread scheme.
    ///
    /// Example: numabench mg --class B --placement first-touch
    ///
    /// V-cycle multigrid on the 3-D Poisson problem with NPB's verification.
    /// Records also say what the threads were doing: per-thread user and
    /// system time and context switches, TLP_1..TLP_4 (sampled runnable
    /// threads per core), the kernel's per-node numastat deltas
    /// (system-wide) and perf event counts; events this machine cannot
    /// count are named with the reason (params threads_usage, tlp,
    /// numastat_delta, perf, perf_unavailable; docs/results.md).
    Mg(NpbArgs),
    /// NPB CG under a placement scheme and a thread scheme.
    ///
    /// Example: numabench cg --class B --placement serial+migrate
    ///
    /// Conjugate gradient inside the inverse power method on NPB's random
    /// sparse matrix, with NPB's verification value zeta. The sparse
    /// product's variant (gathers, loads, prefetch, 16-bit column gaps) is
    /// the fastest of a calibration, each variant first checked to compute
    /// the scalar loads' bits on this CPU (params spmv, spmv_calibration,
    /// and spmv_differing for a variant left out). Records also say
    /// what the threads were doing: per-thread user and system time and
    /// context switches, TLP_1..TLP_4 (sampled runnable threads per core),
    /// the kernel's per-node numastat deltas (system-wide) and perf event
    /// counts; events this machine cannot count are named with the reason
    /// (params threads_usage, tlp, numastat_delta, perf, perf_unavailable;
    /// docs/results.md).
    Cg(NpbArgs),
    /// Which placement makes a kernel fastest, and how much its runs vary.
    ///
    /// Example: numabench placement-study cg --repeat 5
    ///
    /// Runs a kernel (stream, cg, mg) under every placement scheme x thread
    /// scheme (and over-decomposition levels), interleaved (the order
    /// rotated every repetition), side by side, naming the fastest
    /// (Mann-Whitney) and giving the lowest cv (descriptive, not tested).
    PlacementStudy(PlacementStudyArgs),
    /// Run any program under NUMA policies and compare them.
    ///
    /// Example: numabench run --policy as-is --policy pin-compact -- ./bt.A.x
    ///
    /// Runs the program repeatedly, interleaving the policies (the order
    /// rotated every repetition, so no policy always runs first), and
    /// compares wall time, CPU time, RSS and context switches (with a
    /// Mann-Whitney test against as-is, its p-values adjusted by Holm's
    /// method for the number of policies compared: * marks Holm p < 0.05). Records also say what the threads were doing:
    /// per-thread user and system time and context switches, TLP_1..TLP_4
    /// (sampled runnable threads per core), the kernel's per-node numastat
    /// deltas (system-wide) and perf event counts; events this machine
    /// cannot count are named with the reason (params threads_usage, tlp,
    /// numastat_delta, perf, perf_unavailable; docs/results.md).
    ///
    /// The program runs in a process group of its own: SIGINT (Ctrl-C) or
    /// SIGTERM sent to numabench is forwarded to that group, which gets 5 s
    /// before SIGKILL; the run is recorded with interrupted = true, the
    /// outputs are closed, and numabench exits 130 (SIGINT) or 143
    /// (SIGTERM). Temporary files (the pinning shim's, the MPI monitor's)
    /// live in a private folder (mode 0700) named by NUMABENCH_TMPDIR to
    /// the program, removed when numabench exits.
    Run(RunCommandArgs),
    /// Over-decomposition: K MPI ranks per core (MPI build).
    ///
    /// Example: numabench overdecompose --ranks-per-core 1,2,4
    ///
    /// A red-black SOR kernel over MPI, its grid sized so blocking halo
    /// exchanges take 25%, 50%, 75% of the time at one rank per core, run
    /// with K ranks per core (pinned so the K ranks of a core share it)
    /// under the MPI monitor: speedup against K = 1, TLP_1/TLP_2, system
    /// time, context switches, idle share; every grid is checked against a
    /// serial run. Needs an MPI build (cargo build -p numabench-cli
    /// --features mpi) and libnumabench_mpi.so.
    Overdecompose(OverdecomposeArgs),
    /// One rank of the over-decomposition study (started by `overdecompose`
    /// through mpirun; prints rank 0's report as one JSON line).
    #[command(hide = true)]
    OverdecomposeWorker(OverdecomposeWorkerArgs),
    /// Health check of each NUMA node against its baseline.
    ///
    /// Example: numabench check --baseline /etc/numabench/baseline.json --drain --undrain
    ///
    /// Measures each NUMA node on its own (read and triad bandwidth with all
    /// its CPUs, local latency, latency to the nearest and the farthest
    /// other node; CPU-less memory nodes from the nearest CPU node) and
    /// compares with the baseline of this node type (CPU model, packages,
    /// NUMA nodes), and the node's CPUs and memory per node and doctor
    /// settings with the baseline's. Healthy: prints nothing, exit 0. Not
    /// healthy: one `ERROR numabench: <check>: <measured> vs <reference>
    /// (<tolerance>)` line per problem, exit 1. Could not check (no
    /// baseline for this node type, unreadable baseline): one line, exit
    /// 2. Write the baseline first on a healthy node: numabench check
    /// --write-baseline FILE (default plan fitted to 30 s).
    Check(CheckArgs),
    /// Check every host of an MPI job, name outliers (MPI build).
    ///
    /// Example: mpirun --map-by ppr:1:node -np 64 numabench cluster --jsonl cluster.jsonl
    ///
    /// Launch with mpirun, or srun --mpi=pmix for Debian's OpenMPI; one rank
    /// per host. Each host measures the same node-level subset (parts:
    /// topo = topology summary and doctor findings, stream = STREAM triad
    /// per NUMA node, latency = idle latency local and remote, matrix = a
    /// short serial bandwidth matrix, pingpong = MPI ping-pong latency and
    /// bandwidth between host pairs); rank 0 gathers every record tagged with
    /// host and rank, and names outlier hosts (robust z over MADs) and hosts
    /// whose settings differ from the majority. Exit status 1 when it finds
    /// any (or a host failed), 0 when none. Needs the MPI build:
    /// cargo build --release -p numabench-cli --features mpi
    Cluster(ClusterArgs),
    /// Match measurements across result sets, side by side.
    ///
    /// Example: numabench compare this-machine.jsonl other-machine.jsonl
    ///
    /// Two runs of one machine (before and after a kernel upgrade, two BIOS
    /// settings) match exactly: the same benchmarks and parameters, each
    /// figure side by side with its ratio to the first set and a
    /// Mann-Whitney p-value where both sets hold repetitions (else n/a).
    /// Two machines' runs (their metadata's host, CPU model or topology
    /// differ) match by role: cache level or DRAM, kernel, one thread or
    /// all threads of a node, local or remote by distance rank, and the
    /// findings side by side. --by exact|role overrides the choice (see
    /// README, "Comparing result sets"); what only some sets have is counted.
    Compare(CompareArgs),
    /// One self-contained HTML page of plots from results files.
    ///
    /// Example: numabench report results.jsonl topology.json -o report.html
    ///
    /// Inline SVG plots and data tables, no script, no network, from results
    /// files of any numabench command and any machine, mixed: JSON Lines
    /// (--jsonl), JSON (--json), `topo --json` and `doctor --json` outputs.
    /// Sections appear only for what the records contain; bad lines are
    /// reported in the page and skipped.
    Report(ReportArgs),
    /// Measured matrices as hwloc memory attributes, for lstopo.
    ///
    /// Example: numabench export-memattrs matrix.jsonl -o machine.xml
    ///
    /// Writes the measured initiator x target latencies and read bandwidths
    /// of `matrix` records into the machine's hwloc XML as the custom memory
    /// attributes NumabenchLatency (ns) and NumabenchReadBandwidth (MiB/s),
    /// which `lstopo --memattrs -i FILE` and hwloc-based schedulers read.
    /// The topology is this machine's (the results must come from it), or
    /// the one --topology FILE describes (that of the machine they came from).
    ExportMemattrs(ExportMemattrsArgs),
    Cache(crate::commands::cache::CacheArgs),
    /// Run benchmark plugins on placed, verified buffers.
    ///
    /// Example: NUMABENCH_PLUGIN_PATH=examples/plugins numabench plugin read_bandwidth
    ///
    /// Plugins are shared libraries speaking include/numabench_plugin.h,
    /// from NUMABENCH_PLUGIN_PATH and --plugin FILE, each run in a child
    /// process: one pinned thread per CPU with its own buffer, placed and
    /// verified by numabench; their samples become records. A plugin that
    /// crashes is reported failed (exit status 3); records written before it
    /// stay.
    Plugin(PluginArgs),
    /// Print a shell completion script (bash, zsh, fish, ...).
    ///
    /// Example: numabench completions bash > ~/.local/share/bash-completion/completions/numabench
    Completions(CompletionsArgs),
    /// Write the manual pages into a directory.
    ///
    /// Example: numabench man ~/.local/share/man/man1
    ///
    /// numabench(1) and one page per subcommand (numabench-latency(1),
    /// numabench-matrix-latency(1), ...), as `man -l` and share/man/man1
    /// expect.
    Man(ManArgs),
}

impl Command {
    /// True for commands that measure on this machine (every command but
    /// topo, doctor and list): they run only on this machine's topology,
    /// unless they only plan ([`asks_for_plan`]).
    pub fn measures(&self) -> bool {
        !matches!(
            self,
            Command::Topo(_)
                | Command::Doctor(_)
                | Command::List(_)
                | Command::Compare(_)
                | Command::Report(_)
                | Command::ExportMemattrs(_)
                | Command::Completions(_)
                | Command::Man(_)
        )
    }
}

/// True when the command line asks only for what would run (`--plan` given
/// to the innermost subcommand): nothing is measured, so another machine's
/// topology is allowed. Read from clap's matches, so a command that gains
/// a `--plan` flag needs no entry anywhere else.
pub fn asks_for_plan(matches: &clap::ArgMatches) -> bool {
    asks_for(matches, "plan")
}

/// Whether the command line gives `--set-weights` (found by name in the
/// innermost subcommand's matches, as `--plan` is).
pub fn asks_for_set_weights(matches: &clap::ArgMatches) -> bool {
    asks_for(matches, "set_weights")
}

fn asks_for(matches: &clap::ArgMatches, flag: &str) -> bool {
    let mut innermost = matches;
    while let Some((_, sub)) = innermost.subcommand() {
        innermost = sub;
    }
    matches!(innermost.try_get_one::<bool>(flag), Ok(Some(true)))
}
