//! Command-line flags (clap derive). Only shapes and pure parsing live
//! here; checks against the machine happen when a command validates its
//! flags into a library configuration.

use clap::{Args, Parser, Subcommand, ValueEnum};
use numabench::bench::{Budget, TrafficMix};
use numabench::kernels::{kernel_by_name, ChaseOrder, KernelSpec, SimdLevel, KERNELS};
use numabench::parse::{parse_id_list, parse_size};
use numabench::runtime::{PlacementScheme, ThreadScheme};
use numabench::threads::CpuOrder;
use numabench::workloads::NpbClass;
use std::path::PathBuf;

mod check;
mod interference;
mod scan;
mod tiers;
pub use check::{CheckArgs, CheckFormat};
pub use interference::InterferenceArgs;
pub use scan::ScanArgs;
pub use tiers::{TiersAdviseArgs, TiersCommand};

/// Measure what NUMA costs on this machine and which thread and memory
/// placement makes a program fast and repeatable.
#[derive(Debug, Parser)]
#[command(
    name = "numabench",
    version = numabench::VERSION_LINE,
    about = "What NUMA costs on this machine, and which placement makes a program fast and repeatable.",
    long_about = None,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// An hwloc XML file's machine (lstopo --of xml): topo, list, doctor, --plan.
    #[arg(long, global = true, value_name = "FILE")]
    pub topology: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// The top-level help's groups of commands, in order: every visible
/// subcommand is in exactly one (a unit test checks it).
pub const COMMAND_GROUPS: &[(&str, &[&str])] = &[
    ("Inspect", &["topo", "doctor", "list"]),
    (
        "Measure",
        &[
            "characterize",
            "latency",
            "bandwidth",
            "matrix",
            "contention",
            "scaling",
            "loaded-latency",
            "interference",
            "mlp",
            "c2c",
            "cache",
            "plugin",
        ],
    ),
    ("Applications", &["stream", "cg", "mg"]),
    (
        "Studies",
        &["placement-study", "run", "overdecompose", "tiers"],
    ),
    ("Operations", &["check", "cluster", "scan"]),
    ("Results", &["report", "compare", "export-memattrs"]),
    ("Shell", &["completions", "man"]),
];

/// Groups the top-level help names on one line, without their abouts
/// (each command's own `--help` says what it does): the help stays within
/// one 50-line screen.
pub const ONE_LINE_GROUPS: &[&str] = &["Shell"];

/// The command line's definition, with the top-level help grouped by
/// [`COMMAND_GROUPS`] (one line per command, its one-sentence about) and a
/// "Start here" for new users, as git and cargo do.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let command = Cli::command();
    let mut groups = String::new();
    for (group, names) in COMMAND_GROUPS {
        if ONE_LINE_GROUPS.contains(group) {
            groups.push_str(&format!("{group}: {}\n", names.join(", ")));
            continue;
        }
        groups.push_str(&format!("{group}:\n"));
        for name in *names {
            let about = command
                .find_subcommand(name)
                .and_then(|sub| sub.get_about())
                .map(|about| about.to_string())
                .unwrap_or_default();
            groups.push_str(&format!("  {name:<16} {about}\n"));
        }
    }
    command.help_template(format!(
        "{{about}}\n\n{{usage-heading}} {{usage}}\n\n\
         Start here:\n  \
         numabench characterize --jsonl r.jsonl   this machine (--plan: what, how long)\n  \
         numabench report r.jsonl -o r.html       one page of plots\n\n\
         {groups}\n\
         Options:\n{{options}}\n\n\
         More: numabench help COMMAND, numabench COMMAND --help, man numabench-COMMAND\n"
    ))
}

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
    /// Load-to-use latency from a CPU to a node's memory.
    ///
    /// Example: numabench latency --cpu-node 0 --mem-node 1 --sweep
    ///
    /// A pinned thread chases a random pointer cycle through a buffer placed
    /// on a chosen node (ns and core cycles per load, the core clock measured
    /// on the chasing CPU); by default random within TLB-sized blocks (the
    /// idle latency MLC and multichase report).
    Latency(LatencyArgs),
    /// Memory bandwidth of read/write/copy/triad kernels.
    ///
    /// Example: numabench bandwidth --kernel triad --threads 8 --mem-node 1
    ///
    /// Pinned threads run read, write, copy, triad and their -nt
    /// streaming-store variants over placed buffers (GB/s).
    Bandwidth(BandwidthArgs),
    /// Node x node latency or read bandwidth matrices.
    ///
    /// Example: numabench matrix bandwidth --mode parallel
    ///
    /// A thread on each CPU node (its first CPU in compact order; parallel:
    /// all its CPUs), memory on each node (CPU-less nodes included as memory
    /// targets).
    #[command(subcommand)]
    Matrix(MatrixCommand),
    /// Tiered memory (CXL, HBM): the interleave ratio to use, measured.
    #[command(subcommand)]
    Tiers(TiersCommand),
    /// How much one node's traffic slows another's loads and reads.
    ///
    /// Example: numabench interference --victim 0 --aggressor 2 --load reads,writes
    ///
    /// For each victim node and each aggressor node, the victim's latency
    /// (a pinned thread chasing pointers through its memory) and one-thread
    /// read bandwidth alone, then while the aggressor's threads load the
    /// aggressor node with each traffic mix, in interleaved rounds; the
    /// degradation matrix (Mann-Whitney p, Holm-adjusted) and the worst pair.
    Interference(InterferenceArgs),
    /// Bandwidth of each physical GiB of a node: a slow DIMM or channel (root).
    ///
    /// Example: numabench scan --size 4GiB
    ///
    /// Each node's memory bound to it and touched by its threads, every
    /// page's physical address read from /proc/self/pagemap (root only:
    /// refused otherwise), the pages grouped by physical range and every
    /// range with enough of them read by the node's pinned threads in
    /// rounds, the ranges' order rotated each round; a range more than 10%
    /// below the node's median of ranges, and significantly by a
    /// Mann-Whitney test over the rounds (Holm-adjusted), is named slow.
    Scan(ScanArgs),
    /// Cost of a serial initialisation: all threads on one node.
    ///
    /// Example: numabench contention
    ///
    /// Every thread reading one node's memory (as after a serial
    /// initialisation), alone in turn and all at once, against each thread
    /// reading its own node.
    Contention(ContentionArgs),
    /// How many cores saturate a node's memory bandwidth.
    ///
    /// Example: numabench scaling
    ///
    /// Bandwidth of one node's memory as 1, 2, ... all of a node's CPUs read
    /// it, locally and from the farthest node; threads are added cores-first
    /// (one per core, spread over L3 domains, before any SMT sibling).
    Scaling(ScalingArgs),
    /// Latency under increasing traffic: the loaded-latency curve.
    ///
    /// Example: numabench loaded-latency --mix 3:1
    ///
    /// One chasing thread measures latency while the other cores generate
    /// traffic at decreasing delays: a latency-vs-bandwidth curve.
    LoadedLatency(LoadedLatencyArgs),
    /// Memory-level parallelism: misses a core keeps in flight.
    ///
    /// Example: numabench mlp --threads 4
    ///
    /// k = 1..16 independent chases in one thread, each continuing where it
    /// stopped, together reading the whole buffer; --threads N: N threads at
    /// once, pinned against unpinned.
    Mlp(MlpArgs),
    /// Core-to-core latency of a modified cache line.
    ///
    /// Example: numabench c2c
    ///
    /// The latency of a modified line moving between two cores, for each
    /// CPU pair (representative pairs on large machines).
    C2c(C2cArgs),
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
    /// sparse matrix, with NPB's verification value zeta. Records also say
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
    /// Latency and bandwidth of lines held in another core's caches.
    ///
    /// Example: numabench cache --states M,S --levels L2,L3
    ///
    /// An owner CPU puts a buffer sized for L1, L2, L3 or DRAM into the
    /// Modified, Exclusive or Shared state; CPUs of every relation to it the
    /// topology has (SMT sibling, same L2, same L3, same node, same package,
    /// another package per distance) chase it and read it through; beside
    /// local and remote DRAM (the buffer flushed). One table per state.
    Cache(CacheArgs),
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

