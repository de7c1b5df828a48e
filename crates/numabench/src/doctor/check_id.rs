//! Which setting a doctor finding is about: [`CheckId`]. Its serde form is
//! the one place a check's id is spelled (`check` in doctor's JSON, the
//! `doctor.<id>` settings of `cluster` and `check`'s fingerprint).

use serde::{Deserialize, Serialize};

/// A doctor check, written in snake case: `numa_balancing`, `smt`, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckId {
    /// Automatic NUMA balancing (`kernel.numa_balancing`).
    NumaBalancing,
    /// Transparent huge pages' `enabled`.
    TransparentHugePages,
    /// Transparent huge pages' `defrag`.
    ThpDefrag,
    /// `vm.zone_reclaim_mode`.
    ZoneReclaimMode,
    /// The hugetlbfs pools per node.
    HugePagePools,
    /// Free memory per node.
    NodeMemory,
    /// The cgroup's memory limit.
    MemoryLimit,
    /// A running DAMON monitor.
    Damon,
    /// The kernel's memory tiers.
    MemoryTiers,
    /// Demotion to a slower tier.
    Demotion,
    /// Weighted interleave's weights.
    WeightedInterleave,
    /// Memory the firmware or a driver holds back.
    HiddenMemory,
    /// The CPU frequency governor.
    CpuGovernor,
    /// Simultaneous multithreading.
    Smt,
    /// An affinity or cpuset narrower than the machine.
    ProcessRestriction,
    /// A hypervisor underneath.
    Hypervisor,
    /// `kernel.perf_event_paranoid`.
    PerfEventParanoid,
    /// How many NUMA nodes, and which have no CPU.
    NumaNodes,
}

// `name()` and `to_string()` are the id doctor writes, `of_name` reads it back.
numabench_schema::wire_named!(CheckId);

#[cfg(test)]
mod tests {
    use super::*;
    use numabench_schema::WireName;

    /// The ids are the strings doctor has always written.
    #[test]
    fn ids_are_the_wire_strings() {
        let checks = [
            CheckId::NumaBalancing,
            CheckId::ThpDefrag,
            CheckId::PerfEventParanoid,
            CheckId::Smt,
            CheckId::NumaNodes,
        ];
        let json = serde_json::to_string(&checks).unwrap();
        assert_eq!(
            json,
            r#"["numa_balancing","thp_defrag","perf_event_paranoid","smt","numa_nodes"]"#
        );
        assert!(checks
            .iter()
            .all(|check| CheckId::of_name(&check.to_string()) == Some(*check)));
        assert_eq!(CheckId::of_name("NumaBalancing"), None);
    }
}
