//! Running other programs under NUMA policies, repeatedly (`numabench
//! run`): policies applied before exec (CPU affinity, memory policy, the
//! pinning shim for pthreads, OpenMP places), wall/user/system time, peak
//! RSS and context switches per run, observation of page placement and
//! thread migration, and the comparison across policies.

mod command;
mod compare_policies;
mod counted;
mod executor;
mod leftovers;
mod observe;
mod pin_files;
mod plan;
mod policy;
mod rank_blocks;
mod rounds;
mod scan;
mod scan_params;
mod team;
mod terminal;
mod thread_setup;
mod wait;

pub use command::{
    find_program, policy_texts, programs, run_command, RunCommand, RunCommandResult,
    DEFAULT_POLICIES,
};
pub use compare_policies::{
    render_comparison, run_policies, status_text, PolicySummary, RunStudyConfig, StudyError,
};
pub use counted::{counts_params, Counting, ProgramCounts};
pub use executor::{
    policy_environment, Executor, Invocation, ProcessExecutor, RunError, RunOutcome,
};
pub use leftovers::{become_subreaper, LeftoverReport, KILL_GRACE};
pub use observe::{
    parse_nr_migrations, parse_numa_maps, parse_processor, Observation, ObservationSample,
};
pub use plan::{RunPlan, RunPlanStep};
pub use policy::{parse_policy, PolicyError, PolicyProblem, RunPolicy};
pub use rank_blocks::{cores_first_cores, k_per_core, RankBlocks};
pub use scan::{run_scan, Efficiency, ScanConfig, ScanConfiguration, ScanResult};
pub use scan_params::{
    numeric_values, parse_param, parse_scan, scan_points, ScanError, ScanParam, ScanPoint,
};
pub use team::{thread_count_warning, threads_seen};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod scan_tests;