impl Command {
    /// True for commands that measure on this machine (every command but
    /// topo, doctor and list): they run only on this machine's topology,
    /// unless they only plan ([`Command::plans`]).
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

#[derive(Debug, Args)]
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
    /// Print the policies that would run (each one's pin order and memory
    /// policy, repetitions, interleaving) and run nothing; see docs/plan.md.
    #[arg(long)]
    pub plan: bool,
    /// The global `--topology FILE` (clap copies it here): the machine a
    /// plan describes.
    #[arg(from_global)]
    pub topology: Option<PathBuf>,
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

#[derive(Debug, Args)]
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
    /// Print the configurations (ranks, K, each rank's CPU, grid columns) and run nothing.
    #[arg(long)]
    pub plan: bool,
    /// The global `--topology FILE` (clap copies it here): the machine a
    /// plan describes.
    #[arg(from_global)]
    pub topology: Option<PathBuf>,
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

/// How an application kernel is placed and repeated.
#[derive(Debug, Args)]
pub struct AppRunArgs {
    /// Write each weighted interleave's weights (weighted:0=3,2=1, --interleave 0=3,2=1) into
    /// the kernel's (/sys/kernel/mm/mempolicy/weighted_interleave, system-wide; root, Linux
    /// 6.9+) just before it is used, so it runs in the kernel's mode; put back at exit.
    #[arg(long)]
    pub set_weights: bool,
    /// Worker threads, at most the allowed CPUs. Default: every allowed CPU.
    /// A list (1,2,4) runs each count as one configuration, interleaved over
    /// the repetitions, CPUs taken cores-first, and adds speedup and
    /// parallel efficiency against the smallest count.
    #[arg(long, value_name = "N[,N...]", value_parser = parse_thread_counts_arg)]
    pub threads: Option<ThreadCounts>,
    /// Main arrays: first-touch, serial, interleave[:LIST], weighted:N=W,... (or weighted[:LIST]: the
    /// kernel's weights), bind:N, serial+migrate, next-touch, autonuma.
    #[arg(long, value_name = "SCHEME", default_value = "first-touch", value_parser = parse_placement_arg)]
    pub placement: PlacementScheme,
    /// Threads: compact (tree order: SMT siblings together), scatter (round robin over nodes,
    /// and over L3 domains within a node) — both pinned before data is touched — or unpinned.
    /// With a --threads list or --threads-sweep, CPUs go cores-first: compact fills the nodes
    /// one after another, every core before any SMT sibling; scatter deals them over the nodes.
    #[arg(long, value_name = "SCHEME", default_value = "compact", value_parser = parse_thread_scheme_arg)]
    pub threads_placement: ThreadScheme,
    /// Over-decomposition: K threads per CPU (1 to 64).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub threads_per_core: u32,
    /// Runs (each a fresh setup and placement), for min/mean/max/stddev/CV.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub repeat: u32,
    /// Time budget (90s, 10m, 2h; none: exactly what the flags say): where the plan's estimate is
    /// over it, the runs are cut (down to 3), then STREAM's arrays halved together (never below 4x
    /// the CPU caches or 10M elements; below 4x the caches in front, memory-side caches included,
    /// the figures are partly those caches' and the cut says so). A CG or MG class is never cut.
    /// --plan and the run name every cut.
    #[arg(long, value_name = "DURATION", default_value = DEFAULT_BUDGET, value_parser = parse_budget_arg)]
    pub budget: Budget,
    /// Print what would run (threads and their CPUs, placement, array
    /// bytes, runs, estimate) and allocate nothing; see docs/plan.md.
    #[arg(long)]
    pub plan: bool,
    /// The global `--topology FILE` (clap copies it here): the machine a
    /// plan describes.
    #[arg(from_global)]
    pub topology: Option<PathBuf>,
    /// Thread-count scaling over 1, 2, 4, ... up to every allowed CPU (and
    /// all of them when that is not a power of two), as a --threads list.
    #[arg(long, conflicts_with = "threads")]
    pub threads_sweep: bool,
    /// The workers' CPUs, in this order (e.g. 0,2,4-5): worker i runs on the i-th CPU (with
    /// --threads-per-core K each CPU takes K workers in turn); overrides --threads-placement.
    /// --threads, if given, must equal the list's length.
    #[arg(long, value_name = "LIST", value_parser = crate::cpu_sequence::parse_cpu_sequence_arg)]
    pub cpus: Option<crate::cpu_sequence::CpuSequence>,
    /// Also run the same thread count with all threads and data on one node (cores first on
    /// the node of the first worker's CPU, memory bound there), when they fit, one baseline run
    /// beside each repetition (alternating which goes first): every record then gives
    /// params.one_node_seconds and params.relative_to_one_node.
    #[arg(long, value_enum, value_name = "BASELINE")]
    pub baseline: Option<BaselineArg>,
    /// Back the arrays with 2 MiB huge pages, under any placement: from the
    /// hugetlbfs pools when every node the pages may land on has enough
    /// reserved, else transparent huge pages via madvise; serial+migrate and
    /// next-touch move whole huge pages. Records say which, how much of the
    /// arrays got them, and how many moved as huge pages.
    #[arg(long)]
    pub hugepages: bool,
}

/// `--baseline`: the reference a run's time is given against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BaselineArg {
    /// All threads and data on one node.
    OneNode,
}

