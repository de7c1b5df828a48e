//! What must be the same on every host of a cluster for their results to
//! be comparable — the topology summary and the `doctor` findings — and
//! which hosts differ from the majority.

use crate::doctor::{CheckId, DoctorReport};
use crate::topology::Machine;
use numabench_schema::params::{DifferingSettingParams, HostSettings};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Doctor checks whose `found` text carries figures that vary from run to
/// run or rank to rank (free memory, the rank's own CPU set): only their
/// severity is compared.
const SEVERITY_ONLY: [CheckId; 2] = [CheckId::NodeMemory, CheckId::ProcessRestriction];

/// Memory totals within this share of the hosts' median count as equal
/// (kernels reserve slightly different amounts on identical machines).
pub const MEMORY_TOLERANCE: f64 = 0.02;

/// A host's settings to compare: setting name → value. Numbers are
/// compared as numbers (memory with [`MEMORY_TOLERANCE`]), the rest as
/// text. Doctor findings appear as `doctor.CHECK` = `severity: found`.
pub fn host_settings(topology: &Machine, doctor: &DoctorReport) -> HostSettings {
    let cpuless = topology.nodes.iter().filter(|node| node.cpuless).count();
    let memory: u64 = topology
        .nodes
        .iter()
        .map(|node| node.memory_total_bytes)
        .sum();
    // Named at run time: one setting per doctor check.
    let mut findings = Map::new();
    for finding in &doctor.findings {
        let value = if SEVERITY_ONLY.contains(&finding.check) {
            finding.severity.name().to_string()
        } else {
            finding.severity.with(&finding.found)
        };
        findings.insert(format!("doctor.{}", finding.check), json!(value));
    }
    HostSettings {
        cpus: Some(topology.cpu_count as u64),
        cores: Some(topology.core_count as u64),
        numa_nodes: Some(topology.node_count as u64),
        cpuless_nodes: Some(cpuless as u64),
        memory_total_bytes: Some(memory),
        doctor: findings,
    }
}

/// One host whose setting differs from the majority of hosts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    pub host: String,
    pub setting: String,
    pub value: Value,
    /// The value most hosts have; `None` when no value is shared by more
    /// hosts than any other (then every host with a value is listed).
    pub majority: Option<Value>,
    /// How many hosts have the majority value.
    pub majority_hosts: usize,
}

impl Difference {
    /// Its record's params.
    pub(super) fn params(&self) -> DifferingSettingParams {
        DifferingSettingParams {
            host: Some(self.host.clone()),
            setting: Some(self.setting.clone()),
            value: self.value.clone(),
            majority: self.majority.clone(),
            majority_hosts: Some(self.majority_hosts as u64),
        }
    }
}

/// Hosts whose settings differ from the majority, setting by setting. A
/// setting missing on a host counts as the value `null`. With a single
/// host nothing can differ.
pub fn differing(hosts: &[(String, Map<String, Value>)]) -> Vec<Difference> {
    if hosts.len() < 2 {
        return Vec::new();
    }
    let mut names: Vec<&String> = hosts.iter().flat_map(|(_, s)| s.keys()).collect();
    names.sort();
    names.dedup();
    let mut found = Vec::new();
    for name in names {
        let values: Vec<Value> = hosts
            .iter()
            .map(|(_, settings)| settings.get(name).cloned().unwrap_or(Value::Null))
            .collect();
        let classes = classify(name, &values);
        let mut counts: BTreeMap<usize, usize> = BTreeMap::new();
        for &class in &classes {
            *counts.entry(class).or_default() += 1;
        }
        let top = counts.values().copied().max().unwrap_or(0);
        let leaders: Vec<usize> = counts
            .iter()
            .filter(|&(_, &count)| count == top)
            .map(|(&class, _)| class)
            .collect();
        let majority = (leaders.len() == 1).then(|| leaders[0]);
        if counts.len() < 2 {
            continue;
        }
        let majority_value =
            majority.map(|class| values[classes.iter().position(|&c| c == class).unwrap()].clone());
        for ((host, _), (value, &class)) in hosts.iter().zip(values.iter().zip(&classes)) {
            if Some(class) != majority {
                found.push(Difference {
                    host: host.clone(),
                    setting: name.clone(),
                    value: value.clone(),
                    majority: majority_value.clone(),
                    majority_hosts: if majority.is_some() { top } else { 0 },
                });
            }
        }
    }
    found
}

