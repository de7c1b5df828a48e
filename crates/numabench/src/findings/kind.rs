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
    use numabench_schema::params::findings::*;
    use numabench_schema::params::{BenchmarkParams, Metrics};
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

    /// The metric a kind's params type claims in the schema crate (which
    /// cannot see this type and spells the names as constants); a kind
    /// added without one does not compile here.
    fn typed(kind: FindingKind) -> Vec<(&'static str, Metrics)> {
        use FindingKind as K;
        match kind {
            K::IdleLatency => vec![(IDLE_LATENCY, IdleLatencyParams::METRICS)],
            K::MemoryLatency => vec![(MEMORY_LATENCY, MemoryLatencyParams::METRICS)],
            K::MemoryBandwidth => vec![(MEMORY_BANDWIDTH, MemoryBandwidthParams::METRICS)],
            K::CpulessNode => vec![(CPULESS_NODE, CpulessNodeParams::METRICS)],
            K::BandwidthSaturation => {
                vec![(BANDWIDTH_SATURATION, BandwidthSaturationParams::METRICS)]
            }
            K::SerialInit => vec![(SERIAL_INIT, SerialInitParams::METRICS)],
            K::SlowNode => vec![(SLOW_NODE, SlowNodeParams::METRICS)],
            K::SlowCpu => vec![(SLOW_CPU, SlowCpuParams::METRICS)],
            K::SlowNodePair => vec![(SLOW_NODE_PAIR, SlowNodePairParams::METRICS)],
            K::DeclaredMismatch => vec![(DECLARED_MISMATCH, DeclaredMismatchParams::METRICS)],
            K::DeclaredGap => vec![(DECLARED_GAP, DeclaredGapParams::METRICS)],
            K::Mlp => vec![(MLP, MlpFindingParams::METRICS)],
            K::C2c => vec![(C2C, C2cFindingParams::METRICS)],
            K::HugePages => vec![(HUGE_PAGES, HugePagesParams::METRICS)],
            K::PlacementVerified => vec![(PLACEMENT_VERIFIED, PlacementVerifiedParams::METRICS)],
            K::Interference => vec![(INTERFERENCE, InterferenceFindingParams::METRICS)],
            K::DoctorWarning => vec![(DOCTOR_WARNING, DoctorWarningParams::METRICS)],
            K::Advice => vec![(ADVICE, AdviceParams::METRICS)],
            K::BudgetCut => vec![(BUDGET_CUT, BudgetCutParams::METRICS)],
            K::BudgetLeftover => vec![(BUDGET_LEFTOVER, BudgetParams::METRICS)],
            K::OverBudget => vec![
                (OVER_BUDGET, BudgetParams::METRICS),
                (OVER_BUDGET, UnfinishedClassParams::METRICS),
            ],
            K::BlindSpot => vec![(BLIND_SPOT, BudgetParams::METRICS)],
            K::RunTime => vec![(RUN_TIME, RunTimeParams::METRICS)],
        }
    }

    /// Every kind's wire name is the constant its params type claims.
    #[test]
    fn each_kind_is_the_metric_its_params_type_claims() {
        use FindingKind as K;
        for kind in [
            K::IdleLatency,
            K::MemoryLatency,
            K::MemoryBandwidth,
            K::CpulessNode,
            K::BandwidthSaturation,
            K::SerialInit,
            K::SlowNode,
            K::SlowCpu,
            K::SlowNodePair,
            K::DeclaredMismatch,
            K::DeclaredGap,
            K::Mlp,
            K::C2c,
            K::HugePages,
            K::PlacementVerified,
            K::Interference,
            K::DoctorWarning,
            K::Advice,
            K::BudgetCut,
            K::BudgetLeftover,
            K::OverBudget,
            K::BlindSpot,
            K::RunTime,
        ] {
            for (name, metrics) in typed(kind) {
                assert_eq!(kind.name(), name);
                assert_eq!(metrics.claims(name), Some(true), "{name}");
            }
        }
    }
}