/// A `--threads` list: positive counts, none twice, ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadCounts(pub Vec<usize>);

fn parse_thread_counts_arg(text: &str) -> Result<ThreadCounts, String> {
    numabench::experiments::parse_thread_counts(text).map(ThreadCounts)
}

#[derive(Debug, Args)]
pub struct StreamArgs {
    /// Bytes per array. Default: STREAM's rule, 4x every cache in front of the threads (at least 10M elements), capped to fit memory.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Passes over the four kernels (STREAM's NTIMES).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=10_000))]
    pub iterations: u32,
    /// Vector instructions of the four loops, all with ordinary stores: avx512, avx2, sse2, scalar. Default: per loop, the fastest in a calibration during the first iteration (whose times STREAM discards); copy also weighs streaming stores and the C library's memcpy (what a compiler makes of STREAM's copy), and params.variant names what ran.
    #[arg(long, value_name = "LEVEL", value_parser = parse_simd_arg)]
    pub simd: Option<SimdLevel>,
    #[command(flatten)]
    pub app: AppRunArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct NpbArgs {
    /// NPB class: S, W, A, B, C. Default: A if it fits in memory, else W.
    #[arg(long, value_name = "CLASS", value_parser = parse_class_arg)]
    pub class: Option<NpbClass>,
    #[command(flatten)]
    pub app: AppRunArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct PlacementStudyArgs {
    /// The kernel: stream, cg or mg.
    #[arg(value_name = "KERNEL", value_parser = ["stream", "cg", "mg"])]
    pub kernel: String,
    /// NPB class for cg and mg. Default: W.
    #[arg(long, value_name = "CLASS", value_parser = parse_class_arg)]
    pub class: Option<NpbClass>,
    /// STREAM bytes per array.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Worker threads, at most the allowed CPUs. Default: every allowed CPU.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Runs per configuration.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub repeat: u32,
    /// Placement schemes to compare. Default: first-touch, serial, interleave, serial+migrate, next-touch (+ autonuma when balancing is on).
    #[arg(long, value_name = "LIST", value_parser = parse_placements_arg)]
    pub placements: Vec<Listed<PlacementScheme>>,
    /// Thread schemes to compare. Default: compact, scatter, unpinned.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_thread_scheme_arg)]
    pub threads_placements: Vec<ThreadScheme>,
    /// Over-decomposition levels: threads per CPU (1 to 64), e.g. 1,2,4,8 (first-touch + compact).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=64))]
    pub oversubscribe: Vec<u32>,
    /// Back the arrays with 2 MiB huge pages (as for stream, cg, mg).
    #[arg(long)]
    pub hugepages: bool,
    /// Time budget (90s, 10m, 2h; none: exactly what the flags say): where the plan's estimate is
    /// over it, the runs per configuration are cut (down to 5: the study measures their spread),
    /// then STREAM's arrays halved together (never below 4x the CPU caches or 10M elements; the cut
    /// says where the figures become partly a cache's). No configuration is dropped; a CG or MG
    /// class is never cut. --plan and the run name every cut.
    #[arg(long, value_name = "DURATION", default_value = DEFAULT_BUDGET, value_parser = parse_budget_arg)]
    pub budget: Budget,
    /// Print the grid that would run (one step per configuration: threads
    /// and their CPUs, placement, array bytes, runs, estimate) and allocate
    /// nothing; see docs/plan.md.
    #[arg(long)]
    pub plan: bool,
    /// The global `--topology FILE` (clap copies it here): the machine a
    /// plan describes.
    #[arg(from_global)]
    pub topology: Option<PathBuf>,
    /// Compare node splits of --threads T instead of thread schemes: all on one node, evenly over
    /// 2, 4, ... nodes, then uneven splits, deduplicated by SLIT symmetry, each cores first per
    /// node, under each placement (default first-touch); names the best and the worst split.
    #[arg(long, requires = "threads", conflicts_with_all = ["threads_placements", "oversubscribe"])]
    pub node_splits: bool,
    /// With --node-splits: at most this many distinct splits.
    #[arg(long, value_name = "N", default_value_t = 16, requires = "node_splits", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_splits: u32,
    /// Also run each thread count with all threads and data on one node (see `stream --help`;
    /// here the baselines run before the grid).
    #[arg(long, value_enum, value_name = "BASELINE")]
    pub baseline: Option<BaselineArg>,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Subcommand)]
pub enum MatrixCommand {
    /// Idle latency from each CPU node to each memory node (ns), chased
    /// random within TLB-sized blocks (`latency --order tlb-block`).
    Latency(MatrixArgs),
    /// Read bandwidth from each CPU node to each memory node (GB/s).
    Bandwidth(MatrixBandwidthArgs),
}

#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Working set of every cell. Default: 4x the caches in front of one node's CPUs and one memory node (the largest over the cells; at least 256MiB): a cell's threads are one node's.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// A row per allowed CPU (one thread on it, compact order), not per CPU node: CPU x memory node; one step per row in --plan. Default size: each CPU's own one-thread DRAM working set over every memory node.
    #[arg(long)]
    pub per_cpu: bool,
    /// Measure every cell whatever --budget says. Otherwise, where the matrix is over the budget, it is measured by symmetry class as characterize's are (every node's own cell, about sqrt(n) members of each other class, seed 1; the rest inferred from their class's representative and marked as such).
    #[arg(long)]
    pub full_matrix: bool,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MatrixModeArg {
    /// One thread per CPU node.
    Serial,
    /// Every allowed CPU of the CPU node at once (compact order).
    Parallel,
}

#[derive(Debug, Args)]
pub struct MatrixBandwidthArgs {
    /// One thread (serial) or all cores of the CPU node (parallel).
    #[arg(long, value_enum, default_value_t = MatrixModeArg::Serial)]
    pub mode: MatrixModeArg,
    #[command(flatten)]
    pub matrix: MatrixArgs,
}

#[derive(Debug, Args)]
pub struct ContentionArgs {
    /// The node all threads' memory is placed on (default: the node of the first allowed CPU).
    #[arg(long, value_name = "NODE")]
    pub node: Option<u32>,
    /// CPUs to read with, numactl syntax (default: every allowed CPU, in --cpu-order).
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub cpus: Option<IdList>,
    /// The order the allowed CPUs are taken in (the serial scenario's order, and the default
    /// node is the first CPU's): cores-first, compact, scatter.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst, conflicts_with = "cpus")]
    pub cpu_order: CpuOrderArg,
    /// Working set per scenario. Default: DRAM-sized.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct ScalingArgs {
    /// The node whose memory is read (default: the node of the first allowed CPU).
    #[arg(long, value_name = "NODE")]
    pub mem_node: Option<u32>,
    /// Kernel: read, write, copy, triad, write-nt, copy-nt, triad-nt.
    #[arg(long, value_name = "NAME", value_parser = parse_kernel_arg, default_value = "read")]
    pub kernel: &'static KernelSpec,
    /// The order threads are added in: cores-first (one per core, spread over L3 domains,
    /// before any SMT sibling), compact (tree order: siblings together), scatter.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst)]
    pub cpu_order: CpuOrderArg,
    /// Working set. Default: DRAM-sized.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct LoadedLatencyArgs {
    /// CPU of the chasing thread (default: the first allowed CPU in --cpu-order); every other allowed CPU generates traffic.
    #[arg(long, value_name = "N")]
    pub cpu: Option<u32>,
    /// The order the allowed CPUs are taken in: the chaser is the first (unless --cpu), the
    /// generators follow in this order: cores-first, compact, scatter.
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst)]
    pub cpu_order: CpuOrderArg,
    /// Node(s) holding the chased buffer and the traffic, CPU-less ones included (default: the
    /// chaser's node); one curve per node and mix: a family per node.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub mem_node: Option<IdList>,
    /// Read:write mix(es) of the traffic: reads, 3:1, 2:1, 1:1, writes; with non-temporal
    /// (streaming) writes: 3:1-nt, 2:1-nt, 1:1-nt, nt-writes. A list draws one curve per mix.
    #[arg(long, value_name = "MIX,...", default_value = "reads", value_delimiter = ',', value_parser = parse_mix_arg)]
    pub mix: Vec<TrafficMix>,
    /// Delays between a generator's requests (nop iterations, ~1 cycle each), light to heavy. Default: 2000,1000,500,250,120,60,30,0.
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        conflicts_with = "curve"
    )]
    pub delays: Vec<u32>,
    /// A full curve from idle to saturation, as Mess draws it: 24 delays (4000 down to 0, about
    /// 1.35x apart), 25 points with the idle one.
    #[arg(long)]
    pub curve: bool,
    /// Working set of the chase and of each generator. Default: DRAM-sized, at most 256MiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct MlpArgs {
    /// CPU of the chasing thread (default: the first allowed CPU).
    #[arg(long, value_name = "N", conflicts_with = "cpu_node")]
    pub cpu: Option<u32>,
    /// Run on the first allowed CPU of this node.
    #[arg(long, value_name = "NODE")]
    pub cpu_node: Option<u32>,
    /// Bind the buffer to this node (default: the CPU's node).
    #[arg(long, value_name = "NODE")]
    pub mem_node: Option<u32>,
    /// Working set. Default: DRAM-sized.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Order of the chases, as for `latency`: tlb-block, random, page-local.
    #[arg(long, value_enum, default_value_t = ChaseOrderArg::TlbBlock)]
    pub order: ChaseOrderArg,
    /// Many threads chasing at once: N threads on the first N allowed CPUs in --cpu-order, each with its own buffer (on its CPU's node, or all on --mem-node), each running k chains; aggregate loads per second and latency per load, pinned against unpinned (interleaved) unless --pinned or --unpinned. Default --size per thread: the DRAM working set of all N threads divided among them, at least 64 MiB each.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), conflicts_with_all = ["cpu", "cpu_node"])]
    pub threads: Option<u32>,
    /// The threads' CPUs (numactl syntax), instead of --threads N.
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg, conflicts_with_all = ["cpu", "cpu_node", "threads"])]
    pub cpus: Option<IdList>,
    /// The order --threads takes the allowed CPUs in (as for bandwidth).
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst, conflicts_with = "cpus")]
    pub cpu_order: CpuOrderArg,
    /// With --threads/--cpus: chains per thread to measure, each 1 to 16 (checked in every mode: 0 chains measure nothing).
    #[arg(long, value_name = "K,...", value_delimiter = ',', default_values_t = [1usize, 2, 4, 8, 16], value_parser = parse_chains_arg)]
    pub chains: Vec<usize>,
    /// With --threads/--cpus: only the unpinned run (the scheduler places the threads).
    #[arg(long, conflicts_with = "pinned")]
    pub unpinned: bool,
    /// With --threads/--cpus: only the pinned run.
    #[arg(long)]
    pub pinned: bool,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct C2cArgs {
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

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

#[derive(Debug, Args)]
pub struct ClusterArgs {
    /// Unit compared: node (one per host; the host's lowest rank measures,
    /// its other ranks stay idle), numa (one per host and NUMA node: the
    /// host's lowest rank measures each of its nodes in turn) or rank (every
    /// rank measures within the CPUs it was given).
    #[arg(long, value_enum, default_value_t = PerArg::Node)]
    pub per: PerArg,
    /// Run only these parts: topo, stream, latency, matrix, check,
    /// pingpong (default: all but check, which --baseline and
    /// --write-baseline add; check measures what `numabench check` does).
    #[arg(long, value_name = "PART,...", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Skip these parts (names as for --only).
    #[arg(long, value_name = "PART,...", value_delimiter = ',')]
    pub skip: Vec<String>,
    /// Measure one host (or rank) at a time, in rank order: for shared or
    /// oversubscribed nodes. Ping-pong pairs always run one at a time.
    /// Waiting ranks sleep between tests for a message (never spin).
    #[arg(long)]
    pub sequential: bool,
    /// Outlier rule: each unit is compared with the OTHER units (itself
    /// left out): m = their median, MAD = their median absolute deviation.
    /// A unit is an outlier when |x - m| / (1.4826 MAD) is above K and it
    /// is more than a factor 1 + F (--min-deviation) from m; when the
    /// others agree exactly (MAD 0) the factor alone decides. An outlier
    /// stands nearly alone: fewer than half the units within the factor
    /// of it (two equal halves name no one). Needs at
    /// least 3 units per metric (a note names each metric with fewer).
    /// Among 3 hosts, 100, 90, 60 flags 60; 100, 99, 98 flags none.
    #[arg(long, value_name = "K", default_value_t = 3.0, value_parser = parse_positive_arg)]
    pub mad_k: f64,
    /// A unit must also be more than a factor 1 + F from the other units'
    /// median to be an outlier (0.1: 10% above it, or below median/1.1): noise between
    /// identical hosts is never flagged.
    #[arg(long, value_name = "F", default_value_t = 0.1, value_parser = parse_share_arg)]
    pub min_deviation: f64,
    /// Working set of every stream, latency and matrix measurement
    /// (default: each one's DRAM working set, from the topology).
    #[arg(long, value_name = "SIZE", value_parser = parse_size_arg)]
    pub size: Option<u64>,
    /// Timed repetitions per measurement (and ping-pong samples).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub repeat: u32,
    /// Message size of the ping-pong bandwidth.
    #[arg(long, value_name = "SIZE", default_value = "4MiB", value_parser = parse_size_arg)]
    pub pingpong_size: u64,
    /// A rank silent this long (1s to 3600s; a bare number is milliseconds)
    /// is reported failed by host name and left behind; the job then ends
    /// with MPI_Abort after the verdict. Every ping-pong message is timed
    /// out after this too: a partner that does not answer is named and
    /// skipped for the rest of the run.
    #[arg(long, value_name = "DURATION", default_value = "600s", value_parser = parse_interval_arg)]
    pub timeout: std::time::Duration,
    /// Back buffers with 2 MiB huge pages (as for other measuring commands).
    #[arg(long)]
    pub hugepages: bool,
    /// How the ping-pong pairs hosts: serial (every pair up to 16, else
    /// each with the ones 1, 2, 4, ... places after it; one pair at a
    /// time), rounds (ceil(log2 N) rounds of disjoint pairs measured at
    /// once, round k pairing i with i XOR 2^k; then every suspect is
    /// measured again with 2 fresh partners before it is named) or auto
    /// (rounds when serial pairs would take over the 600 s budget of
    /// --plan's model, e.g. at 1000 hosts).
    #[arg(long, value_enum, default_value_t = PairingArg::Auto)]
    pub pairing: PairingArg,
    /// Say what a run on --hosts N hosts costs and stop (no MPI, nothing
    /// measured): the ping-pong's pairs, bytes per pair and time at an
    /// assumed 10 GbE link (1.25 GB/s, 5 us), against a budget of 600 s,
    /// and the rounds of disjoint pairs that would cover every host.
    #[arg(long)]
    pub plan: bool,
    /// Drain every flagged host in Slurm (rank 0 runs scontrol update
    /// NodeName=<host> State=DRAIN Reason="numabench: <first problem>";
    /// a reason that does not start with "numabench:" is kept). Without
    /// it, the lines are printed, ready to run.
    #[arg(long)]
    pub drain: bool,
    /// With --plan: the number of hosts (of ranks with --per rank).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub hosts: Option<u32>,
    /// Compare every host with the entry of its node type in this baseline
    /// (written by `numabench check --write-baseline` or `cluster
    /// --write-baseline`; read on every rank, as a health check reads it
    /// on every node): adds the check part, which measures that entry's
    /// plan; a host outside a bound, or of a type the file has no entry
    /// for, is flagged. Suspects are measured again before the verdict.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<std::path::PathBuf>,
    /// Write (or add to) a baseline from this run for `numabench check` on
    /// every node: adds the check part; per node type (hosts with the
    /// same CPU model, packages and NUMA nodes) each metric is the median
    /// of its hosts, with a tolerance of three robust standard deviations
    /// of the hosts, at least 5% for a bandwidth and 10% for a latency.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<std::path::PathBuf>,
    /// With --write-baseline: tolerances instead of those from the hosts'
    /// spread, as KIND=PERCENT: bandwidth=8%, latency=15%, or a metric's
    /// key (node1.triad_bandwidth=6%).
    #[arg(
        long,
        value_name = "KIND=PERCENT,...",
        value_delimiter = ',',
        requires = "write_baseline"
    )]
    pub tolerance: Vec<String>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `cluster --pairing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PairingArg {
    Auto,
    Serial,
    Rounds,
}

/// `cluster --per`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PerArg {
    Node,
    Numa,
    Rank,
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
pub struct ReportArgs {
    /// Results files: JSON Lines, JSON documents, `topo --json`, `doctor --json`.
    #[arg(required = true, value_name = "RESULTS")]
    pub inputs: Vec<PathBuf>,
    /// The HTML file to write (never one of the inputs).
    #[arg(short, long, value_name = "FILE", default_value = "report.html")]
    pub output: PathBuf,
}

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

#[derive(Debug, Args)]
pub struct ExportMemattrsArgs {
    /// Results files of `matrix latency` and/or `matrix bandwidth` (--jsonl or --json).
    #[arg(required = true, value_name = "RESULTS")]
    pub inputs: Vec<PathBuf>,
    /// The hwloc XML file to write.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
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

/// Where results go (every measuring command has these).
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Also write results as CSV to FILE (one row per record, run metadata
    /// as run.* columns, params as params.* columns; loads into pandas
    /// with no options). A regular file is replaced whole, its mode kept; a
    /// symbolic link is written through and kept; a pipe or /dev/stdout gets
    /// the table at the end.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// CSV delimiter: one character, e.g. ';' or '\t'.
    #[arg(long, value_name = "C", value_parser = parse_delimiter_arg)]
    pub delimiter: Option<u8>,
    /// Also write results as JSON Lines to FILE (one record per line, each
    /// with the run metadata as "run").
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Print a JSON document on stdout instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Print one line per record as it arrives (benchmark, metric, value,
    /// unit, cv, placement, params) instead of the tables shaped per
    /// measurement.
    #[arg(long, conflicts_with = "json")]
    pub records: bool,
}

/// How measurements are repeated (every measuring command has these).
#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Timed repetitions per measurement, after one warm-up. For latency
    /// and bandwidth measurements (latency, bandwidth, matrix, contention,
    /// scaling, per-cpu, one-thread mlp, characterize) the most taken: they stop after 3
    /// once the median's 95% confidence interval is within ±1%, and the
    /// record says the interval reached (params.convergence).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub repeat: u32,
    /// Back buffers with 2 MiB huge pages: from the hugetlbfs pools when the
    /// nodes have enough reserved, else transparent huge pages via madvise.
    /// Records say which, and how much of each buffer got them.
    #[arg(long)]
    pub hugepages: bool,
    /// Write each weighted interleave's weights (weighted:0=3,2=1, --interleave 0=3,2=1) into
    /// the kernel's (/sys/kernel/mm/mempolicy/weighted_interleave, system-wide; root, Linux
    /// 6.9+) just before it is used, so it runs in the kernel's mode; put back at exit.
    #[arg(long)]
    pub set_weights: bool,
    /// latency, matrix latency: add the histogram of the timed batches' load latencies to
    /// params.tail (bins 5% wide), besides its percentiles.
    #[arg(long)]
    pub histogram: bool,
    /// Time budget (90s, 10m, 2h; none: exactly what the flags say): where the plan's estimate is
    /// over it, cuts are made in order, each only as far as needed and only where it saves 1% of the
    /// estimate or more. characterize: latency sizes (down to 3); the node matrices measured by
    /// symmetry class (every node's own cell always, about sqrt(n) members of each other class;
    /// unless --full-matrix); CPUs sampled (contention's threads alone in turn, down to one per
    /// node; per-cpu's CPUs within each node, down to 2 per node; scaling's thread counts, down to
    /// 4); repetitions (down to 3); then the largest working sets halved together (never below 4x
    /// the CPU caches; behind a huge memory-side cache the capped figures are that cache's). What
    /// the cuts leave of the budget draws more class members and pays for measuring classes whose
    /// members disagree, and the plan names what the cut plan cannot find (a slow CPU not measured,
    /// a slow pair not measured) with the budget that buys it back; plugins are not counted. Every
    /// other command: the `matrix` command's cells by symmetry class as above (unless
    /// --full-matrix), contention's threads alone in turn sampled, repetitions (down to 3), then
    /// working sets; a request for every CPU (--each-cpu, --per-cpu) keeps every CPU. --plan and
    /// the run name every cut.
    #[arg(long, value_name = "DURATION", default_value = DEFAULT_BUDGET, value_parser = parse_budget_arg)]
    pub budget: Budget,
    /// Print what would run and allocate nothing: each step's benchmark,
    /// threads and their CPUs in order, memory nodes, working-set bytes and
    /// the cache capacity in front, repetitions, estimated duration (with
    /// --json: a JSON document, schema in docs/plan.md). Works with
    /// --topology FILE: a plan describes, never measures.
    #[arg(long)]
    pub plan: bool,
    /// The global `--topology FILE` (clap copies it here): the machine a
    /// plan describes.
    #[arg(from_global)]
    pub topology: Option<PathBuf>,
}

/// The chase orders of `latency` and `mlp` (records name the block each
/// was random within: `params.block_bytes`, `params.block_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ChaseOrderArg {
    /// Idle memory latency: random within blocks the L1 data TLB maps (its
    /// entries x page size, read from CPUID; 64 pages if not reported),
    /// blocks in random order: almost no TLB misses, no prefetch help.
    TlbBlock,
    /// Random over the whole buffer: includes the page-walk (TLB miss) cost.
    Random,
    /// Random within each page, pages in random order: one TLB miss per
    /// page, but a page's lines are read back to back, so with 4 KiB pages
    /// the prefetchers help (reads below the idle latency).
    PageLocal,
}

