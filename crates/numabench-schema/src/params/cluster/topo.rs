//! `cluster-topo`: a host's settings to compare (topology summary and
//! `doctor` findings), one record per measuring rank.

use super::super::BenchmarkParams;
use super::ClusterLabels;
use crate::benchmark;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A host's settings: setting name → value. The doctor's findings are
/// named at run time (`doctor.CHECK` = `severity: found`, or the severity
/// alone for checks whose text varies), so they stay a map.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostSettings {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpus: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cores: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub numa_nodes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub cpuless_nodes: Option<u64>,
    /// Memory of every node together, bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub memory_total_bytes: Option<u64>,
    /// `doctor.CHECK` → `severity: found` (or `severity`).
    #[serde(flatten)]
    pub doctor: Map<String, Value>,
}

/// The params of a `cluster-topo` record (value: the NUMA node count).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClusterTopoParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub settings: Option<HostSettings>,
    /// How many of the doctor's findings are warnings.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub doctor_warnings: Option<u64>,
    /// The CPUs the rank may use.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub allowed_cpus: Option<Vec<u32>>,
    #[serde(flatten)]
    pub labels: ClusterLabels,
}

impl BenchmarkParams for ClusterTopoParams {
    const BENCHMARKS: &'static [&'static str] = &[benchmark::CLUSTER_TOPO];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::typed::assert_round_trips;
    use serde_json::json;

    #[test]
    fn written_params_round_trip() {
        assert_round_trips::<ClusterTopoParams>(json!({"settings": {"cpus": 4, "cores": 4,
            "numa_nodes": 2, "cpuless_nodes": 0, "memory_total_bytes": 2147483648u64,
            "doctor.numa_balancing": "warning: on", "doctor.node_memory": "ok"},
            "doctor_warnings": 1, "allowed_cpus": [0, 1], "host": "h0", "rank": 0,
            "unit": "h0", "part": "topo"}));
    }
}
