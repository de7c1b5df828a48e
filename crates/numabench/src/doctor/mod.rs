//! `numabench doctor`: audits every system setting that changes NUMA
//! results and says, for each, what it found, why it matters and what to
//! do. It only reads; it never changes a setting, and works unprivileged.

mod check_id;
mod cpu_checks;
mod finding;
mod hidden_memory;
mod memory_checks;
mod system_files;
mod tiering_checks;

pub use check_id::CheckId;
pub use finding::{DoctorReport, Finding, Severity};
pub use system_files::SystemFiles;
pub use tiering_checks::{memory_tiers, MemoryTier};

use crate::topology::Machine;

/// Runs every check against the files under `files` (the real root `/` in
/// production, a prepared tree in tests) and the topology. On another
/// machine's topology (`topology.this_system` false, e.g. `--topology
/// FILE`) only what the topology shows is checked: the settings of the
/// running kernel are reported as not checked, since they are this
/// machine's, not that one's.
pub fn run_doctor(files: &SystemFiles, topology: &Machine) -> DoctorReport {
    let host = |check: CheckId, run: &dyn Fn() -> Finding| {
        if topology.this_system {
            run()
        } else {
            Finding::not_checked(check, &topology.source)
        }
    };
    let findings = vec![
        host(CheckId::NumaBalancing, &|| {
            memory_checks::numa_balancing(files, topology)
        }),
        host(CheckId::TransparentHugePages, &|| {
            memory_checks::transparent_huge_pages(files)
        }),
        host(CheckId::ThpDefrag, &|| {
            memory_checks::transparent_huge_pages_defrag(files)
        }),
        host(CheckId::ZoneReclaimMode, &|| {
            memory_checks::zone_reclaim(files, topology)
        }),
        host(CheckId::HugePagePools, &|| {
            memory_checks::huge_page_pools(files, topology)
        }),
        if topology.this_system {
            memory_checks::node_memory_balance(files, topology)
        } else {
            memory_checks::node_memory_of_other_machine(topology)
        },
        host(CheckId::MemoryLimit, &|| {
            memory_checks::memory_limit(topology)
        }),
        host(CheckId::Damon, &|| memory_checks::damon(files)),
        host(CheckId::MemoryTiers, &|| {
            tiering_checks::tiers(files, topology)
        }),
        host(CheckId::Demotion, &|| tiering_checks::demotion(files)),
        host(CheckId::WeightedInterleave, &|| {
            tiering_checks::weighted_interleave(files)
        }),
        host(CheckId::HiddenMemory, &|| {
            hidden_memory::hidden_memory(files, topology)
        }),
        host(CheckId::CpuGovernor, &|| {
            cpu_checks::frequency_governor(files, topology)
        }),
        cpu_checks::smt(files, topology),
        cpu_checks::process_restriction(topology),
        host(CheckId::Hypervisor, &|| cpu_checks::hypervisor(files)),
        host(CheckId::PerfEventParanoid, &|| {
            cpu_checks::performance_counters(files)
        }),
        cpu_checks::node_count(topology),
    ];
    DoctorReport::new(findings)
}

#[cfg(test)]
mod tests;