impl From<ChaseOrderArg> for ChaseOrder {
    fn from(order: ChaseOrderArg) -> Self {
        match order {
            ChaseOrderArg::TlbBlock => ChaseOrder::TlbBlock,
            ChaseOrderArg::Random => ChaseOrder::Random,
            ChaseOrderArg::PageLocal => ChaseOrder::PageLocal,
        }
    }
}

/// The CPU orders (`threads::CpuOrder`) of commands that pick their CPUs:
/// which CPU the n-th thread gets (records name it in `params.cpu_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CpuOrderArg {
    /// Tree order: SMT siblings together, then the next core of the same L3, node, package.
    Compact,
    /// One thread of every core, round robin over L3 domains, before any second thread.
    CoresFirst,
    /// Round robin over nodes, and over L3 domains within a node (cores first).
    Scatter,
}

impl From<CpuOrderArg> for CpuOrder {
    fn from(order: CpuOrderArg) -> Self {
        match order {
            CpuOrderArg::Compact => CpuOrder::Compact,
            CpuOrderArg::CoresFirst => CpuOrder::CoresFirst,
            CpuOrderArg::Scatter => CpuOrder::Scatter,
        }
    }
}

#[derive(Debug, Args)]
pub struct LatencyArgs {
    /// Working-set size(s), e.g. 32K,1M,1G. Default: 1GiB, or the DRAM working set (4x every cache in front) when larger (or --sweep); less under a memory limit (topo shows it). A size the limit cannot hold is refused.
    #[arg(long, value_name = "SIZE,...", value_parser = parse_sizes_arg, conflicts_with = "sweep")]
    pub size: Vec<Listed<u64>>,
    /// Sweep sizes from half the L1 cache, doubling, to the DRAM working set (4x every cache in front of the CPU and memory).
    #[arg(long)]
    pub sweep: bool,
    /// CPU the chasing thread is pinned to.
    #[arg(long, value_name = "N", conflicts_with = "cpu_node")]
    pub cpu: Option<u32>,
    /// Run on the first allowed CPU of this node.
    #[arg(long, value_name = "NODE")]
    pub cpu_node: Option<u32>,
    /// Bind the buffer to this node (default: first touch by the chasing thread).
    #[arg(long, value_name = "NODE")]
    pub mem_node: Option<u32>,
    /// Order of the chase: tlb-block (idle latency), random (plus page walks), page-local.
    #[arg(long, value_enum, default_value_t = ChaseOrderArg::TlbBlock)]
    pub order: ChaseOrderArg,
    /// Measure from each CPU of LIST in turn (numactl syntax; without LIST every allowed CPU), one pinned thread, memory on that CPU's node (or --mem-node); one record per CPU, then each CPU's ratio to its node's median. Default size: each CPU's DRAM working set.
    #[arg(long, value_name = "LIST", num_args = 0..=1, value_parser = parse_list_arg, conflicts_with_all = ["cpu", "cpu_node", "sweep"])]
    pub each_cpu: Option<Option<IdList>>,
    /// The remote-cache chase: a thread on CPU C builds the chain in its own memory (first touch on C's node, unless --mem-node) and rewrites it before every pass; the chasing CPU follows it without flushing: lines come from C's caches (Modified) while the size fits there, else from C's memory. With --sweep: the remote-cache plateau, then (remote) DRAM.
    #[arg(long, value_name = "C", conflicts_with = "each_cpu")]
    pub writer_cpu: Option<u32>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Args)]
