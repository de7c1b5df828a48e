//! What a finding is about: [`FindingKind`], the `metric` of its summary
//! record. Its serde form is the one place a kind is spelled.

use numabench_schema::WireName;
use serde::{Deserialize, Serialize};

/// What a finding is about; written as the `metric` of its summary record
/// (and in `params.rests_on` of the advice) in snake case: `idle_latency`,
/// `slow_node_pair`, `c2c`, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// Idle latency per cache level.
    IdleLatency,
    /// Local against remote memory latency.
    MemoryLatency,
    /// Local against remote read bandwidth.
    MemoryBandwidth,
    /// Nodes with memory and no CPU.
    CpulessNode,
    /// The thread count where bandwidth saturates.
    BandwidthSaturation,
    /// What a serial initialisation costs.
    SerialInit,
    /// A node slower than its class.
    SlowNode,
    /// A CPU slower than its class.
    SlowCpu,
    /// A node pair slower than its class.
    SlowNodePair,
    /// The firmware's tables against the measured figures.
    DeclaredMismatch,
    /// HMAT gaps the measurement contradicts.
    DeclaredGap,
    /// Memory-level parallelism.
    Mlp,
    /// Core-to-core latency.
    C2c,
    /// Huge pages.
    HugePages,
    /// Whether pages landed where they were asked to.
    PlacementVerified,
    /// The worst pair of an interference matrix.
    Interference,
    /// A doctor warning and the findings it bears on.
    DoctorWarning,
    /// What to do, resting on other findings.
    Advice,
    /// What the time budget cut.
    BudgetCut,
    /// Budget left that bought no more measurements.
    BudgetLeftover,
    /// A step that ran over the budget.
    OverBudget,
    /// What a cut budget left unmeasured.
    BlindSpot,
    /// How long the run took.
    RunTime,
}

numabench_schema::wire_named!(FindingKind);

impl FindingKind {
    /// The kind a summary record's `metric` names, if any.
    pub fn of_metric(metric: &str) -> Option<Self> {
        Self::of_name(metric)
    }

    /// Whether the finding is about the run rather than the machine: what
    /// the budget cut or left, and how long the run took (the terminal and
    /// the report list these apart, under "This run").
    pub fn is_about_the_run(self) -> bool {
        matches!(
            self,
            Self::BudgetCut
                | Self::BudgetLeftover
                | Self::OverBudget
                | Self::BlindSpot
                | Self::RunTime
        )
    }
}

#[cfg(test)]
mod tests {
    use super::FindingKind;
    use numabench_schema::WireName;

    /// The wire names are the ones records have always carried, and a
    /// metric reads back as its kind.
    #[test]
    fn names_are_the_wire_strings() {
        for (kind, name) in [
            (FindingKind::IdleLatency, "idle_latency"),
            (FindingKind::CpulessNode, "cpuless_node"),
            (FindingKind::SlowNodePair, "slow_node_pair"),
            (FindingKind::C2c, "c2c"),
            (FindingKind::Mlp, "mlp"),
            (FindingKind::DoctorWarning, "doctor_warning"),
            (FindingKind::RunTime, "run_time"),
        ] {
            assert_eq!(kind.name(), name);
            assert_eq!(kind.to_string(), name);
            assert_eq!(FindingKind::of_metric(name), Some(kind));
        }
        assert_eq!(FindingKind::of_metric("c2c_latency"), None);
    }
}
