//! `numabench doctor`: audits every system setting that changes NUMA
//! results and says, for each, what it found, why it matters and what to
//! do. It only reads; it never changes a setting, and works unprivileged.

mod cpu_checks;
mod finding;
mod memory_checks;
mod system_files;

pub use finding::{DoctorReport, Finding, Severity};
pub use system_files::SystemFiles;

use crate::topology::TopologyReport;

/// Runs every check against the files under `files` (the real root `/` in
/// production, a prepared tree in tests) and the discovered topology.
pub fn run_doctor(files: &SystemFiles, topology: &TopologyReport) -> DoctorReport {
    let findings = vec![
        memory_checks::numa_balancing(files, topology),
        memory_checks::transparent_huge_pages(files),
        memory_checks::transparent_huge_pages_defrag(files),
        memory_checks::zone_reclaim(files, topology),
        memory_checks::huge_page_pools(files, topology),
        memory_checks::node_memory_balance(files, topology),
        memory_checks::damon(files),
        cpu_checks::frequency_governor(files, topology),
        cpu_checks::smt(files, topology),
        cpu_checks::process_restriction(topology),
        cpu_checks::hypervisor(files),
        cpu_checks::performance_counters(files),
        cpu_checks::node_count(topology),
    ];
    DoctorReport::new(findings)
}

#[cfg(test)]
mod tests;