pub struct BandwidthArgs {
    /// Kernel(s): read, write, copy, triad, write-nt, copy-nt, triad-nt. Default: all.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',', value_parser = parse_kernel_arg)]
    pub kernel: Vec<&'static KernelSpec>,
    /// Number of threads, on the first N allowed CPUs in --cpu-order. Default: all allowed CPUs.
    #[arg(long, value_name = "N", conflicts_with = "cpus", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// The order --threads takes the allowed CPUs in: cores-first (one thread of every core,
    /// spread over L3 domains, before any SMT sibling), compact (tree order: siblings together),
    /// scatter (round robin over nodes, and over L3 domains within a node).
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = CpuOrderArg::CoresFirst, conflicts_with = "cpus")]
    pub cpu_order: CpuOrderArg,
    /// CPUs to run on, numactl syntax (0-3,8).
    #[arg(long, value_name = "LIST", value_parser = parse_list_arg)]
    pub cpus: Option<IdList>,
    /// Whole working set(s), all arrays and threads together, e.g. 1M,64M,2G. Default: the DRAM working set, 4x every cache in front of the threads and memory, at least 256MiB (or --sweep).
    #[arg(long, value_name = "SIZE,...", value_parser = parse_sizes_arg, conflicts_with = "sweep")]
    pub size: Vec<Listed<u64>>,
    /// Sweep working sets from half an L1 cache per thread, doubling, to the DRAM working set (4x every cache in front): bandwidth of every cache level and of DRAM.
    #[arg(long)]
    pub sweep: bool,
    /// Bind the arrays to this node (default: each thread touches its own share first).
    #[arg(long, value_name = "NODE", conflicts_with = "interleave")]
    pub mem_node: Option<u32>,
    /// Interleave the arrays' pages over these nodes (0-3), or weighted by node (0=3,2=1: three
    /// pages on node 0 for every one on node 2; the kernel's weighted interleave where its own
    /// weights are these, else emulated, as params.weighted_mode says).
    #[arg(long, value_name = "LIST", value_parser = parse_interleave_arg)]
    pub interleave: Option<InterleaveArg>,
    /// Measure one thread on each CPU of LIST in turn (numactl syntax; without LIST every allowed CPU), memory on that CPU's node (or --mem-node); one record per CPU and kernel, then each CPU's ratio to its node's median. Default size: each CPU's DRAM working set.
    #[arg(long, value_name = "LIST", num_args = 0..=1, value_parser = parse_list_arg, conflicts_with_all = ["cpus", "threads", "interleave", "sweep"])]
    pub each_cpu: Option<Option<IdList>>,
    /// Vector instructions: avx512, avx2, sse2, scalar. Default: the fastest, by a short calibration of every level the CPU has on the placed arrays before each measurement.
    #[arg(long, value_name = "LEVEL", value_parser = parse_simd_arg)]
    pub simd: Option<SimdLevel>,
    #[command(flatten)]
    pub run: MeasureArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

