//! numabench: measure what NUMA costs on a machine and which thread and
//! memory placement makes a program fast and repeatable.
//!
//! The library holds every capability; the `numabench` binary only parses
//! flags and calls into it. One module per concern (a test checks that this
//! list names every module):
//! - [`topology`]: the machine as hwloc sees it, and the nodes this process may use;
//! - [`doctor`]: system settings that change NUMA results;
//! - [`check`]: `numabench check`, a per-NUMA-node health check against a baseline
//!   (Slurm, NHC, node-problem-detector), and draining a node as NHC does;
//! - [`memory`]: buffers, memory policies, page placement and its checks (the
//!   NUMA system calls live in `memory::syscalls` only);
//! - [`threads`]: pinning, CPU orders, the spin barrier and the pinned pool;
//! - [`kernels`]: pointer-chase orders and bandwidth loops (kernels as data);
//! - [`bench`]: the micro-benchmarks, their registry, plans and estimates;
//! - [`workloads`]: the applications (NPB CG and MG, STREAM) and their catalog;
//! - [`runtime`]: the team of workers they run on, shared arrays and placement
//!   schemes (first touch, interleave, migrate, next-touch), huge pages;
//! - [`experiments`]: runs of the workloads and their records, the one-node
//!   baseline, node splits, thread scaling and placement studies;
//! - [`runner`]: `numabench run`: any program under pinning and memory policies;
//! - [`overdecompose`]: the over-decomposition study (SOR over MPI, K ranks per core);
//! - [`study`]: the study engine (interleaved repetitions, comparisons, verdicts);
//! - [`cluster`]: `numabench cluster` over MPI (the exchange behind feature `mpi`);
//! - [`counters`]: per-thread and process time, TLP, numastat and perf events of a run;
//! - [`stats`]: samples and their statistics;
//! - [`output`]: result records and the sinks that write them;
//! - [`findings`]: characterize's findings (its sentences), computed from a run's records;
//! - [`simulate`]: a model of any topology with planted faults that answers the
//!   measurements instead of the hardware, to prove characterize's plan and findings
//!   (tests and `scripts/simulate-findings` only);
//! - [`compare`]: matching the records of several result sets;
//! - [`report`]: the HTML report of results files (plots and tables);
//! - [`memattrs`]: measured matrix figures as hwloc memory attributes (`export-memattrs`);
//! - [`mpi_monitor`]: reading the MPI runtime monitor's records and summing them up;
//! - [`companions`]: where numabench's own shared libraries are found;
//! - [`clock`]: the stopwatch and TSC, for benchmarks, applications and runs;
//! - [`interrupt`]: Ctrl-C and SIGTERM, checked between measurements by every command,
//!   and forwarded to the process group of the program a command started;
//! - [`private_dir`]: the private folder (mode 0700) that holds every temporary file;
//! - [`parse`]: sizes and CPU/node lists as users type them;
//! - [`error`]: who is at fault when something fails, the user or the system;
//! - [`units`]: unit formatting, in one place.

/// The commit this build was made from (the build script's `NUMABENCH_COMMIT`).
pub const BUILD_COMMIT: &str = env!("NUMABENCH_COMMIT");

/// `numabench --version`'s text: the version and the commit.
pub const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("NUMABENCH_COMMIT"),
    ")"
);

pub mod bench;
pub mod check;
pub mod clock;
pub mod cluster;
pub mod companions;
pub mod compare;
pub mod counters;
pub mod doctor;
pub mod error;
pub mod experiments;
pub mod findings;
pub mod interrupt;
pub mod kernels;
pub mod memattrs;
pub mod memory;
pub mod mpi_monitor;
pub mod output;
pub mod overdecompose;
pub mod parse;
pub mod private_dir;
pub mod report;
pub mod runner;
pub mod runtime;
pub mod simulate;
pub mod stats;
pub mod study;
pub mod threads;
pub mod topology;
pub mod units;
pub mod workloads;