/// Groups equal values: the class of each value is the index of the first
/// value equal to it (memory: within [`MEMORY_TOLERANCE`] of the median).
fn classify(name: &str, values: &[Value]) -> Vec<usize> {
    if name == "memory_total_bytes" {
        let numbers: Vec<f64> = values.iter().filter_map(Value::as_f64).collect();
        if numbers.len() == values.len() && !numbers.is_empty() {
            let median = super::outlier::median(&numbers);
            // Class 0: near the median; otherwise each value its own class.
            return numbers
                .iter()
                .enumerate()
                .map(|(index, &n)| {
                    if (n - median).abs() <= MEMORY_TOLERANCE * median.abs() {
                        0
                    } else {
                        index + 1
                    }
                })
                .collect();
        }
    }
    values
        .iter()
        .map(|value| values.iter().position(|other| other == value).unwrap())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use numabench_schema::params::to_params;

    fn host(name: &str, thp: &str, memory: u64) -> (String, Map<String, Value>) {
        let settings = HostSettings {
            numa_nodes: Some(2),
            memory_total_bytes: Some(memory),
            doctor: Map::from_iter([("doctor.transparent_huge_pages".to_string(), json!(thp))]),
            ..HostSettings::default()
        };
        (name.to_string(), to_params(&settings))
    }

    const GIB: u64 = 1 << 30;

    #[test]
    fn the_host_with_another_thp_setting_is_named() {
        let hosts = [
            host("a", "ok: madvise", 64 * GIB),
            host("b", "ok: madvise", 64 * GIB),
            host("c", "warning: never", 64 * GIB),
        ];
        let found = differing(&hosts);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].host, "c");
        assert_eq!(found[0].setting, "doctor.transparent_huge_pages");
        assert_eq!(found[0].majority, Some(json!("ok: madvise")));
        assert_eq!(found[0].majority_hosts, 2);
    }

    #[test]
    fn memory_differs_only_beyond_the_tolerance() {
        let close = [
            host("a", "x", 64 * GIB),
            host("b", "x", 64 * GIB - GIB / 100),
            host("c", "x", 64 * GIB + GIB / 200),
        ];
        assert!(differing(&close).is_empty());
        let short = [
            host("a", "x", 64 * GIB),
            host("b", "x", 64 * GIB),
            host("c", "x", 48 * GIB),
        ];
        let found = differing(&short);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].host, "c");
        assert_eq!(found[0].setting, "memory_total_bytes");
    }

    #[test]
    fn a_missing_setting_counts_and_a_tie_lists_every_host() {
        let mut lacking = host("c", "x", GIB);
        lacking.1.remove("numa_nodes");
        let found = differing(&[host("a", "x", GIB), host("b", "x", GIB), lacking]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].value, Value::Null);
        let tie = differing(&[host("a", "x", GIB), host("b", "y", GIB)]);
        assert_eq!(tie.len(), 2);
        assert!(tie.iter().all(|d| d.majority.is_none()));
    }

    #[test]
    fn one_host_or_identical_hosts_differ_in_nothing() {
        assert!(differing(&[host("a", "x", GIB)]).is_empty());
        assert!(differing(&[
            host("a", "x", GIB),
            host("b", "x", GIB),
            host("c", "x", GIB)
        ])
        .is_empty());
    }

    #[test]
    fn settings_of_a_synthetic_machine_name_its_shape_and_findings() {
        let topology = crate::topology::synthetic("pack:2 [numa(memory=8GiB)] core:2 pu:2");
        let doctor = crate::doctor::run_doctor(&crate::doctor::SystemFiles::real(), &topology);
        let settings = host_settings(&topology, &doctor);
        assert_eq!(settings.numa_nodes, Some(2));
        assert_eq!(settings.cpus, Some(8));
        assert_eq!(settings.memory_total_bytes, Some(16u64 << 30));
        for finding in &doctor.findings {
            assert!(settings
                .doctor
                .contains_key(&format!("doctor.{}", finding.check)));
        }
    }
}