fn parse_size_arg(text: &str) -> Result<u64, String> {
    parse_size(text).map_err(|error| error.to_string())
}

/// One comma-separated flag value, parsed whole so that an error names the
/// whole value (with clap's `value_delimiter` the parser sees one piece,
/// and `--size 1K,,2K` was reported as the invalid value '').
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed<T>(pub Vec<T>);

/// The items of every occurrence of a repeatable list flag, in order.
pub fn all_items<T: Clone>(lists: &[Listed<T>]) -> Vec<T> {
    lists
        .iter()
        .flat_map(|list| list.0.iter().cloned())
        .collect()
}

fn parse_ranks_per_core_arg(text: &str) -> Result<Listed<usize>, String> {
    numabench::overdecompose::parse_ranks_per_core(text).map(Listed)
}

fn parse_comm_shares_arg(text: &str) -> Result<Listed<f64>, String> {
    numabench::overdecompose::parse_comm_shares(text).map(Listed)
}

fn parse_sizes_arg(text: &str) -> Result<Listed<u64>, String> {
    text.split(',')
        .map(parse_size_arg)
        .collect::<Result<_, _>>()
        .map(Listed)
}

/// Placements separated by commas, where a node list continues an
/// `interleave:` item as numactl writes it: `interleave:0,1,serial` is
/// interleave over nodes 0 and 1, then serial (no placement name starts
/// with a digit, so the reading is unambiguous).
fn parse_placements_arg(text: &str) -> Result<Listed<PlacementScheme>, String> {
    let mut items: Vec<String> = Vec::new();
    for piece in text.split(',') {
        match items.last_mut() {
            Some(last)
                if last.starts_with("interleave:")
                    && piece.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                last.push(',');
                last.push_str(piece);
            }
            _ => items.push(piece.to_string()),
        }
    }
    items
        .iter()
        .map(|item| parse_placement_arg(item))
        .collect::<Result<_, _>>()
        .map(Listed)
}

