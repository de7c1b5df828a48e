//! Which of doctor's warnings affect which findings: each warning of the
//! run's doctor audit, with the findings of that run it bears on and why.
//! A warning that bears on no finding present is left out; so is every
//! setting doctor found fine.

use super::{FindingKind, Sentence};
use crate::doctor::{CheckId, Finding, Severity};
use crate::output::Unit;
use numabench_schema::params::findings::DoctorWarningParams;
use numabench_schema::params::to_params;

/// Every finding kind and how a sentence names it.
const NAMES: &[(FindingKind, &str)] = &[
    (FindingKind::IdleLatency, "idle latency"),
    (FindingKind::MemoryLatency, "memory latency"),
    (FindingKind::MemoryBandwidth, "read bandwidth"),
    (FindingKind::CpulessNode, "CPU-less nodes"),
    (FindingKind::BandwidthSaturation, "saturation"),
    (FindingKind::SerialInit, "serial initialisation"),
    (FindingKind::SlowCpu, "slowest CPU"),
    (FindingKind::SlowNodePair, "slowest node pair"),
    (FindingKind::DeclaredMismatch, "measured against declared"),
    (FindingKind::DeclaredGap, "declared gaps"),
    (FindingKind::Mlp, "memory-level parallelism"),
    (FindingKind::C2c, "core-to-core latency"),
    (FindingKind::HugePages, "huge pages"),
    (FindingKind::PlacementVerified, "placement"),
];

/// The finding kinds a doctor check bears on (`None`: all of them) and how.
fn effect(check: CheckId) -> (Option<&'static [FindingKind]>, &'static str) {
    const PLACED: &[FindingKind] = &[
        FindingKind::MemoryLatency,
        FindingKind::MemoryBandwidth,
        FindingKind::CpulessNode,
        FindingKind::SerialInit,
        FindingKind::SlowNodePair,
        FindingKind::DeclaredMismatch,
        FindingKind::DeclaredGap,
        FindingKind::PlacementVerified,
    ];
    match check {
        CheckId::NumaBalancing | CheckId::Damon => (
            Some(PLACED),
            "the kernel may move pages while they are measured (pages moved during a measurement are checked again and named in its record)",
        ),
        CheckId::ZoneReclaimMode => (
            Some(PLACED),
            "allocations may reclaim on their node instead of spilling to another",
        ),
        CheckId::TransparentHugePages | CheckId::ThpDefrag | CheckId::HugePagePools => (
            Some(&[FindingKind::IdleLatency, FindingKind::MemoryLatency, FindingKind::Mlp, FindingKind::HugePages]),
            "page size changes TLB misses, part of every latency",
        ),
        CheckId::CpuGovernor => (
            Some(&[
                FindingKind::IdleLatency,
                FindingKind::MemoryLatency,
                FindingKind::C2c,
                FindingKind::Mlp,
                FindingKind::MemoryBandwidth,
                FindingKind::BandwidthSaturation,
                FindingKind::SlowCpu,
            ]),
            "the core clock may change between measurements",
        ),
        CheckId::Smt => (
            Some(&[FindingKind::BandwidthSaturation, FindingKind::C2c, FindingKind::SlowCpu]),
            "SMT siblings share one core's resources",
        ),
        CheckId::NodeMemory => (
            Some(&[FindingKind::MemoryLatency, FindingKind::MemoryBandwidth, FindingKind::CpulessNode]),
            "working sets are capped by the memory nodes have free",
        ),
        CheckId::Hypervisor => (
            None,
            "the host may share or move the virtual CPUs, and hides its own NUMA layout",
        ),
        _ => (None, "it may change any figure"),
    }
}

/// One sentence per doctor warning that bears on a finding present.
pub fn sentences(doctor: &[Finding], findings: &[Sentence]) -> Vec<Sentence> {
    doctor
        .iter()
        .filter(|finding| finding.severity == Severity::Warning)
        .filter_map(|warning| {
            let (kinds, why) = effect(warning.check);
            let affected: Vec<&str> = NAMES
                .iter()
                .filter(|(kind, _)| kinds.is_none_or(|kinds| kinds.contains(kind)))
                .filter(|(kind, _)| findings.iter().any(|finding| finding.kind == *kind))
                .map(|(_, name)| *name)
                .collect();
            if affected.is_empty() {
                return None;
            }
            let params = to_params(&DoctorWarningParams {
                check: Some(warning.check.to_string()),
                found: Some(warning.found.clone()),
                affects: Some(affected.iter().map(|name| name.to_string()).collect()),
            });
            Some(Sentence {
                kind: FindingKind::DoctorWarning,
                text: format!(
                    "doctor: {} ({}): {why}; bears on {}",
                    warning.found,
                    warning.check,
                    affected.join(", ")
                ),
                value: affected.len() as f64,
                unit: Unit::Count,
                params,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn finding(kind: FindingKind) -> Sentence {
        Sentence {
            kind,
            text: String::new(),
            value: 1.0,
            unit: Unit::Ratio,
            params: Map::new(),
        }
    }

    /// NUMA balancing on bears on the placed figures present, not on
    /// core-to-core latency; an ok setting says nothing; a warning that
    /// bears on no finding present is left out.
    #[test]
    fn warnings_name_the_findings_they_bear_on() {
        let doctor = [
            Finding::new(
                CheckId::NumaBalancing,
                Severity::Warning,
                "kernel.numa_balancing = 1 (on)",
                "",
                "",
            ),
            Finding::new(CheckId::CpuGovernor, Severity::Ok, "performance", "", ""),
            Finding::new(CheckId::Smt, Severity::Warning, "SMT on", "", ""),
        ];
        let findings = [
            finding(FindingKind::MemoryLatency),
            finding(FindingKind::C2c),
            finding(FindingKind::PlacementVerified),
        ];
        let warnings = sentences(&doctor, &findings);
        crate::findings::assert_wire(&warnings, &[
            "doctor_warning {\"check\":\"numa_balancing\",\"found\":\"kernel.numa_balancing = 1 (on)\",\"affects\":[\"memory latency\",\"placement\"]}",
            "doctor_warning {\"check\":\"smt\",\"found\":\"SMT on\",\"affects\":[\"core-to-core latency\"]}",
        ]);
        let texts: Vec<String> = warnings.into_iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            [
                "doctor: kernel.numa_balancing = 1 (on) (numa_balancing): the kernel may move pages while they are measured (pages moved during a measurement are checked again and named in its record); bears on memory latency, placement",
                "doctor: SMT on (smt): SMT siblings share one core's resources; bears on core-to-core latency",
            ]
        );
        assert!(sentences(&doctor, &[finding(FindingKind::IdleLatency)]).is_empty());
    }
}