/// A parsed CPU or node list (a newtype, so clap treats it as one value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdList(pub Vec<u32>);

/// `--interleave`: a node list (plain interleave) or `NODE=WEIGHT,...`
/// (weighted interleave).
#[derive(Debug, Clone)]
pub struct InterleaveArg(pub numabench::memory::MemoryPolicy);

fn parse_interleave_arg(text: &str) -> Result<InterleaveArg, String> {
    use numabench::memory::MemoryPolicy;
    if text.contains('=') {
        MemoryPolicy::parse(&format!("weighted:{text}"))
            .expect("a weighted form")
            .map(InterleaveArg)
    } else {
        parse_list_arg(text).map(|nodes| InterleaveArg(MemoryPolicy::interleave(nodes.0)))
    }
}

fn parse_list_arg(text: &str) -> Result<IdList, String> {
    parse_id_list(text)
        .map(IdList)
        .map_err(|error| error.to_string())
}

fn parse_delimiter_arg(text: &str) -> Result<u8, String> {
    numabench::output::parse_delimiter(text).map_err(|error| error.to_string())
}

fn parse_kernel_arg(text: &str) -> Result<&'static KernelSpec, String> {
    kernel_by_name(text).ok_or_else(|| {
        let valid: Vec<&str> = KERNELS.iter().map(|kernel| kernel.name).collect();
        format!("unknown kernel '{text}' (valid: {})", valid.join(", "))
    })
}

/// One `--chains` value: 1 to 16 chains per thread (0 would measure nothing).
fn parse_chains_arg(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(k) if (1..=16).contains(&k) => Ok(k),
        _ => Err(format!(
            "--chains {text}: each value must be a whole number from 1 to 16"
        )),
    }
}

pub(crate) fn parse_mix_arg(text: &str) -> Result<TrafficMix, String> {
    TrafficMix::parse(text)
        .ok_or_else(|| format!("unknown traffic mix '{text}' (valid: reads, 3:1, 2:1, 1:1, writes, and with non-temporal writes 3:1-nt, 2:1-nt, 1:1-nt, nt-writes)"))
}

fn parse_positive_arg(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(format!("'{text}' is not a positive number")),
    }
}

fn parse_share_arg(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && (0.0..10.0).contains(&value) => Ok(value),
        _ => Err(format!(
            "'{text}' is not a share between 0 and 10 (0.1 = 10%)"
        )),
    }
}

fn parse_interval_arg(text: &str) -> Result<std::time::Duration, String> {
    numabench::parse::parse_interval(text).map_err(|error| error.to_string())
}

/// The default `plugin --timeout`: generous, a plugin normally runs for
/// seconds; `list --describe` states it.
pub const PLUGIN_TIMEOUT: &str = "1h";

/// A timeout: a number of seconds, minutes or hours (`90s`, `30m`, `2h`,
/// bare: seconds), from 1 s to 7 days.
fn parse_timeout_arg(text: &str) -> Result<std::time::Duration, String> {
    let seconds = parse_duration_seconds(text)?;
    if !(1.0..=7.0 * 86400.0).contains(&seconds) {
        return Err(format!("'{text}': must be between 1s and 7 days"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// The seed of the matrix classes' draws when none is given
/// (characterize's --class-seed, the `matrix` command): fixed, so `--plan`
/// draws the cells the run measures, and runs of one build and of every
/// later build draw alike (the draws are SplitMix64's).
pub const DEFAULT_CLASS_SEED: u64 = 1;

/// The default `--budget` of every command that plans: ten minutes.
pub const DEFAULT_BUDGET: &str = "10m";

/// A time budget: `none` (everything runs) or a duration as for
/// [`parse_timeout_arg`], from 1 s to 7 days.
fn parse_budget_arg(text: &str) -> Result<Budget, String> {
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(Budget::Unlimited);
    }
    let seconds = parse_duration_seconds(text)
        .map_err(|_| format!("'{text}': not a duration like 90s, 10m or 2h, nor none"))?;
    if !(1.0..=7.0 * 86400.0).contains(&seconds) {
        return Err(format!(
            "'{text}': a budget must be between 1s and 7 days (or none, to run everything)"
        ));
    }
    Ok(Budget::Seconds(seconds))
}

/// Seconds of a duration written as a number with `s`, `m`/`min` or `h`
/// (bare: seconds).
fn parse_duration_seconds(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let scale = match unit {
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("'{text}': not a duration like 90s, 30m or 2h")),
    };
    let seconds = number
        .parse::<f64>()
        .map_err(|_| format!("'{text}': not a duration like 90s, 30m or 2h"))?
        * scale;
    if !seconds.is_finite() {
        return Err(format!("'{text}': not a duration like 90s, 30m or 2h"));
    }
    Ok(seconds)
}

fn parse_class_arg(text: &str) -> Result<NpbClass, String> {
    NpbClass::parse(text)
}

fn parse_placement_arg(text: &str) -> Result<PlacementScheme, String> {
    PlacementScheme::parse(text)
}

fn parse_thread_scheme_arg(text: &str) -> Result<ThreadScheme, String> {
    ThreadScheme::parse(text)
}

fn parse_simd_arg(text: &str) -> Result<SimdLevel, String> {
    let level = SimdLevel::from_name(text).ok_or_else(|| {
        format!("unknown SIMD level '{text}' (valid: avx512, avx2, sse2, scalar)")
    })?;
    if level > SimdLevel::detect() {
        return Err(format!(
            "this CPU does not support {text} (best: {})",
            SimdLevel::detect().name()
        ));
    }
    Ok(level)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every visible subcommand is in exactly one group of the top-level
    /// help, and every grouped name is a subcommand.
    #[test]
    fn the_groups_cover_every_visible_command_once() {
        use clap::CommandFactory;
        let command = Cli::command();
        let visible: Vec<&str> = command
            .get_subcommands()
            .filter(|sub| !sub.is_hide_set())
            .map(|sub| sub.get_name())
            .collect();
        let grouped: Vec<&str> = COMMAND_GROUPS
            .iter()
            .flat_map(|(_, names)| names.iter().copied())
            .collect();
        for name in &visible {
            let count = grouped.iter().filter(|grouped| *grouped == name).count();
            assert_eq!(count, 1, "{name} is in {count} groups");
        }
        for name in &grouped {
            assert!(
                visible.contains(name),
                "{name} is grouped but not a visible command"
            );
        }
    }

    /// `--plan` is found on any command that has it, nested (`matrix
    /// bandwidth`) or flattened from shared flags (`latency`, `stream`), and
    /// nowhere else.
    #[test]
    fn a_plan_is_asked_for_by_any_command_with_the_flag() {
        let asks = |line: &[&str]| {
            let matches = command()
                .try_get_matches_from(std::iter::once("numabench").chain(line.iter().copied()))
                .unwrap();
            asks_for_plan(&matches)
        };
        for line in [
            &["latency", "--plan"][..],
            &["matrix", "bandwidth", "--plan"],
            &["stream", "--plan"],
            &["characterize", "--plan"],
            &["placement-study", "--plan", "cg"],
            &["run", "--plan", "--", "true"],
            &["--topology", "x.xml", "cg", "--plan"],
        ] {
            assert!(asks(line), "{line:?}");
        }
        for line in [
            &["latency"][..],
            &["matrix", "bandwidth"],
            &["topo"],
            &["run", "--", "true"],
        ] {
            assert!(!asks(line), "{line:?}");
        }
    }

    /// Every `plan` argument of every (sub)command is a plain flag, so
    /// [`asks_for_plan`] reads it as a bool wherever a new command adds it.
    #[test]
    fn every_plan_argument_is_a_flag() {
        fn check(command: &clap::Command, found: &mut usize) {
            for argument in command.get_arguments().filter(|a| a.get_id() == "plan") {
                *found += 1;
                assert!(
                    matches!(argument.get_action(), clap::ArgAction::SetTrue),
                    "{}: --plan is not a flag",
                    command.get_name()
                );
            }
            for sub in command.get_subcommands() {
                check(sub, found);
            }
        }
        let mut found = 0;
        check(&command(), &mut found);
        assert!(found >= 18, "only {found} commands have --plan");
    }
}
